package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.model.topology.SemiSyncPlan;
import io.shipstream.failover.workflows.activities.MysqlActivities.PromoteResult;
import io.shipstream.failover.workflows.common.ActivityStubs;
import io.shipstream.failover.workflows.common.FailoverRun;
import io.shipstream.failover.workflows.common.Failures;
import io.shipstream.failover.workflows.common.PromotionOutcome;
import io.shipstream.failover.workflows.common.PromotionOutcome.Promoted;
import io.shipstream.failover.workflows.common.PromotionOutcome.Stuck;
import io.temporal.failure.ActivityFailure;
import java.time.Duration;
import java.util.Set;

/**
 * The Promoting step of the emergency runbook, the point of no return: the candidate is named
 * active, the old primary's sidecar is asked for proof that it takes no writes, the candidate is
 * caught up from a fresher survivor and then made writable, and the survivors start following
 * it. Workflow code: its I/O goes through activities, its waits are activities and timers.
 */
final class CandidatePromotion {
  private final FailoverRun run;
  private final Set<String> divergentSites;
  private Survivors survivors;

  /** @param divergentSites the sites the watcher holds back for divergent transactions */
  CandidatePromotion(FailoverRun run, Set<String> divergentSites) {
    this.run = run;
    this.divergentSites = divergentSites;
  }

  /**
   * {@link Promoted} once the candidate is a writable primary; otherwise {@link Stuck}, for the
   * runbook to finish as Failed with: nothing is undone either way, since the candidate is already
   * named active (or may be, when naming it failed) and the old primary cannot be trusted with
   * writes again. Never {@link PromotionOutcome.Reversible}.
   */
  PromotionOutcome promote(EmergencyPlan plan) {
    try {
      run.nameTargetActive(plan.target());
    } catch (ActivityFailure e) {
      return new Stuck("could not name " + plan.target().name() + " the active site, so it was not made writable: "
          + Failures.rootMessage(e) + "; " + plan.failed().name() + " stays fenced and unlabelled: manual recovery"
          + " required");
    }
    // promote applies every relay-log event already received, even with the SQL thread stopped,
    // bounded by connectionDrainTimeout, and heartbeats meanwhile. Before it, the candidate's set
    // is made final and compared with the other survivors', which may hold more.
    // The old primary may be alive and only cut off from the control plane: the sidecar is asked
    // now, so its answer overlaps the drain and catch-up below.
    OldPrimaryGate guard = OldPrimaryGate.start(plan, run.k8s, run.progress.oldPrimaryFenced, FailoverRun.now(),
        run::warn, run::inform, wait -> run.progress.oldPrimaryWait = wait);
    Duration relayDrain = plan.config().connectionDrainTimeout();
    survivors = new Survivors(plan, run.quickMysql, run::warn, run::inform, divergentSites, run::show);
    survivors.catchUpCandidate(relayDrain);
    guard.await();
    try {
      PromoteResult promoted = ActivityStubs.mysqlWait(relayDrain, "promote " + plan.target().name()
              + " once its relay log is applied")
          .promote(plan.targetServer(), FailoverRun.now().plus(relayDrain),
              SemiSyncPlan.atPromotion(plan.config(), plan.target().name()), false);
      run.progress.targetGtidAtPromotion = promoted.gtidExecuted();
      run.progress.targetWritableAt = promoted.writableAt();
      survivors.startRepointing();
      return new Promoted(promoted.gtidExecuted());
    } catch (ActivityFailure e) {
      return new Stuck("promotion of " + plan.target().name() + " failed: " + Failures.rootMessage(e) + "; "
          + plan.target().name() + " is recorded as the active site: manual recovery required");
    }
  }

  /** The other survivors, once the promotion was tried. */
  Survivors survivors() {
    return survivors;
  }
}
