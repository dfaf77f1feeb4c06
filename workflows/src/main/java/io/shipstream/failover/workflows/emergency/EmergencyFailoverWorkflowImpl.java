package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.WorkflowRef;
import io.shipstream.failover.workflows.EmergencyFailoverWorkflow;
import io.shipstream.failover.workflows.SearchAttributes;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.shipstream.failover.workflows.activities.KubernetesActivities.GroupSnapshot;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.common.ActivityStubs;
import io.shipstream.failover.workflows.common.Failures;
import io.shipstream.failover.workflows.common.StatusPublisher;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.TemporalFailure;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Saga;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;

/**
 * The emergency-failover runbook. {@link #failover} reads as the procedure an operator would
 * follow by hand when the active site's primary died; the checks and the outcome are small
 * methods below it, the longer steps live beside it: {@link FailedSiteFence} (Fencing), {@link
 * CandidatePromotion} (Promoting) and {@link AfterPromotion} (data loss, routing, session store,
 * Resuming), all sharing one {@link EmergencyRun}. Before the promotion a failure or cancel undoes
 * the fence; from there on the candidate may be writable and the workflow only goes forward. Two writable primaries are
 * avoided by order: the candidate is made writable only after the fence attempt on the failed
 * primary has ended, the failed site's role label is gone, the candidate is named active and the
 * failed primary is known to take no writes (fenced, or its sidecar says so, or its lease ran out).
 */
public class EmergencyFailoverWorkflowImpl implements EmergencyFailoverWorkflow {
  static final String PRIMARY = "primary";
  static final String REPLICA = "replica";
  // The change ids of the runbook's versioned steps, kept together here because a stored history
  // records them by these names. The steps themselves live in the collaborators named below.
  /**
   * The change id of the steps with the other survivors ({@link CandidatePromotion}): the
   * candidate caught up from a fresher replica before promotion, every survivor re-pointed at the
   * new primary after. A failover started on an older worker replays without them.
   */
  static final String SURVIVOR_STEPS = "survivor-catch-up-and-repoint";
  /** The change id of the session store's promotion ({@link AfterPromotion#promoteSessionStore}). */
  static final String SESSION_STORE = "session-store-promotion";
  /**
   * The change id of the wait for proof that the old primary takes no writes before the candidate
   * is made writable ({@link OldPrimaryGate}). A failover started on an older worker replays
   * without it.
   */
  static final String OLD_PRIMARY_GUARD = "old-primary-fence-proof";
  private static final Logger log = Workflow.getLogger(EmergencyFailoverWorkflowImpl.class);

  private final KubernetesActivities k8s = ActivityStubs.kubernetes();
  private final MysqlActivities mysql = ActivityStubs.mysql();
  private final EmergencyFailoverProgress progress = new EmergencyFailoverProgress();
  private final EmergencyFailoverMetrics metrics = new EmergencyFailoverMetrics();
  private GroupRef group;
  private EmergencyRun run;
  private boolean cancelRequested;
  private String cancelReason;
  private Map<String, String> siteGtids;
  private Set<String> divergentSites = Set.of();
  private FailedSiteFence failedSite;

  @Override
  public EmergencyFailoverStatus run(Request request) {
    // A cancel request through Temporal (UI, CLI) means the same as the cancel signal. The runbook
    // runs detached so that such a request can never interrupt a promotion half-way; before
    // Promoting it is honoured at the next step, with the fence undone. The SDK still marks the
    // execution cancelled, however it ended: the resource's status tells the outcome.
    CancellationScope.current().getCancellationRequest().thenApply(why -> {
      cancel(why);
      return null;
    });
    List<EmergencyFailoverStatus> result = new ArrayList<>(1);
    Workflow.newDetachedCancellationScope(() -> result.add(failover(request))).run();
    return result.get(0);
  }

  private EmergencyFailoverStatus failover(Request request) {
    begin(request);
    GroupSnapshot snapshot = k8s.loadGroup(group);
    divergentSites = Survivors.divergentSites(snapshot.status());
    EmergencyAbort stale = staleRequest(snapshot);
    if (stale != null) {
      return skip(stale);
    }
    String why = progress.trigger == null ? "no reason given" : progress.trigger;
    run.enter(EmergencyPhase.Pending, "primary of " + progress.failedSite + " failed: " + why);
    run.publisher.event("Normal", "FailoverStarted", "emergency failover from " + progress.failedSite + " to "
        + progress.target + ": " + why);
    Saga saga = new Saga(new Saga.Options.Builder().setParallelCompensation(false).build());
    EmergencyPlan plan;
    try {
      plan = plan(snapshot);
      checkCandidate(plan);
      checkNotCancelled();
      failedSite.fence(plan, saga);
      checkNotCancelled();
    } catch (EmergencyAbort abort) {
      return rollBack(saga, abort);
    }
    CandidatePromotion promotion = new CandidatePromotion(run, mysql, divergentSites);
    EmergencyAbort notPromoted = promotion.promote(plan);
    if (notPromoted != null) {
      finishFailed(notPromoted.reason, notPromoted.getMessage());
      return progress.toStatus();
    }
    AfterPromotion afterPromotion = new AfterPromotion(run, promotion);
    afterPromotion.reportDataLoss(siteGtids, divergentSites);
    afterPromotion.flipRouting(plan);
    afterPromotion.promoteSessionStore(plan);
    afterPromotion.recordFailover(plan);
    return succeed();
  }

  // --- Pending -------------------------------------------------------------------------------

  private void begin(Request request) {
    group = request.group();
    progress.failedSite = request.failedSite();
    progress.target = request.candidate();
    progress.trigger = request.reason();
    progress.oldPrimaryLastKnownGtid = request.oldPrimaryLastKnownGtid();
    siteGtids = request.siteGtids() == null ? Map.of() : request.siteGtids();
    progress.startTime = now();
    run = new EmergencyRun(group, progress, new StatusPublisher(k8s, group, workflowRef(),
        StatusPublisher.coalescing()), k8s, metrics);
    failedSite = new FailedSiteFence(run);
  }

  /**
   * Why the request no longer applies, or null. A status naming another site than the failed one
   * active means the group moved on after the watcher decided (a re-delivered start, or a
   * failover that already happened): acting would undo it, and writing the status would
   * overwrite the real outcome.
   */
  private EmergencyAbort staleRequest(GroupSnapshot snapshot) {
    String active = snapshot.status() == null ? null : snapshot.status().activeSite();
    if (active == null || active.equals(progress.failedSite)) {
      return null;
    }
    if (active.equals(progress.target)) {
      return new EmergencyAbort(Reason.AlreadyActive, progress.target + " is already the active site");
    }
    return new EmergencyAbort(Reason.ConcurrentOperation, "the status names " + active
        + " active, not the failed site " + progress.failedSite);
  }

  /** Ends without touching anything, the resource's status included. */
  private EmergencyFailoverStatus skip(EmergencyAbort stale) {
    progress.phase = EmergencyPhase.Failed;
    progress.reason = stale.reason;
    progress.message = "request superseded, nothing done: " + stale.getMessage();
    progress.completionTime = now();
    log.info("{} emergency failover skipped: {}", group, stale.getMessage());
    return progress.toStatus();
  }

  private EmergencyPlan plan(GroupSnapshot snapshot) {
    return EmergencyPlan.resolve(group, snapshot.spec(), progress.failedSite, progress.target);
  }

  private void checkCandidate(EmergencyPlan plan) {
    ServerState state;
    try {
      state = mysql.inspect(plan.targetServer());
    } catch (ActivityFailure e) {
      state = ServerState.unreachable(plan.target().name(), Failures.rootMessage(e));
    }
    plan.checkCandidate(state);
  }

  private void checkNotCancelled() {
    if (cancelRequested) {
      throw new EmergencyAbort(Reason.Cancelled, "cancelled in " + progress.phase + ": " + cancelReason);
    }
  }

  // --- Resuming ------------------------------------------------------------------------------

  private EmergencyFailoverStatus succeed() {
    failedSite.settleSessionKill();
    String lost = progress.transactionsLost == null ? "transactions lost unknown"
        : progress.transactionsLost + " transactions lost";
    String summary = "promoted " + progress.target + " after " + progress.failedSite + " failed, " + lost;
    progress.message = progress.message == null ? summary : summary + "; " + progress.message;
    progress.phase = EmergencyPhase.Succeeded;
    progress.completionTime = now();
    run.publisher.status(progress.toStatus());
    SearchAttributes.phase(progress.phase.name(), progress.target);
    run.publisher.event("Normal", "FailoverExecuted", progress.message);
    metrics.finished(progress.target, EmergencyFailoverMetrics.SUCCESS,
        Duration.between(progress.startTime, progress.completionTime));
    run.publisher.flush();
    return progress.toStatus();
  }

  // --- Failure and rollback ------------------------------------------------------------------

  private EmergencyFailoverStatus rollBack(Saga saga, EmergencyAbort abort) {
    String outcome = "";
    if (progress.phase == EmergencyPhase.Fencing) {
      String failed = progress.failedSite;
      // The session kill ends first (it is bounded): it must not go on killing the sessions of a
      // server that takes writes again.
      failedSite.settleSessionKill();
      try {
        saga.compensate();
        outcome = Boolean.TRUE.equals(progress.oldPrimaryFenced)
            ? "; rolled back: " + failed + " unfenced and labelled primary again"
            : "; rolled back: " + failed + " labelled primary again";
      } catch (Saga.CompensationException | TemporalFailure e) {
        outcome = "; ROLLBACK FAILED (" + Failures.rootMessage(e) + "): " + failed
            + " may stay fenced and unlabelled, manual recovery required";
      }
    }
    finishFailed(abort.reason, abort.getMessage() + outcome);
    return progress.toStatus();
  }

  private void finishFailed(Reason reason, String message) {
    failedSite.settleSessionKill();
    progress.phase = EmergencyPhase.Failed;
    progress.reason = reason;
    progress.message = progress.message == null ? message : message + "; " + progress.message;
    progress.completionTime = now();
    run.publisher.status(progress.toStatus());
    SearchAttributes.phase(progress.phase.name(), progress.target);
    run.publisher.event("Warning", "FailoverFailed", reason + ": " + message);
    String result = switch (reason) {
      case InvalidSpec, UnknownSite, TargetUnhealthy -> "rejected";
      case Cancelled -> "cancelled";
      default -> "failed_other";
    };
    metrics.finished(progress.target, result, Duration.between(progress.startTime, progress.completionTime));
    run.publisher.flush();
  }

  // --- Signals and queries -------------------------------------------------------------------

  @Override
  public void cancel(String reason) {
    if (progress.phase.isPastPointOfNoReturn()) {
      log.info("cancel of {} ignored in phase {}: the candidate may already be writable", group, progress.phase);
      return;
    }
    cancelRequested = true;
    cancelReason = reason == null || reason.isBlank() ? "cancel signal" : reason;
  }

  @Override
  public EmergencyFailoverStatus status() {
    return progress.toStatus();
  }

  // --- helpers -------------------------------------------------------------------------------

  private WorkflowRef workflowRef() {
    var info = Workflow.getInfo();
    return new WorkflowRef("EmergencyFailover", info.getWorkflowId(), info.getRunId());
  }

  private static Instant now() {
    return EmergencyRun.now();
  }
}
