package io.shipstream.failover.workflows.planned;

import io.shipstream.failover.model.Durations;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.WorkflowRef;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.workflows.PlannedFailoverWorkflow;
import io.shipstream.failover.workflows.SearchAttributes;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.shipstream.failover.workflows.activities.KubernetesActivities.GroupSnapshot;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.shipstream.failover.workflows.activities.MysqlActivities.FenceResult;
import io.shipstream.failover.workflows.activities.MysqlActivities.PromoteResult;
import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.common.ActivityStubs;
import io.shipstream.failover.workflows.common.Failures;
import io.shipstream.failover.workflows.common.StatusPublisher;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Decision;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Defer;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Plan;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Proceed;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Reject;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.CheckedRequest;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.failure.TemporalFailure;
import io.temporal.failure.TimeoutFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Functions;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Saga;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

/**
 * The planned-failover runbook. {@link #run} reads as the procedure an operator would follow by
 * hand; each step is a small method below it. Everything before {@link #promoteTarget} can be
 * undone and is undone on any failure or cancel; a promotion that fails is undone only once the
 * target is fenced again, and after a promotion the workflow only goes forward.
 */
public class PlannedFailoverWorkflowImpl implements PlannedFailoverWorkflow {
  static final String PRIMARY = "primary";
  static final String REPLICA = "replica";
  private static final Logger log = Workflow.getLogger(PlannedFailoverWorkflowImpl.class);

  /**
   * The change id of the runbook whose short, idempotent calls are local activities.
   * Failovers started by a worker without it replay with ordinary activities throughout.
   */
  static final String LOCAL_CALLS_CHANGE_ID = "local-short-calls";

  private KubernetesActivities k8s;
  private final MysqlActivities mysql = ActivityStubs.mysql();
  private MysqlActivities quickMysql = mysql;
  private final MysqlActivities persistentMysql = ActivityStubs.mysqlPersistent();
  private final PlannedFailoverProgress progress = new PlannedFailoverProgress();
  private final FailoverMetrics metrics = new FailoverMetrics();
  private GroupRef group;
  private String annotation;
  private StatusPublisher publisher;
  private SessionStoreHandover sessions;
  private boolean cancelRequested;
  private String failoverRecordedAt;
  private String cancelReason;

  @Override
  public PlannedFailoverStatus run(Request request) {
    group = request.group();
    annotation = request.annotation();
    progress.startTime = now();
    useLocalShortCalls(Workflow.getVersion(LOCAL_CALLS_CHANGE_ID, Workflow.DEFAULT_VERSION, 1) >= 1);
    publisher = new StatusPublisher(k8s, group, workflowRef());
    sessions = new SessionStoreHandover(group, k8s, progress, publisher, metrics, this::enter);

    GroupSnapshot snapshot = k8s.loadGroup(group);
    if (!isStillRequested(snapshot)) {
      // A re-delivered informer event for a request that was already handled, or one the user
      // has since changed: touching the status would overwrite the real outcome.
      progress.message = "request superseded: the annotation no longer holds '" + annotation + "'";
      return progress.toStatus();
    }
    enter(Phase.Pending, "annotation observed: " + annotation);
    publisher.event("Normal", "PlannedFailoverStarted", "planned failover requested: " + annotation);
    Plan plan = validate(snapshot);
    if (plan == null) {
      return progress.toStatus();
    }
    return execute(plan);
  }

  /**
   * Every Kubernetes call (status, Events, labels, DNS, taints, the failover record, loading the
   * group), the MySQL inspection and the old primary's rejoin become local activities: a workflow
   * task then carries several of them instead of costing a server round trip each. Each is
   * idempotent (a write of the same value, a read, a rejoin that keeps a replica already pointing
   * at the target), so the re-run after a worker dies mid-task does no harm. The fence, the
   * drain, the lag wait, the promotion and the unfence stay ordinary activities, recorded before
   * the workflow goes on. The order of side effects is the runbook's as before: a local call
   * completes before the step after it is scheduled.
   */
  private void useLocalShortCalls(boolean local) {
    k8s = local ? ActivityStubs.kubernetesLocal() : ActivityStubs.kubernetes();
    quickMysql = local ? ActivityStubs.mysqlLocal() : mysql;
  }

  private PlannedFailoverStatus execute(Plan plan) {
    if (cancelRequested) {
      finishFailed(Reason.Cancelled, "cancelled before the fence: " + cancelReason, "PlannedFailoverRejected");
      return progress.toStatus();
    }
    Saga saga = new Saga(new Saga.Options.Builder().setParallelCompensation(false).build());
    try {
      FenceResult fence = fenceSource(plan, saga);
      Drain drain = startDrain(plan, fence);
      waitForTargetToCatchUp(plan);
      finishDrain(plan, drain);
      boolean storeMoves = SessionStoreHandover.appliesTo(plan);
      boolean storeInSync = storeMoves && sessions.waitForSync(plan);
      checkNotCancelled();
      if (storeMoves) {
        sessions.promote(plan, saga, storeInSync);
      }
    } catch (FailoverAbort abort) {
      return rollBack(saga, abort.reason, abort.getMessage());
    } catch (CanceledFailure cancelled) {
      return rollBack(saga, Reason.Cancelled, "workflow cancelled: " + cancelled.getMessage());
    }
    String notRecorded = recordTargetActive(plan);
    if (notRecorded != null) {
      // Nothing is writable yet, so this is still before the point of no return: the source is
      // named active again first, so that no sidecar fences it when it is unfenced.
      saga.addCompensation(() -> k8s.recordFailover(group, plan.source().name(), failoverRecordedAt, null));
      return rollBack(saga, Reason.ExecuteFailed, notRecorded);
    }
    PromoteResult promoted = promoteTarget(plan, saga);
    if (promoted == null) {
      return progress.toStatus();
    }
    flipRouting(plan);
    recordFailover(plan);
    return succeed(plan);
  }

  // --- Validating (and Deferred) -------------------------------------------------------------

  /** Returns the plan, or null after finishing the workflow as Failed. */
  private Plan validate(GroupSnapshot snapshot) {
    while (true) {
      enter(Phase.Validating, "validating request " + annotation);
      var pre = PlannedFailoverPlanner.precheck(snapshot, annotation);
      if (pre instanceof Reject reject) {
        reject(reject);
        return null;
      }
      CheckedRequest request = (CheckedRequest) pre;
      progress.target = request.annotation().targetSite();
      progress.dragonflyEnabled = request.config().dragonflyEnabled();
      Map<String, ServerState> states = inspectAll(request);
      Decision decision = PlannedFailoverPlanner.decide(request, snapshot.status(), states, now());
      if (decision instanceof Proceed proceed) {
        progress.sourcePrimary = proceed.plan().source().name();
        progress.retryAfter = null;
        return proceed.plan();
      }
      if (decision instanceof Reject reject) {
        reject(reject);
        return null;
      }
      Defer defer = (Defer) decision;
      if (!waitOutCooldown(defer)) {
        finishFailed(Reason.Cancelled, "cancelled while deferred: " + cancelReason, "PlannedFailoverRejected");
        return null;
      }
      snapshot = k8s.loadGroup(group);
      if (!isStillRequested(snapshot)) {
        finishFailed(Reason.Cancelled, "annotation removed while deferred", "PlannedFailoverRejected");
        return null;
      }
    }
  }

  /** Inspects every site at once: a slow site costs its own timeout, not the sum of all. */
  private Map<String, ServerState> inspectAll(CheckedRequest request) {
    Map<String, Promise<ServerState>> pending = new LinkedHashMap<>();
    for (SiteSpec site : request.config().sites()) {
      pending.put(site.name(), Async.function(quickMysql::inspect, target(request.config().credentialsSecret(), site)));
    }
    Map<String, ServerState> states = new LinkedHashMap<>();
    pending.forEach((name, promise) -> {
      try {
        states.put(name, promise.get());
      } catch (ActivityFailure e) {
        states.put(name, ServerState.unreachable(name, rootMessage(e)));
      }
    });
    return states;
  }

  /** Waits on a durable timer for the cooldown to end; false when cancelled meanwhile. */
  private boolean waitOutCooldown(Defer defer) {
    progress.retryAfter = defer.retryAfter();
    progress.reason = Reason.CooldownActive;
    enter(Phase.Deferred, defer.message());
    publisher.event("Normal", "PlannedFailoverDeferred", defer.message());
    // The resource must say Deferred, with retryAfter, before the workflow sleeps for minutes.
    publisher.flush();
    Duration wait = Duration.between(now(), defer.retryAfter());
    Workflow.await(wait.isNegative() ? Duration.ZERO : wait, () -> cancelRequested);
    progress.reason = null;
    return !cancelRequested;
  }

  private void reject(Reject reject) {
    if (reject.target() != null) {
      progress.target = reject.target();
    }
    String eventReason = reject.reason() == Reason.AlreadyActive ? "PlannedFailoverSkipped" : "PlannedFailoverRejected";
    finishFailed(reject.reason(), reject.message(), eventReason);
  }

  // --- Draining ------------------------------------------------------------------------------

  /** Fences the source; the compensation is registered first, so a half-done fence is undone too. */
  private FenceResult fenceSource(Plan plan, Saga saga) {
    enter(Phase.Draining, "fencing " + plan.source().name());
    MysqlTarget source = target(plan, plan.source());
    saga.addCompensation(this::restoreSource, plan);
    FenceResult fence;
    try {
      fence = mysql.fence(source);
    } catch (ActivityFailure e) {
      throw new FailoverAbort(Reason.SourceCrashed, "could not fence source " + plan.source().name() + ": "
          + rootMessage(e));
    }
    progress.sourceGtidAtFence = fence.gtidExecuted();
    publisher.status(progress.toStatus());
    publisher.event("Normal", "PlannedFailoverDraining", "source " + plan.source().name()
        + " fenced at " + fence.gtidExecuted() + "; draining " + fence.appConnections() + " sessions");
    return fence;
  }

  /**
   * Sheds the source from the primary Service and starts killing its sessions, bounded by
   * drainTimeout. The drain runs beside the lag wait rather than before it: the fence already
   * stops every session from committing, so waiting for an idle source before checking the target
   * would only lengthen the time writes are refused. It is never cancelled (cancelling an activity
   * that is completing at that instant wedges Temporal's test server): the activity stops by
   * itself once the source is idle, writable again (a rollback) or replicating (it rejoined).
   */
  private Drain startDrain(Plan plan, FenceResult fence) {
    Promise<Void> unlabel = Async.procedure(k8s::setSiteRole, group, plan.source(), REPLICA);
    if (fence.appConnections() == 0) {
      return new Drain(unlabel, null);
    }
    Instant deadline = now().plus(plan.config().drainTimeout());
    MysqlActivities waiting = ActivityStubs.mysqlWait(plan.config().drainTimeout());
    return new Drain(unlabel, Async.function(waiting::killAppConnections, target(plan, plan.source()), deadline));
  }

  /** The drain running beside the lag wait. */
  private record Drain(Promise<Void> unlabel, Promise<MysqlActivities.DrainResult> kills) {}

  /** Notes how the drain went; only the label removal must have landed before promotion. */
  private void finishDrain(Plan plan, Drain drain) {
    if (drain.kills() != null) {
      if (!drain.kills().isCompleted()) {
        progress.message = "sessions still reconnecting to " + plan.source().name()
            + " when the target caught up; they are fenced and fail on their next write";
      } else {
        try {
          var drained = drain.kills().get();
          if (drained.remaining() > 0) {
            progress.message = drained.remaining() + " sessions still connected after drainTimeout; "
                + "they are fenced and will fail on their next write";
          }
        } catch (ActivityFailure e) {
          // The target already holds every transaction of the fenced source, so losing the
          // source now costs nothing: promotion goes on.
          progress.message = "draining " + plan.source().name() + " failed: " + rootMessage(e);
        }
      }
    }
    try {
      drain.unlabel().get();
    } catch (ActivityFailure e) {
      throw new FailoverAbort(Reason.ExecuteFailed, "could not remove the primary role label from "
          + plan.source().name() + ": " + rootMessage(e));
    }
  }

  // --- WaitingForLag ---------------------------------------------------------------------------

  private void waitForTargetToCatchUp(Plan plan) {
    enter(Phase.WaitingForLag, "waiting for " + plan.target().name() + " to execute " + progress.sourceGtidAtFence);
    Instant started = now();
    Instant deadline = started.plus(plan.maxLagWait());
    MysqlActivities waiting = ActivityStubs.mysqlWait(plan.maxLagWait());
    try {
      cancellable(() -> Async.function(waiting::waitForGtidSet, target(plan, plan.target()),
          progress.sourceGtidAtFence, deadline));
    } catch (ActivityFailure e) {
      boolean timeout = "LagTimeout".equals(failureType(e));
      throw new FailoverAbort(timeout ? Reason.LagTimeout : Reason.TargetUnhealthy, "target "
          + plan.target().name() + (timeout ? " did not catch up within maxLagWait "
          + Durations.format(plan.maxLagWait()) : " failed while catching up") + ": " + rootMessage(e));
    }
    metrics.lagWait(plan.target().name(), Duration.between(started, now()));
    publisher.event("Normal", "PlannedFailoverLagOK", plan.target().name() + " holds every transaction of "
        + plan.source().name() + " (" + progress.sourceGtidAtFence + ")");
  }

  private void checkNotCancelled() {
    if (cancelRequested) {
      throw new FailoverAbort(Reason.Cancelled, "cancelled before promotion: " + cancelReason);
    }
  }

  // --- Promoting: the point of no return ----------------------------------------------------

  /**
   * Names the target active before it becomes writable: every sidecar fences a writable server
   * whose status names another site, so naming it afterwards would invite its own sidecar to
   * fence the new primary. This also starts the anti-flap cooldown. Returns why it failed when
   * the API server refused the write for the whole retry budget, else null (the workflow then
   * rolls back; it used to fail here with the source fenced and unrouted and the status stuck in
   * Promoting).
   */
  private String recordTargetActive(Plan plan) {
    enter(Phase.Promoting, "promoting " + plan.target().name());
    failoverRecordedAt = now().toString();
    try {
      k8s.recordFailover(group, plan.target().name(), failoverRecordedAt, null);
      return null;
    } catch (ActivityFailure e) {
      return "could not record " + plan.target().name() + " as the active site before promoting it: "
          + rootMessage(e);
    }
  }

  /**
   * Returns the promotion result, or null after finishing as Failed/ExecuteFailed. Connection
   * failures are retried for about 30 s. A promotion that still fails is rolled back once the
   * target is fenced again, which proves it takes no writes whatever the failed attempts did:
   * leaving the source fenced would leave the group without a writable primary until someone acts.
   * Only when that cannot be proven does the workflow stop for manual recovery.
   */
  private PromoteResult promoteTarget(Plan plan, Saga saga) {
    String name = plan.target().name();
    try {
      PromoteResult result = persistentMysql.promote(target(plan, plan.target()),
          now().plus(plan.config().connectionDrainTimeout()));
      progress.targetGtidAtPromotion = result.gtidExecuted();
      return result;
    } catch (ActivityFailure e) {
      String failed = "promotion of " + name + " failed: " + rootMessage(e);
      if (e.getCause() instanceof TimeoutFailure) {
        // The attempt that timed out may still be running on a worker and could clear read_only
        // after any fence the workflow applied now, so no fence can prove the target stays
        // read-only and unfencing the source could leave two writable servers.
        stopForManualRecovery(plan, failed + "; the last attempt timed out and may still make " + name + " writable");
        return null;
      }
      String notFenced = fenceTarget(plan);
      if (notFenced != null) {
        stopForManualRecovery(plan, failed + "; " + name + " could not be fenced either (" + notFenced
            + "), so it cannot be proven read-only");
        return null;
      }
      rollBackPromotion(plan, saga, failed + "; " + name + " fenced again (read-only)");
      return null;
    }
  }

  /** Makes the target read-only again; returns why that failed, else null. */
  private String fenceTarget(Plan plan) {
    try {
      persistentMysql.fence(target(plan, plan.target()));
      return null;
    } catch (ActivityFailure e) {
      return rootMessage(e);
    }
  }

  /**
   * The target is read-only, so the source can take writes again without a second writable
   * server: the source is named active first (so that no sidecar fences it once unfenced), then
   * the saga unfences it and labels it primary, as for a failure before promotion. The target is
   * then pointed back at the source, best effort: it stays read-only either way.
   */
  private void rollBackPromotion(Plan plan, Saga saga, String message) {
    String source = plan.source().name();
    saga.addCompensation(() -> k8s.recordFailover(group, source, failoverRecordedAt, null));
    String undoFailed = compensate(saga);
    if (undoFailed != null) {
      finishFailed(Reason.ExecuteFailed, message + "; ROLLBACK FAILED (" + undoFailed + "): the source may still "
          + "be fenced, manual recovery required", "PlannedFailoverFailed");
      return;
    }
    String outcome = message + "; rolled back: " + source + " is named active again and writable again, labelled "
        + "primary, no DNS flip";
    try {
      quickMysql.replicateFrom(target(plan, plan.target()), target(plan, plan.source()));
    } catch (ActivityFailure e) {
      String notRejoined = plan.target().name() + " not re-pointed at " + source + "; it stays read-only: "
          + rootMessage(e);
      publisher.event("Warning", "RejoinFailed", notRejoined);
      outcome += "; " + notRejoined;
    }
    finishFailed(Reason.ExecuteFailed, outcome, "PlannedFailoverFailed");
  }

  private void stopForManualRecovery(Plan plan, String message) {
    finishFailed(Reason.ExecuteFailed, message + "; the source stays fenced and " + plan.target().name()
        + " is recorded as the active site: manual recovery required", "PlannedFailoverFailed");
  }

  /**
   * Routes writes to the new primary first (the Service), then DNS, taints and the old primary's
   * replication side by side. None of these can undo the promotion, so each failure is a warning.
   */
  private void flipRouting(Plan plan) {
    try {
      k8s.setSiteRole(group, plan.target(), PRIMARY);
    } catch (ActivityFailure e) {
      warn("RoutingUpdateFailed", "could not label " + plan.target().name() + " primary: " + rootMessage(e));
    }
    Promise<Void> dns = Async.procedure(k8s::updateDns, group, plan.config().dnsHostname(),
        plan.target().lbIP(), plan.config().dnsTtl());
    Promise<Void> taints = Async.procedure(k8s::applyTaints, group, plan.config().sites(), plan.target().name());
    Promise<Void> rejoin = Async.procedure(quickMysql::replicateFrom, target(plan, plan.source()),
        target(plan, plan.target()));
    settle(dns, Reason.DnsFlipFailed.name(), "DNS flip to " + plan.target().lbIP() + " failed");
    settle(taints, "TaintUpdateFailed", "node taints not updated");
    settle(rejoin, "RejoinFailed", "old primary " + plan.source().name() + " not re-pointed at "
        + plan.target().name() + "; it stays read-only");
  }

  // --- Resuming ------------------------------------------------------------------------------

  private void recordFailover(Plan plan) {
    enter(Phase.Resuming, "recording the failover to " + plan.target().name());
    try {
      k8s.recordFailover(group, plan.target().name(), failoverRecordedAt, progress.targetGtidAtPromotion);
    } catch (ActivityFailure e) {
      // The target is writable, routed and already named active: only the promotion GTID is
      // missing from the status, which is no reason to fail a failover that happened.
      warn("StatusUpdateFailed", "could not record the promotion point " + progress.targetGtidAtPromotion + ": "
          + rootMessage(e));
    }
  }

  private PlannedFailoverStatus succeed(Plan plan) {
    progress.transactionsLost = lost(progress.sourceGtidAtFence, progress.targetGtidAtPromotion);
    String message = "promoted " + plan.target().name() + ", " + progress.transactionsLost + " transactions lost"
        + (progress.message == null ? "" : "; " + progress.message);
    progress.phase = Phase.Succeeded;
    progress.completionTime = now();
    progress.message = message;
    publisher.status(progress.toStatus());
    publisher.event("Normal", "PlannedFailoverCompleted", message);
    metrics.finished(plan.target().name(), "success", Duration.between(progress.startTime, progress.completionTime));
    return finish();
  }

  // --- Failure and rollback ------------------------------------------------------------------

  private PlannedFailoverStatus rollBack(Saga saga, Reason reason, String message) {
    String undoFailed = compensate(saga);
    String outcome = undoFailed == null ? "; rolled back: source unfenced and labelled primary, no DNS flip"
        : "; ROLLBACK FAILED (" + undoFailed + "): the source may still be fenced, manual recovery required";
    finishFailed(reason, message + outcome, "PlannedFailoverFailed");
    return progress.toStatus();
  }

  /** Runs the compensations even after a cancel; returns why one failed, else null. */
  private String compensate(Saga saga) {
    try {
      Workflow.newDetachedCancellationScope(saga::compensate).run();
      return null;
    } catch (Saga.CompensationException | TemporalFailure e) {
      return rootMessage(e);
    }
  }

  private void restoreSource(Plan plan) {
    mysql.unfence(target(plan, plan.source()));
    k8s.setSiteRole(group, plan.source(), PRIMARY);
  }

  private void finishFailed(Reason reason, String message, String eventReason) {
    progress.phase = Phase.Failed;
    progress.reason = reason;
    progress.message = message;
    progress.completionTime = now();
    publisher.status(progress.toStatus());
    publisher.event("Warning", eventReason, reason + ": " + message);
    String result = switch (reason) {
      case LagTimeout -> "failed_timeout";
      case InvalidAnnotation, UnknownSite, AlreadyActive, TargetUnhealthy, NoActivePrimary, CooldownActive,
          ConcurrentOperation, InvalidSpec -> "rejected";
      default -> "failed_other";
    };
    metrics.finished(progress.target, result, Duration.between(progress.startTime, progress.completionTime));
    finish();
  }

  /** Clears the annotation (unless the user changed it meanwhile) and waits for every write. */
  private PlannedFailoverStatus finish() {
    publisher.flush();
    try {
      k8s.clearAnnotation(group, annotation);
    } catch (ActivityFailure e) {
      log.warn("could not clear the planned-failover annotation of {}: {}", group, rootMessage(e));
    }
    return progress.toStatus();
  }

  // --- Signals and queries ---------------------------------------------------------------------

  @Override
  public void cancel(String reason) {
    if (progress.phase.isPastPointOfNoReturn()) {
      log.info("cancel of {} ignored in phase {}: the target may already be writable", group, progress.phase);
      return;
    }
    if (progress.phase == Phase.PromotingDragonfly) {
      // Moving the store back would be a second failover of it; the phase is short and MySQL's
      // promotion follows at once.
      log.info("cancel of {} ignored in phase {}: the session store is changing masters", group, progress.phase);
      return;
    }
    cancelRequested = true;
    cancelReason = reason == null || reason.isBlank() ? "cancel signal" : reason;
  }

  @Override
  public PlannedFailoverStatus status() {
    return progress.toStatus();
  }

  // --- helpers -------------------------------------------------------------------------------

  private void enter(Phase phase, String message) {
    progress.phase = phase;
    log.info("{} planned failover: {} ({})", group, phase, message);
    publisher.status(progress.toStatus());
    SearchAttributes.phase(phase, progress.target);
  }

  private void warn(String reason, String message) {
    progress.message = progress.message == null ? message : progress.message + "; " + message;
    publisher.event("Warning", reason, message);
  }

  private void settle(Promise<Void> step, String reason, String what) {
    try {
      step.get();
    } catch (ActivityFailure e) {
      warn(reason, what + ": " + rootMessage(e));
    }
  }

  /** Runs an activity in a scope that the cancel signal cancels, so a long wait stops at once. */
  private <T> T cancellable(Functions.Func<Promise<T>> call) {
    List<Promise<T>> holder = new java.util.ArrayList<>(1);
    CancellationScope scope = Workflow.newCancellationScope(() -> holder.add(call.apply()));
    scope.run();
    Promise<T> promise = holder.get(0);
    Workflow.await(() -> promise.isCompleted() || cancelRequested);
    if (!promise.isCompleted()) {
      scope.cancel(cancelReason);
      throw new FailoverAbort(Reason.Cancelled, "cancelled in " + progress.phase + ": " + cancelReason);
    }
    return promise.get();
  }

  private boolean isStillRequested(GroupSnapshot snapshot) {
    return annotation != null && annotation.equals(snapshot.annotation());
  }

  private MysqlTarget target(Plan plan, SiteSpec site) {
    return target(plan.config().credentialsSecret(), site);
  }

  private MysqlTarget target(String secret, SiteSpec site) {
    return new MysqlTarget(group, site.name(), site.mysql().host(),
        io.shipstream.failover.model.GroupConfig.mysqlPort(site), secret);
  }

  private WorkflowRef workflowRef() {
    var info = Workflow.getInfo();
    return new WorkflowRef("PlannedFailover", info.getWorkflowId(), info.getRunId());
  }

  private static long lost(String fenced, String promoted) {
    return GtidSet.parse(fenced).subtract(GtidSet.parse(promoted)).count();
  }

  private static Instant now() {
    return Instant.ofEpochMilli(Workflow.currentTimeMillis());
  }

  static String failureType(Throwable e) {
    return Failures.type(e);
  }

  static String rootMessage(Throwable e) {
    return Failures.rootMessage(e);
  }
}
