package io.shipstream.failover.workflows.planned;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.WorkflowRef;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.workflows.PlannedFailoverWorkflow;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.shipstream.failover.workflows.activities.KubernetesActivities.GroupSnapshot;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.shipstream.failover.workflows.activities.MysqlActivities.PromoteResult;
import io.shipstream.failover.workflows.common.ActivityStubs;
import io.shipstream.failover.workflows.common.StatusPublisher;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Plan;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.Saga;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import org.slf4j.Logger;

/**
 * The planned-failover runbook. {@link #run} and {@link #execute} read as the procedure an
 * operator would follow by hand; the steps live beside it, all sharing one {@link PlannedRun}:
 * {@link RequestValidation} (Validating, Deferred), {@link SourceDrain} (Draining, WaitingForLag),
 * {@link SessionStoreHandover} (the session store), {@link TargetPromotion} (Promoting and the
 * rollbacks) and {@link AfterPromotion} (routing, Resuming, re-pointing the other replicas).
 * Everything before the promotion can be undone and is undone on any failure or cancel; a
 * promotion that fails is undone only once the target is fenced again, and after a promotion the
 * workflow only goes forward.
 */
public class PlannedFailoverWorkflowImpl implements PlannedFailoverWorkflow {
  static final String PRIMARY = "primary";
  static final String REPLICA = "replica";
  private static final Logger log = Workflow.getLogger(PlannedFailoverWorkflowImpl.class);

  // The change ids of the runbook's versioned steps are kept here, in SessionStoreHandover
  // (CHANGE_ID) and in AfterPromotion (REPOINT_CHANGE_ID), because a stored history records
  // them by these names.
  /**
   * The change id of the runbook whose short, idempotent calls are local activities.
   * Failovers started by a worker without it replay with ordinary activities throughout.
   */
  static final String LOCAL_CALLS_CHANGE_ID = "local-short-calls";

  private final PlannedFailoverProgress progress = new PlannedFailoverProgress();
  private final FailoverMetrics metrics = new FailoverMetrics();
  // Set by the cancel signal, which may arrive before the run below is built.
  private final CancelRequest cancel = new CancelRequest();
  private GroupRef group;
  private PlannedRun run;
  private SessionStoreHandover sessions;

  @Override
  public PlannedFailoverStatus run(Request request) {
    group = request.group();
    progress.startTime = PlannedRun.now();
    boolean local = Workflow.getVersion(LOCAL_CALLS_CHANGE_ID, Workflow.DEFAULT_VERSION, 1) >= 1;
    KubernetesActivities k8s = local ? ActivityStubs.kubernetesLocal() : ActivityStubs.kubernetes();
    StatusPublisher publisher = new StatusPublisher(k8s, group, workflowRef(), StatusPublisher.coalescing());
    run = new PlannedRun(group, request.annotation(), progress, publisher, k8s, quickMysql(local), metrics, cancel);
    sessions = new SessionStoreHandover(group, k8s, progress, publisher, metrics, run::enter);

    GroupSnapshot snapshot = k8s.loadGroup(group);
    if (!run.isStillRequested(snapshot)) {
      // A re-delivered informer event for a request that was already handled, or one the user
      // has since changed: touching the status would overwrite the real outcome.
      progress.message = "request superseded: the annotation no longer holds '" + run.annotation + "'";
      return progress.toStatus();
    }
    run.enter(Phase.Pending, "annotation observed: " + run.annotation);
    publisher.event("Normal", "PlannedFailoverStarted", "planned failover requested: " + run.annotation);
    Plan plan = new RequestValidation(run).validate(snapshot);
    if (plan == null) {
      return progress.toStatus();
    }
    return execute(plan);
  }

  /**
   * Every Kubernetes call (status, Events, labels, DNS, taints, the failover record, loading the
   * group), the MySQL inspection, the old primary's rejoin and the other replicas' re-pointing
   * become local activities: a workflow task then carries several of them instead of costing a
   * server round trip each. Each is idempotent (a write of the same value, a read, a re-pointing
   * that keeps a replica already pointing at the target), so the re-run after a worker dies mid-task does no harm. The fence, the
   * drain, the lag wait, the promotion and the unfence stay ordinary activities, recorded before
   * the workflow goes on. The order of side effects is the runbook's as before: a local call
   * completes before the step after it is scheduled.
   */
  private static MysqlActivities quickMysql(boolean local) {
    return local ? ActivityStubs.mysqlLocal() : ActivityStubs.mysql();
  }

  private PlannedFailoverStatus execute(Plan plan) {
    if (cancel.requested) {
      run.finishFailed(Reason.Cancelled, "cancelled before the fence: " + cancel.reason, "PlannedFailoverRejected");
      return progress.toStatus();
    }
    Saga saga = new Saga(new Saga.Options.Builder().setParallelCompensation(false).build());
    TargetPromotion promotion = new TargetPromotion(run);
    try {
      new SourceDrain(run).fenceAndDrain(plan, saga);
      boolean storeMoves = SessionStoreHandover.appliesTo(plan);
      boolean storeInSync = storeMoves && sessions.waitForSync(plan);
      run.checkNotCancelled();
      if (storeMoves) {
        sessions.promote(plan, saga, storeInSync);
      }
    } catch (FailoverAbort abort) {
      return promotion.rollBack(saga, abort.reason, abort.getMessage());
    } catch (CanceledFailure cancelled) {
      return promotion.rollBack(saga, Reason.Cancelled, "workflow cancelled: " + cancelled.getMessage());
    }
    String notRecorded = promotion.recordTargetActive(plan);
    if (notRecorded != null) {
      return promotion.rollBackUnrecorded(plan, saga, notRecorded);
    }
    PromoteResult promoted = promotion.promote(plan, saga);
    if (promoted == null) {
      return progress.toStatus();
    }
    AfterPromotion afterPromotion = new AfterPromotion(run, promotion);
    afterPromotion.flipRouting(plan);
    afterPromotion.recordFailover(plan);
    afterPromotion.repointOtherReplicas(plan);
    return succeed(plan);
  }

  private PlannedFailoverStatus succeed(Plan plan) {
    progress.transactionsLost = lost(progress.sourceGtidAtFence, progress.targetGtidAtPromotion);
    String message = "promoted " + plan.target().name() + ", " + progress.transactionsLost + " transactions lost"
        + (progress.message == null ? "" : "; " + progress.message);
    progress.phase = Phase.Succeeded;
    progress.completionTime = PlannedRun.now();
    progress.message = message;
    run.publisher.status(progress.toStatus());
    run.publisher.event("Normal", "PlannedFailoverCompleted", message);
    metrics.finished(plan.target().name(), "success", Duration.between(progress.startTime, progress.completionTime));
    return run.finish();
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
    cancel.request(reason);
  }

  @Override
  public PlannedFailoverStatus status() {
    return progress.toStatus();
  }

  private WorkflowRef workflowRef() {
    var info = Workflow.getInfo();
    return new WorkflowRef("PlannedFailover", info.getWorkflowId(), info.getRunId());
  }

  private static long lost(String fenced, String promoted) {
    return GtidSet.parse(fenced).subtract(GtidSet.parse(promoted)).count();
  }
}
