package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.RoleLabel;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.shipstream.failover.workflows.activities.MysqlActivities.DrainResult;
import io.shipstream.failover.workflows.activities.MysqlActivities.FenceResult;
import io.shipstream.failover.workflows.common.ActivityStubs;
import io.shipstream.failover.workflows.common.FailoverAbort;
import io.shipstream.failover.workflows.common.FailoverProgress;
import io.shipstream.failover.workflows.common.FailoverRun;
import io.shipstream.failover.workflows.common.Failures;
import io.shipstream.failover.workflows.common.Rollback;
import io.shipstream.failover.workflows.contract.Events;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import java.time.Duration;

/**
 * The Fencing step of the emergency runbook: the failed primary is fenced as far as it can be
 * reached, beside removing its primary role label, and its application sessions are killed for a
 * bounded time. Registers its own undo with the runbook's {@link Rollback}, which runs it when a
 * step before promotion aborts. Workflow code: its I/O goes through activities.
 */
final class FailedSiteFence {
  /** How long the failed primary's sessions are killed for once it is fenced; they cannot write anyway. */
  static final Duration SESSION_KILL_BUDGET = Duration.ofSeconds(5);

  private final FailoverRun run;
  private Promise<DrainResult> sessionKill;

  FailedSiteFence(FailoverRun run) {
    this.run = run;
  }

  /**
   * Fences the failed primary as far as it can be reached, beside removing its primary role
   * label. The server is probably dead, so the fence gets a few seconds and then the failover
   * goes on without it: the failed site's sidecar fences its server if it comes back writable
   * while the status names another site active.
   */
  void fence(EmergencyPlan plan, Rollback rollback) {
    FailoverProgress progress = run.progress;
    run.enter(Phase.Fencing, "fencing " + plan.failed().name() + " (best effort)");
    rollback.register(this::restore, plan);
    MysqlActivities fencing = ActivityStubs.mysqlBestEffort("fence " + plan.failed().name() + " (best effort)");
    Promise<FenceResult> fence = Async.function(fencing::fence, plan.failedServer());
    Promise<Void> unlabel = Async.procedure(run.k8s::setSiteRole, run.group, plan.failed(),
        RoleLabel.REPLICA);
    try {
      FenceResult fenced = fence.get();
      progress.oldPrimaryFenced = true;
      progress.oldPrimaryLastKnownGtid = fenced.gtidExecuted();
      if (fenced.appConnections() > 0) {
        MysqlActivities killing = ActivityStubs.mysqlBestEffort("end the " + fenced.appConnections()
            + " sessions of " + plan.failed().name() + " fenced at " + fenced.gtidExecuted());
        sessionKill = Async.function(killing::killAppConnections, plan.failedServer(),
            FailoverRun.now().plus(SESSION_KILL_BUDGET));
      }
    } catch (ActivityFailure e) {
      progress.oldPrimaryFenced = false;
      run.warn(Events.OLD_PRIMARY_NOT_FENCED, "could not fence " + plan.failed().name() + ", gave up: "
          + Failures.rootMessage(e) + "; its sidecar fences it should it come back writable");
    }
    try {
      unlabel.get();
    } catch (ActivityFailure e) {
      throw new FailoverAbort(Reason.ExecuteFailed, "could not set the role label of " + plan.failed().name()
          + " to replica: " + Failures.rootMessage(e));
    }
    run.publishStatus();
  }

  /** The compensation of the fence: the group is left as the watcher found it. */
  private void restore(EmergencyPlan plan) {
    if (Boolean.TRUE.equals(run.progress.oldPrimaryFenced)) {
      ActivityStubs.mysqlBestEffort("unfence " + plan.failed().name() + " (rollback)").unfence(plan.failedServer());
    }
    run.k8s.setSiteRole(run.group, plan.failed(), RoleLabel.PRIMARY);
  }

  /** Waits for the failed primary's session kill, if one runs: it is bounded and only reported. */
  void settleSessionKill() {
    if (sessionKill == null) {
      return;
    }
    FailoverProgress progress = run.progress;
    try {
      DrainResult drained = sessionKill.get();
      if (drained.remaining() > 0) {
        progress.note(drained.remaining() + " sessions still connected to fenced " + progress.source);
      }
    } catch (ActivityFailure e) {
      progress.note("sessions of fenced " + progress.source + " not killed: " + Failures.rootMessage(e));
    }
    sessionKill = null;
  }
}
