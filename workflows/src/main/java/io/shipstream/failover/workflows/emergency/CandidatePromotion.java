package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.model.Reason;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.shipstream.failover.workflows.activities.MysqlActivities.PromoteResult;
import io.shipstream.failover.workflows.common.ActivityStubs;
import io.shipstream.failover.workflows.common.Failures;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.Set;

/**
 * The Promoting step of the emergency runbook, the point of no return: the candidate is named
 * active, the old primary's sidecar is asked for proof that it takes no writes, the candidate is
 * caught up from a fresher survivor and then made writable, and the survivors start following
 * it. Workflow code: its I/O goes through activities, its waits are activities and timers.
 */
final class CandidatePromotion {
  private final EmergencyRun run;
  private final MysqlActivities mysql;
  private final Set<String> divergentSites;
  private String failoverRecordedAt;
  private Survivors survivors;

  /** @param divergentSites the sites the watcher holds back for divergent transactions */
  CandidatePromotion(EmergencyRun run, MysqlActivities mysql, Set<String> divergentSites) {
    this.run = run;
    this.mysql = mysql;
    this.divergentSites = divergentSites;
  }

  /**
   * Null once the candidate is a writable primary; otherwise why it is not (ExecuteFailed), for
   * the runbook to finish as Failed with. Nothing is undone either way: the candidate is already
   * named active.
   */
  EmergencyAbort promote(EmergencyPlan plan) {
    EmergencyFailoverProgress progress = run.progress;
    run.enter(EmergencyPhase.Promoting, "promoting " + plan.target().name());
    // The candidate is named active before it becomes writable: every sidecar fences a writable
    // server whose status names another site, so naming it afterwards would invite its own
    // sidecar to fence the new primary. This also starts the anti-flap cooldown.
    failoverRecordedAt = EmergencyRun.now().toString();
    try {
      run.k8s.recordFailover(run.group, plan.target().name(), failoverRecordedAt, null);
    } catch (ActivityFailure e) {
      return new EmergencyAbort(Reason.ExecuteFailed, "could not name " + plan.target().name() + " the active "
          + "site, so it was not made writable: " + Failures.rootMessage(e) + "; " + plan.failed().name()
          + " stays fenced and unlabelled: manual recovery required");
    }
    // promote applies every relay-log event already received, even with the SQL thread stopped,
    // bounded by connectionDrainTimeout, and heartbeats meanwhile. Before it, the candidate's set
    // is made final and compared with the other survivors', which may hold more.
    // The old primary may be alive and only cut off from the control plane: the sidecar is asked
    // now, so its answer overlaps the drain and catch-up below.
    OldPrimaryGate guard = null;
    if (Workflow.getVersion(EmergencyFailoverWorkflowImpl.OLD_PRIMARY_GUARD, Workflow.DEFAULT_VERSION, 1)
        >= 1) {
      guard = OldPrimaryGate.start(plan, progress.oldPrimaryFenced, EmergencyRun.now(), run::warn, run::inform);
    }
    Duration relayDrain = plan.config().connectionDrainTimeout();
    if (Workflow.getVersion(EmergencyFailoverWorkflowImpl.SURVIVOR_STEPS, Workflow.DEFAULT_VERSION, 1) >= 1) {
      survivors = new Survivors(plan, mysql, run::warn, run::inform, divergentSites);
      survivors.catchUpCandidate(relayDrain);
    }
    if (guard != null) {
      guard.await();
    }
    try {
      PromoteResult promoted = ActivityStubs.mysqlWait(relayDrain)
          .promote(plan.targetServer(), EmergencyRun.now().plus(relayDrain));
      progress.targetGtidAtPromotion = promoted.gtidExecuted();
      if (survivors != null) {
        survivors.startRepointing();
      }
      return null;
    } catch (ActivityFailure e) {
      return new EmergencyAbort(Reason.ExecuteFailed, "promotion of " + plan.target().name() + " failed: "
          + Failures.rootMessage(e) + "; " + plan.target().name() + " is recorded as the active site: "
          + "manual recovery required");
    }
  }

  /** When the candidate was named active: the failover's record keeps this time. */
  String failoverRecordedAt() {
    return failoverRecordedAt;
  }

  /** The other survivors, or null on a failover that replays without them. */
  Survivors survivors() {
    return survivors;
  }
}
