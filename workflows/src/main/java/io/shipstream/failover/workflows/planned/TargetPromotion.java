package io.shipstream.failover.workflows.planned;

import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.shipstream.failover.workflows.activities.MysqlActivities.PromoteResult;
import io.shipstream.failover.workflows.common.ActivityStubs;
import io.shipstream.failover.workflows.common.Failures;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Plan;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.TemporalFailure;
import io.temporal.failure.TimeoutFailure;
import io.temporal.workflow.Saga;
import io.temporal.workflow.Workflow;

/**
 * The Promoting step of the planned runbook, the point of no return, and the rollbacks around it:
 * the runbook's {@link Saga} that undoes everything before the promotion, and the undo of a
 * promotion that failed, allowed only once the target is proven read-only again. Workflow code:
 * its I/O goes through activities.
 */
final class TargetPromotion {
  private final PlannedRun run;
  private final MysqlActivities persistentMysql = ActivityStubs.mysqlPersistent();
  private String failoverRecordedAt;

  TargetPromotion(PlannedRun run) {
    this.run = run;
  }

  /**
   * Names the target active before it becomes writable: every sidecar fences a writable server
   * whose status names another site, so naming it afterwards would invite its own sidecar to
   * fence the new primary. This also starts the anti-flap cooldown. Returns why it failed when
   * the API server refused the write for the whole retry budget, else null (the workflow then
   * rolls back; it used to fail here with the source fenced and unrouted and the status stuck in
   * Promoting).
   */
  String recordTargetActive(Plan plan) {
    run.enter(Phase.Promoting, "promoting " + plan.target().name());
    failoverRecordedAt = PlannedRun.now().toString();
    try {
      run.k8s.recordFailover(run.group, plan.target().name(), failoverRecordedAt, null);
      return null;
    } catch (ActivityFailure e) {
      return "could not record " + plan.target().name() + " as the active site before promoting it: "
          + Failures.rootMessage(e);
    }
  }

  /** When the target was named active: the failover's record keeps this time. */
  String failoverRecordedAt() {
    return failoverRecordedAt;
  }

  /**
   * Returns the promotion result, or null after finishing as Failed/ExecuteFailed. Connection
   * failures are retried for about 30 s. A promotion that still fails is rolled back once the
   * target is fenced again, which proves it takes no writes whatever the failed attempts did:
   * leaving the source fenced would leave the group without a writable primary until someone acts.
   * Only when that cannot be proven does the workflow stop for manual recovery.
   */
  PromoteResult promote(Plan plan, Saga saga) {
    String name = plan.target().name();
    try {
      PromoteResult result = persistentMysql.promote(run.target(plan, plan.target()),
          PlannedRun.now().plus(plan.config().connectionDrainTimeout()));
      run.progress.targetGtidAtPromotion = result.gtidExecuted();
      return result;
    } catch (ActivityFailure e) {
      String failed = "promotion of " + name + " failed: " + Failures.rootMessage(e);
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
      persistentMysql.fence(run.target(plan, plan.target()));
      return null;
    } catch (ActivityFailure e) {
      return Failures.rootMessage(e);
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
    saga.addCompensation(() -> run.k8s.recordFailover(run.group, source, failoverRecordedAt, null));
    String undoFailed = compensate(saga);
    if (undoFailed != null) {
      run.finishFailed(Reason.ExecuteFailed, message + "; ROLLBACK FAILED (" + undoFailed + "): the source may "
          + "still be fenced, manual recovery required", "PlannedFailoverFailed");
      return;
    }
    String outcome = message + "; rolled back: " + source + " is named active again and writable again, labelled "
        + "primary, no DNS flip";
    try {
      run.quickMysql.replicateFrom(run.target(plan, plan.target()), run.target(plan, plan.source()));
    } catch (ActivityFailure e) {
      String notRejoined = plan.target().name() + " not re-pointed at " + source + "; it stays read-only: "
          + Failures.rootMessage(e);
      run.publisher.event("Warning", "RejoinFailed", notRejoined);
      outcome += "; " + notRejoined;
    }
    run.finishFailed(Reason.ExecuteFailed, outcome, "PlannedFailoverFailed");
  }

  private void stopForManualRecovery(Plan plan, String message) {
    run.finishFailed(Reason.ExecuteFailed, message + "; the source stays fenced and " + plan.target().name()
        + " is recorded as the active site: manual recovery required", "PlannedFailoverFailed");
  }

  /**
   * Rolls back after the target could not be named active. Nothing is writable yet, so this is
   * still before the point of no return: the source is named active again first, so that no
   * sidecar fences it when it is unfenced.
   */
  PlannedFailoverStatus rollBackUnrecorded(Plan plan, Saga saga, String message) {
    saga.addCompensation(() -> run.k8s.recordFailover(run.group, plan.source().name(), failoverRecordedAt, null));
    return rollBack(saga, Reason.ExecuteFailed, message);
  }

  /** Undoes everything before the promotion and finishes as Failed with the reason. */
  PlannedFailoverStatus rollBack(Saga saga, Reason reason, String message) {
    String undoFailed = compensate(saga);
    String outcome = undoFailed == null ? "; rolled back: source unfenced and labelled primary, no DNS flip"
        : "; ROLLBACK FAILED (" + undoFailed + "): the source may still be fenced, manual recovery required";
    run.finishFailed(reason, message + outcome, "PlannedFailoverFailed");
    return run.progress.toStatus();
  }

  /** Runs the compensations even after a cancel; returns why one failed, else null. */
  private static String compensate(Saga saga) {
    try {
      Workflow.newDetachedCancellationScope(saga::compensate).run();
      return null;
    } catch (Saga.CompensationException | TemporalFailure e) {
      return Failures.rootMessage(e);
    }
  }
}
