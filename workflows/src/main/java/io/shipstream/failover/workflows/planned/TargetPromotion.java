package io.shipstream.failover.workflows.planned;

import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.topology.SemiSyncPlan;
import io.shipstream.failover.workflows.activities.MysqlActivities.PromoteResult;
import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.shipstream.failover.workflows.common.ActivityStubs;
import io.shipstream.failover.workflows.common.FailoverAbort;
import io.shipstream.failover.workflows.common.FailoverRun;
import io.shipstream.failover.workflows.common.Failures;
import io.shipstream.failover.workflows.common.PromotionOutcome;
import io.shipstream.failover.workflows.common.PromotionOutcome.Promoted;
import io.shipstream.failover.workflows.common.PromotionOutcome.Reversible;
import io.shipstream.failover.workflows.common.PromotionOutcome.Stuck;
import io.shipstream.failover.workflows.common.Rollback;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Plan;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.TimeoutFailure;
import java.time.Instant;

/**
 * The Promoting step of the planned runbook, the point of no return: the target is named active,
 * then made writable. A promotion that fails is reversible only once the target is fenced again,
 * which proves it takes no writes whatever the failed attempts did. Workflow code: its I/O goes
 * through activities.
 */
final class TargetPromotion {
  private final FailoverRun run;

  TargetPromotion(FailoverRun run) {
    this.run = run;
  }

  /**
   * Names the target active before it becomes writable ({@link FailoverRun#nameTargetActive}).
   * Nothing is writable yet, so a failure is still before the point of no return: the failover
   * aborts, and the rollback names the source active again first (registered here, before the
   * write), so that no sidecar fences the source when it is unfenced.
   */
  void nameTargetActive(Plan plan, Rollback rollback) {
    rollback.register(() -> run.nameActiveAgain(plan.source()));
    try {
      run.nameTargetActive(plan.target());
    } catch (ActivityFailure e) {
      throw new FailoverAbort(Reason.ExecuteFailed, "could not record " + plan.target().name()
          + " as the active site before promoting it: " + Failures.rootMessage(e));
    }
  }

  /**
   * Makes the target writable. Connection failures are retried for about 30 s. A promotion that
   * still fails is {@link Reversible} once the target is fenced again: leaving the source fenced
   * would leave the group without a writable primary until someone acts. Only when that cannot be
   * proven is it {@link Stuck}, for manual recovery.
   */
  PromotionOutcome promote(Plan plan) {
    String name = plan.target().name();
    String sentTo = run.connectionsQueue;
    try {
      Instant relayDrainDeadline = FailoverRun.now().plus(plan.config().connectionDrainTimeout());
      PromoteResult result = run.onConnections.call(queue -> ActivityStubs.mysqlPersistent("promote " + name
          + " (writable)", queue).promote(server(plan), relayDrainDeadline,
              SemiSyncPlan.atPromotion(plan.config(), name),
              plan.targetReplicatesFromSource()));
      run.progress.targetGtidAtPromotion = result.gtidExecuted();
      run.progress.targetWritableAt = result.writableAt();
      return new Promoted(result.gtidExecuted());
    } catch (ActivityFailure e) {
      String failed = "promotion of " + name + " failed: " + Failures.rootMessage(e);
      if (e.getCause() instanceof TimeoutFailure) {
        // The attempt that timed out may still be running on a worker and could clear read_only
        // after any fence the workflow applied now, so no fence can prove the target stays
        // read-only and unfencing the source could leave two writable servers.
        return new Stuck(failed + "; the last attempt timed out and may still make " + name + " writable");
      }
      if (sentTo != null && run.connectionsQueue == null && run.onConnections.leftAnAttemptRunning()) {
        // The promotion went to the shared queue after its attempt on the worker that held the
        // connections timed out: that attempt may still be running.
        return new Stuck(failed + "; its first attempt timed out on the worker that held the connections and may "
            + "still make " + name + " writable");
      }
      try {
        ActivityStubs.mysqlPersistent("fence " + name + " again: its promotion failed").fence(server(plan));
      } catch (ActivityFailure notFenced) {
        return new Stuck(failed + "; " + name + " could not be fenced either (" + Failures.rootMessage(notFenced)
            + "), so it cannot be proven read-only");
      }
      return new Reversible(failed + "; " + name + " fenced again (read-only)");
    }
  }

  private MysqlTarget server(Plan plan) {
    return MysqlTarget.of(run.group, plan.config(), plan.target());
  }
}
