package io.shipstream.failover.workflows.planned;

import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.common.Failures;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Plan;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.util.List;
import java.util.Map;

/**
 * What the planned runbook does once the target is writable: routing (the Service, DNS, taints,
 * the old primary's replication), the Resuming record, and the report of the replicas it left
 * behind. None of it can undo the promotion, so each failure or finding is a warning and the
 * workflow only goes forward. Workflow code: its I/O goes through activities.
 */
final class AfterPromotion {
  /**
   * The change id of the report of the replicas left behind, which inspects the other sites after
   * the promotion: failovers started by a worker without it replay without those calls.
   */
  static final String REPLICA_REPORT_CHANGE_ID = "report-replicas-left-behind";

  private final PlannedRun run;
  private final TargetPromotion promotion;

  AfterPromotion(PlannedRun run, TargetPromotion promotion) {
    this.run = run;
    this.promotion = promotion;
  }

  /**
   * Routes writes to the new primary first (the Service), then DNS, taints and the old primary's
   * replication side by side. None of these can undo the promotion, so each failure is a warning.
   */
  void flipRouting(Plan plan) {
    try {
      run.k8s.setSiteRole(run.group, plan.target(), PlannedFailoverWorkflowImpl.PRIMARY);
    } catch (ActivityFailure e) {
      run.warn("RoutingUpdateFailed", "could not label " + plan.target().name() + " primary: "
          + Failures.rootMessage(e));
    }
    Promise<Void> dns = Async.procedure(run.k8s::updateDns, run.group, plan.config().dnsHostname(),
        plan.target().lbIP(), plan.config().dnsTtl());
    Promise<Void> taints = Async.procedure(run.k8s::applyTaints, run.group, plan.config().sites(),
        plan.target().name());
    Promise<Void> rejoin = Async.procedure(run.quickMysql::replicateFrom, run.target(plan, plan.source()),
        run.target(plan, plan.target()));
    run.settle(dns, Reason.DnsFlipFailed.name(), "DNS flip to " + plan.target().lbIP() + " failed");
    run.settle(taints, "TaintUpdateFailed", "node taints not updated");
    run.settle(rejoin, "RejoinFailed", "old primary " + plan.source().name() + " not re-pointed at "
        + plan.target().name() + "; it stays read-only");
  }

  // --- Resuming ------------------------------------------------------------------------------

  void recordFailover(Plan plan) {
    PlannedFailoverProgress progress = run.progress;
    run.enter(Phase.Resuming, "recording the failover to " + plan.target().name());
    try {
      run.k8s.recordFailover(run.group, plan.target().name(), promotion.failoverRecordedAt(),
          progress.targetGtidAtPromotion);
    } catch (ActivityFailure e) {
      // The target is writable, routed and already named active: only the promotion GTID is
      // missing from the status, which is no reason to fail a failover that happened.
      run.warn("StatusUpdateFailed", "could not record the promotion point " + progress.targetGtidAtPromotion
          + ": " + Failures.rootMessage(e));
    }
  }

  /**
   * Reads every site the failover did not touch, side by side, and warns about each one that
   * still depends on the old primary or does not replicate at all ({@link ReplicasLeftBehind}):
   * the runbook re-points only the old primary, and a replica left on a dead one silently falls
   * behind. Runs after the failover is recorded, so a site that is slow to answer delays nothing
   * that matters.
   */
  void reportReplicasLeftBehind(Plan plan) {
    List<SiteSpec> others = ReplicasLeftBehind.others(plan);
    if (others.isEmpty() || Workflow.getVersion(REPLICA_REPORT_CHANGE_ID, Workflow.DEFAULT_VERSION, 1) < 1) {
      return;
    }
    Map<String, ServerState> states = run.inspectAll(plan.config().credentialsSecret(), others);
    ReplicasLeftBehind.findings(plan, states).forEach(finding -> run.warn(ReplicasLeftBehind.REASON, finding));
  }
}
