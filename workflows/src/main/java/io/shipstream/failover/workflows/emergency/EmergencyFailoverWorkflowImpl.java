package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.topology.SemiSyncPlan;
import io.shipstream.failover.workflows.EmergencyFailoverWorkflow;
import io.shipstream.failover.workflows.activities.KubernetesActivities.GroupSnapshot;
import io.shipstream.failover.workflows.activities.MysqlActivities.PromoteResult;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.common.ActivityStubs;
import io.shipstream.failover.workflows.common.CancelRequest;
import io.shipstream.failover.workflows.common.ChannelReadBack;
import io.shipstream.failover.workflows.common.FailoverAbort;
import io.shipstream.failover.workflows.common.FailoverKind;
import io.shipstream.failover.workflows.common.FailoverMetrics;
import io.shipstream.failover.workflows.common.FailoverProgress;
import io.shipstream.failover.workflows.common.FailoverRun;
import io.shipstream.failover.workflows.common.Failures;
import io.shipstream.failover.workflows.common.PromotionOutcome;
import io.shipstream.failover.workflows.common.PromotionOutcome.Stuck;
import io.shipstream.failover.workflows.common.Rollback;
import io.shipstream.failover.workflows.contract.Events;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;

/**
 * The emergency-failover runbook. {@link #failover} reads as the procedure an operator would
 * follow by hand when the active site's primary died, one line per stage, in the order the
 * stages run; each stage is a method below it that says when it completes, and the longer ones
 * live beside it: {@link FailedSiteFence} (Fencing), {@link OldPrimaryGate} (the proof that the
 * old primary takes no writes), {@link Survivors} (the catch-up and the re-pointing), {@link
 * SessionStoreFollows}, all sharing one {@link FailoverRun}. One failure idiom: before the point
 * of no return a stage throws a {@link FailoverAbort} and {@link #rollBack} undoes the fence; from
 * the naming of the candidate on, a stage that cannot complete ends the run as {@link Stuck} and
 * nothing is undone, since the candidate may be writable. Two writable primaries are avoided by
 * order: the failed primary is checked once more right before its fence and a primary that
 * answers ends the run with nothing done ({@link OldPrimaryRecheck}); the candidate is made
 * writable only after the fence attempt on the failed primary has ended, the failed site's role
 * label is gone, the candidate is named active and the failed primary is known to take no writes
 * (fenced, or its sidecar says so, or its lease ran out). Two checks are started early and settled
 * later, so that their waits overlap other work: the failed primary's last inspection overlaps the
 * candidate's, and the ask for the proof overlaps the catch-up.
 */
public class EmergencyFailoverWorkflowImpl implements EmergencyFailoverWorkflow {
  private static final Logger log = Workflow.getLogger(EmergencyFailoverWorkflowImpl.class);

  private final FailoverProgress progress = new FailoverProgress();
  // Set by the cancel signal, which may arrive before the run below is built.
  private final CancelRequest cancel = new CancelRequest();
  private GroupRef group;
  private FailoverRun run;

  @Override
  public EmergencyFailoverStatus run(Request request) {
    return FailoverRun.runDetached(this::cancel, () -> failover(request));
  }

  private EmergencyFailoverStatus failover(Request request) {
    begin(request);
    GroupSnapshot snapshot = run.k8s.loadGroup(group);
    Set<String> divergentSites = Survivors.divergentSites(snapshot.status());
    Superseded stale = staleRequest(snapshot);
    if (stale != null) {
      return skip(stale);
    }
    String why = announce();

    Rollback rollback = new Rollback();
    FailedSiteFence failedSite = new FailedSiteFence(run);
    EmergencyPlan plan;
    try {
      plan = EmergencyPlan.resolve(group, request.spec() != null ? request.spec() : snapshot.spec(), progress.source,
          progress.target);
      // The failed primary's last inspection starts before the candidate's and is read after it.
      OldPrimaryRecheck failedPrimary = OldPrimaryRecheck.start(plan, run.quickMysql);
      chooseCandidate(plan);
      recheckFailedPrimary(failedPrimary, snapshot, why);
      fenceFailedSite(plan, failedSite, rollback);
    } catch (FailoverAbort abort) {
      return rollBack(rollback, failedSite, abort);
    }

    // The point of no return: once the candidate is named active nothing is undone, a stage that
    // cannot complete ends the run Stuck for a person to recover.
    Optional<Stuck> unnamed = nameActive(plan);
    if (unnamed.isPresent()) {
      return endStuck(failedSite, unnamed.get());
    }
    // The proof is asked for before the catch-up and awaited after it, so that the two overlap.
    OldPrimaryGate proof = startProof(plan);
    Survivors survivors = catchUp(plan, divergentSites);
    proveOldPrimaryCannotWrite(proof);
    if (promote(plan) instanceof Stuck stuck) {
      return endStuck(failedSite, stuck);
    }
    // The survivors' re-pointing starts now, beside what follows, and is settled by repoint.
    survivors.startRepointing();

    DataLoss loss = reportDataLoss(request.siteGtids(), divergentSites, survivors);
    route(plan);
    new SessionStoreFollows(run).promote(plan);
    run.recordPromotionPoint(plan.target(), Events.FAILOVER_RECORD_INCOMPLETE, "promotionGtidExecuted not recorded");
    ChannelReadBack channels = repoint(plan, survivors);
    failedSite.settleSessionKill();
    return succeed(loss, channels);
  }

  // --- Pending -------------------------------------------------------------------------------------

  private void begin(Request request) {
    group = request.group();
    progress.source = request.failedSite();
    progress.target = request.candidate();
    progress.trigger = request.reason();
    progress.oldPrimaryLastKnownGtid = request.oldPrimaryLastKnownGtid();
    progress.forcedPromotion = request.forcedPromotion();
    progress.detectedAt = instant(request.detectedAt());
    progress.lastPolledAt = instant(request.primaryLastPolledAt());
    progress.startTime = FailoverRun.now();
    run = new FailoverRun(FailoverKind.EMERGENCY, group, null, progress, ActivityStubs.kubernetes(),
        ActivityStubs.mysql(), new FailoverMetrics(FailoverKind.EMERGENCY), cancel);
  }

  /** Why a request no longer applies, with the reason to record. */
  private record Superseded(Reason reason, String why) {}

  /**
   * Why the request no longer applies, or null. A status naming another site than the failed one
   * active means the group moved on after the watcher decided (a re-delivered start, or a
   * failover that already happened): acting would undo it, and writing the status would
   * overwrite the real outcome.
   */
  private Superseded staleRequest(GroupSnapshot snapshot) {
    String active = snapshot.status() == null ? null : snapshot.status().activeSite();
    if (active == null || active.equals(progress.source)) {
      return null;
    }
    if (active.equals(progress.target)) {
      return new Superseded(Reason.AlreadyActive, progress.target + " is already the active site");
    }
    return new Superseded(Reason.ConcurrentOperation, "the status names " + active
        + " active, not the failed site " + progress.source);
  }

  /** Ends without touching anything, the resource's status included. */
  private EmergencyFailoverStatus skip(Superseded stale) {
    progress.phase = Phase.Failed;
    progress.reason = stale.reason();
    progress.message = "request superseded, nothing done: " + stale.why();
    progress.completionTime = FailoverRun.now();
    log.info("{} emergency failover skipped: {}", group, stale.why());
    return progress.toEmergencyStatus();
  }

  /** Completes once the status says Pending and the start's Event is out; returns why the watcher started the run. */
  private String announce() {
    String why = progress.trigger == null ? "no reason given" : progress.trigger;
    run.enter(Phase.Pending, "primary of " + progress.source + " failed: " + why);
    run.event(Events.FAILOVER_STARTED, "emergency failover from " + progress.source + " to " + progress.target
        + ": " + why);
    return why;
  }

  // --- Before the point of no return: a FailoverAbort rolls back -----------------------------------

  /**
   * Completes once a fresh look confirms the watcher's candidate may be promoted (reachable,
   * read-only, applying what it received: {@link EmergencyPlan#checkCandidate}); throws a {@link
   * FailoverAbort} otherwise.
   */
  private void chooseCandidate(EmergencyPlan plan) {
    ServerState state;
    try {
      state = run.quickMysql.inspect(plan.targetServer());
    } catch (ActivityFailure e) {
      state = ServerState.unreachable(plan.target().name(), Failures.rootMessage(e));
    }
    plan.checkCandidate(state);
  }

  /**
   * Completes once the failed primary's last inspection, started before the candidate's, answered
   * or ran out of {@link OldPrimaryRecheck#ANSWER_WAIT}; throws a {@link FailoverAbort} when it
   * answered while the status names it active (it is not dead), or when the run was cancelled.
   */
  private void recheckFailedPrimary(OldPrimaryRecheck failedPrimary, GroupSnapshot snapshot, String why) {
    failedPrimary.refuseIfAnswering(snapshot.status() == null ? null : snapshot.status().activeSite(), why);
    run.checkNotCancelled("in " + progress.phase);
  }

  /**
   * Completes once the fence attempt on the failed primary has ended and its primary role label is
   * gone, with the undo registered in {@code rollback}; throws a {@link FailoverAbort} when the
   * label stayed or the run was cancelled.
   */
  private void fenceFailedSite(EmergencyPlan plan, FailedSiteFence failedSite, Rollback rollback) {
    run.useHooks(plan.config().hooks()).startBesideEmergencyFence();
    failedSite.fence(plan, rollback);
    run.checkNotCancelled("in " + progress.phase);
  }

  // --- The point of no return: from here nothing is undone ------------------------------------------

  /**
   * Completes once the status names the candidate active (Promoting), before it becomes writable,
   * so that no sidecar fences it; {@link Stuck} when the API server refused the write, and the
   * candidate is not made writable.
   */
  private Optional<Stuck> nameActive(EmergencyPlan plan) {
    try {
      run.nameTargetActive(plan.target());
      return Optional.empty();
    } catch (ActivityFailure e) {
      return Optional.of(new Stuck("could not name " + plan.target().name() + " the active site, so it was not made"
          + " writable: " + Failures.rootMessage(e) + "; " + plan.failed().name() + " stays fenced and unlabelled:"
          + " manual recovery required"));
    }
  }

  /**
   * Completes once the old primary's sidecar, when there is one, is being asked for proof that it
   * takes no writes (it may be alive and only cut off from the control plane), beside a read of its
   * pods' liveness probe: asked right after the naming so that the answer overlaps the catch-up, and
   * awaited after it ({@link #proveOldPrimaryCannotWrite}).
   */
  private OldPrimaryGate startProof(EmergencyPlan plan) {
    return OldPrimaryGate.start(plan, run.k8s, progress.oldPrimaryFenced, FailoverRun.now(), run::warn, run::inform,
        wait -> progress.oldPrimaryWait = wait);
  }

  /**
   * Completes once the candidate's set is final (relay log applied, replication stopped) and it
   * caught up from the freshest compatible survivor when one holds more, each step bounded by
   * connectionDrainTimeout; a catch-up that cannot be done is a warning, and the candidate is
   * promoted with what it has ({@link Survivors#catchUpCandidate}).
   */
  private Survivors catchUp(EmergencyPlan plan, Set<String> divergentSites) {
    Survivors survivors = new Survivors(plan, run.quickMysql, run::warn, run::inform, divergentSites, run::show);
    survivors.catchUpCandidate(plan.config().connectionDrainTimeout());
    return survivors;
  }

  /**
   * Completes once the old primary cannot take writes: fenced by this run, confirmed by its
   * sidecar, or its lease and a hung sidecar's restart waited out; at once when it has no sidecar,
   * with a Warning ({@link OldPrimaryGate#await}).
   */
  private void proveOldPrimaryCannotWrite(OldPrimaryGate proof) {
    proof.await();
  }

  /**
   * Completes once the candidate applied every relay-log event it received (even with its SQL
   * thread stopped, bounded by connectionDrainTimeout) and is a writable primary ({@link
   * PromotionOutcome.Promoted}), or {@link Stuck} when that failed, the candidate being recorded
   * as the active site either way.
   */
  private PromotionOutcome promote(EmergencyPlan plan) {
    Duration relayDrain = plan.config().connectionDrainTimeout();
    try {
      PromoteResult promoted = ActivityStubs.mysqlWait(relayDrain, "promote " + plan.target().name()
          + " once its relay log is applied")
          .promote(plan.targetServer(), FailoverRun.now().plus(relayDrain),
              SemiSyncPlan.atPromotion(plan.config(), plan.target().name()), false);
      progress.targetGtidAtPromotion = promoted.gtidExecuted();
      progress.targetWritableAt = promoted.writableAt();
      return new PromotionOutcome.Promoted(promoted.gtidExecuted());
    } catch (ActivityFailure e) {
      return new Stuck("promotion of " + plan.target().name() + " failed: " + Failures.rootMessage(e) + "; "
          + plan.target().name() + " is recorded as the active site: manual recovery required");
    }
  }

  /** Completes once the candidate's primary label, DNS and the taints were each brought over or warned about. */
  private void route(EmergencyPlan plan) {
    run.flipRouting(plan.config(), plan.target()).settle();
  }

  /**
   * Completes once every survivor's re-pointing at the new primary (started right after the
   * promotion) has ended or was warned about; the returned read-back of their channels is recorded
   * once Succeeded is on its way.
   */
  private ChannelReadBack repoint(EmergencyPlan plan, Survivors survivors) {
    ChannelReadBack channels = new ChannelReadBack(run, plan.targetServer());
    survivors.settleRepointing(channels);
    return channels;
  }

  /** Completes once the run ended as Succeeded, saying what did not make it across. */
  private EmergencyFailoverStatus succeed(DataLoss loss, ChannelReadBack channels) {
    String lost = loss.claim(progress.source, Boolean.TRUE.equals(progress.oldPrimaryFenced));
    if (progress.forcedPromotion != null) {
      lost += ", promoted over maxLagOnPromotion " + progress.forcedPromotion.maxLagOnPromotion() + " as "
          + progress.forcedPromotion.requestedBy() + " requested";
    }
    // The survivors' channels were read back beside the rest; recorded once Succeeded is on its way.
    run.succeed("promoted " + progress.target + " after " + progress.source + " failed, " + lost,
        Events.FAILOVER_EXECUTED, channels::record);
    return progress.toEmergencyStatus();
  }

  /**
   * Completes once the run ended as Failed past the point of no return: nothing is undone, since the
   * candidate is named active (or may be) and the old primary cannot be trusted with writes again.
   */
  private EmergencyFailoverStatus endStuck(FailedSiteFence failedSite, Stuck stuck) {
    failedSite.settleSessionKill();
    run.fail(Reason.ExecuteFailed, stuck.why(), Events.FAILOVER_FAILED);
    return progress.toEmergencyStatus();
  }

  // --- Rollback ----------------------------------------------------------------------------------

  /**
   * Undoes the fence, if there was one, and finishes as Failed with the abort's reason. A failed
   * primary that answered before its fence ({@link OldPrimaryRecheck}) ends as rejected, with an
   * Event of its own: nothing was done, and it is no failure to page about.
   */
  private EmergencyFailoverStatus rollBack(Rollback rollback, FailedSiteFence failedSite, FailoverAbort abort) {
    String outcome = "";
    if (rollback.any()) {
      String failed = progress.source;
      // The session kill ends first (it is bounded): it must not go on killing the sessions of a
      // server that takes writes again.
      failedSite.settleSessionKill();
      Optional<String> undoFailed = rollback.undo();
      if (undoFailed.isPresent()) {
        outcome = "; ROLLBACK FAILED (" + undoFailed.get() + "): " + failed
            + " may stay fenced and unlabelled, " + Events.MANUAL_RECOVERY_REQUIRED;
      } else {
        outcome = Boolean.TRUE.equals(progress.oldPrimaryFenced)
            ? "; rolled back: " + failed + " unfenced and labelled primary again"
            : "; rolled back: " + failed + " labelled primary again";
      }
    }
    failedSite.settleSessionKill();
    run.fail(abort.reason(), abort.getMessage() + outcome, abort.reason() == Reason.PrimaryAnswered
        ? Events.FAILOVER_REJECTED : Events.FAILOVER_FAILED);
    return progress.toEmergencyStatus();
  }

  // --- After the promotion -------------------------------------------------------------------------

  /**
   * Says what did not make it across, in the status and a Warning Event: a loss is never hidden.
   * Lost is what the old primary or any other server was known to hold and the promoted one lacks.
   *
   * @param siteGtids every site's last known set, as the watcher saw it (null from older watchers)
   * @param divergentSites the sites held back for divergent transactions since an earlier failover
   */
  private DataLoss reportDataLoss(Map<String, String> siteGtids, Set<String> divergentSites, Survivors survivors) {
    List<String> known = new ArrayList<>();
    // A site held back for divergent transactions holds them since an earlier failover, not this one.
    (siteGtids == null ? Map.<String, String>of() : siteGtids).forEach((site, gtid) -> {
      if (!divergentSites.contains(site)) {
        known.add(gtid);
      }
    });
    known.addAll(survivors.knownGtids());
    DataLoss loss = DataLoss.between(progress.oldPrimaryLastKnownGtid, known, progress.targetGtidAtPromotion);
    progress.transactionsLost = loss.transactions();
    progress.lostGtid = loss.lostGtid();
    progress.lossComputedFrom = loss.known() ? DataLoss.computedFrom(progress.source,
        Boolean.TRUE.equals(progress.oldPrimaryFenced), known.size(), progress.target) : null;
    if (!loss.known()) {
      run.warn(Events.DATA_LOSS_UNKNOWN, "transactions lost unknown: " + loss.unknownBecause());
    } else if (loss.any()) {
      run.warn(Events.DATA_LOSS_DETECTED, loss.transactions() + " transactions committed on " + progress.source
          + " are not on " + progress.target + ": " + loss.lostGtid());
    }
    run.publishStatus();
    return loss;
  }

  // --- Signals and queries -------------------------------------------------------------------------

  @Override
  public void cancel(String reason) {
    FailoverRun.cancel(cancel, progress, group, reason);
  }

  @Override
  public EmergencyFailoverStatus status() {
    return progress.toEmergencyStatus();
  }

  /** An instant of the request, null when absent or unreadable: the write window is then not recorded. */
  private static java.time.Instant instant(String text) {
    try {
      return text == null ? null : java.time.Instant.parse(text);
    } catch (java.time.format.DateTimeParseException e) {
      return null;
    }
  }
}
