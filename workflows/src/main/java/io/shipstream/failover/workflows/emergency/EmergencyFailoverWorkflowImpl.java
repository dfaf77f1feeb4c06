package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.workflows.EmergencyFailoverWorkflow;
import io.shipstream.failover.workflows.activities.KubernetesActivities.GroupSnapshot;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.common.ActivityStubs;
import io.shipstream.failover.workflows.common.CancelRequest;
import io.shipstream.failover.workflows.common.FailoverAbort;
import io.shipstream.failover.workflows.common.FailoverKind;
import io.shipstream.failover.workflows.common.FailoverMetrics;
import io.shipstream.failover.workflows.common.FailoverProgress;
import io.shipstream.failover.workflows.common.ChannelReadBack;
import io.shipstream.failover.workflows.common.FailoverRun;
import io.shipstream.failover.workflows.common.Failures;
import io.shipstream.failover.workflows.common.PromotionOutcome;
import io.shipstream.failover.workflows.common.PromotionOutcome.Stuck;
import io.shipstream.failover.workflows.common.Rollback;
import io.shipstream.failover.workflows.contract.Events;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;

/**
 * The emergency-failover runbook. {@link #failover} reads as the procedure an operator would
 * follow by hand when the active site's primary died; the checks and the outcome are small
 * methods below it, the longer steps live beside it: {@link FailedSiteFence} (Fencing), {@link
 * CandidatePromotion} (Promoting), {@link SessionStoreFollows}, all sharing one {@link
 * FailoverRun}. One failure idiom: before the promotion a step throws a {@link FailoverAbort} and
 * {@link #rollBack} undoes the fence; the promotion ends in a {@link PromotionOutcome}, and from
 * there on the candidate may be writable and the workflow only goes forward. Two writable
 * primaries are avoided by order: the failed primary is checked once more right before its fence
 * and a primary that answers ends the run with nothing done ({@link OldPrimaryRecheck}); the
 * candidate is made writable only after the fence attempt on
 * the failed primary has ended, the failed site's role label is gone, the candidate is named
 * active and the failed primary is known to take no writes (fenced, or its sidecar says so, or
 * its lease ran out).
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
    String why = progress.trigger == null ? "no reason given" : progress.trigger;
    run.enter(Phase.Pending, "primary of " + progress.source + " failed: " + why);
    run.event(Events.FAILOVER_STARTED, "emergency failover from " + progress.source + " to " + progress.target
        + ": " + why);

    Rollback rollback = new Rollback();
    FailedSiteFence failedSite = new FailedSiteFence(run);
    EmergencyPlan plan;
    try {
      plan = EmergencyPlan.resolve(group, request.spec() != null ? request.spec() : snapshot.spec(), progress.source,
          progress.target);
      OldPrimaryRecheck failedPrimary = OldPrimaryRecheck.start(plan, run.quickMysql);
      checkCandidate(plan);
      failedPrimary.refuseIfAnswering(snapshot.status() == null ? null : snapshot.status().activeSite(), why);
      run.checkNotCancelled("in " + progress.phase);
      run.useHooks(plan.config().hooks()).startBesideEmergencyFence();
      failedSite.fence(plan, rollback);
      run.checkNotCancelled("in " + progress.phase);
    } catch (FailoverAbort abort) {
      return rollBack(rollback, failedSite, abort);
    }
    CandidatePromotion promotion = new CandidatePromotion(run, divergentSites);
    PromotionOutcome promoted = promotion.promote(plan);
    if (promoted instanceof Stuck stuck) {
      failedSite.settleSessionKill();
      run.fail(Reason.ExecuteFailed, stuck.why(), Events.FAILOVER_FAILED);
      return progress.toEmergencyStatus();
    }

    DataLoss loss = reportDataLoss(request.siteGtids(), divergentSites, promotion.survivors());
    run.flipRouting(plan.config(), plan.target()).settle();
    new SessionStoreFollows(run).promote(plan);
    run.recordPromotionPoint(plan.target(), Events.FAILOVER_RECORD_INCOMPLETE, "promotionGtidExecuted not recorded");
    ChannelReadBack channels = new ChannelReadBack(run, plan.targetServer());
    promotion.survivors().settleRepointing(channels);
    failedSite.settleSessionKill();
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

  /** Only a reachable, read-only candidate is promoted ({@link EmergencyPlan#checkCandidate}). */
  private void checkCandidate(EmergencyPlan plan) {
    ServerState state;
    try {
      state = run.quickMysql.inspect(plan.targetServer());
    } catch (ActivityFailure e) {
      state = ServerState.unreachable(plan.target().name(), Failures.rootMessage(e));
    }
    plan.checkCandidate(state);
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
