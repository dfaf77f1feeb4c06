package io.shipstream.failover.workflows.planned;

import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.common.Failures;
import io.shipstream.failover.workflows.common.ReplicaRepointing;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Plan;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the planned runbook does once the target is writable: routing (the Service, DNS, taints,
 * the old primary's replication), the Resuming record, and the other replicas' re-pointing. None
 * of it can undo the promotion, so each failure or finding is a warning and the workflow only goes
 * forward. Workflow code: its I/O goes through activities.
 */
final class AfterPromotion {
  /**
   * The change id of the re-pointing of the other replicas after the promotion: failovers started
   * by a worker without it replay without those calls.
   */
  static final String REPOINT_CHANGE_ID = "repoint-other-replicas";

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
    run.metrics.dnsFlip(dns.getFailure() == null);
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
   * Points every other replica at the new primary, as the emergency runbook does with its
   * survivors: reads every site the failover did not touch, side by side, then the new primary,
   * and re-points in parallel each site {@link OtherReplicas} says to; a site it leaves alone for a
   * reason, and one whose re-pointing fails, is a warning. Runs once the old primary was re-pointed
   * and the failover recorded, so a site that is slow to answer delays nothing that matters.
   */
  void repointOtherReplicas(Plan plan) {
    List<SiteSpec> others = OtherReplicas.others(plan);
    if (others.isEmpty() || Workflow.getVersion(REPOINT_CHANGE_ID, Workflow.DEFAULT_VERSION, 1) < 1) {
      return;
    }
    Map<String, ServerState> states = run.inspectAll(plan.config().credentialsSecret(), others);
    List<String> newPrimaryGtids = Arrays.asList(run.progress.targetGtidAtPromotion, newPrimaryGtid(plan));
    ReplicaRepointing repointing = new ReplicaRepointing(run.quickMysql, run.target(plan, plan.target()));
    Map<String, OtherReplicas.Step> steps = new LinkedHashMap<>();
    for (SiteSpec site : others) {
      OtherReplicas.Step step = OtherReplicas.step(plan, site.name(), states.get(site.name()), newPrimaryGtids);
      steps.put(site.name(), step);
      if (step.repoint()) {
        repointing.start(run.target(plan, site));
      }
    }
    steps.forEach((site, step) -> {
      if (step.report() != null) {
        run.warn(OtherReplicas.REASON, step.report());
      } else if (step.repoint()) {
        repointing.failure(site).ifPresent(why ->
            run.warn(OtherReplicas.REASON, OtherReplicas.notRepointed(plan, site, states.get(site), why)));
      }
    });
  }

  /**
   * The new primary's executed set, read after the other sites: a replica may have received the
   * new primary's first writes through the old primary, and those must not look like transactions
   * the new primary lacks. Null when it cannot be read: the set it was promoted at then stands
   * alone, which can only make a site look divergent (left alone, with a warning), never hide one.
   */
  private String newPrimaryGtid(Plan plan) {
    try {
      ServerState state = run.quickMysql.inspect(run.target(plan, plan.target()));
      if (state.reachable() && state.gtidExecuted() != null) {
        return state.gtidExecuted();
      }
    } catch (ActivityFailure e) {
      // Unknown, as from a server that did not answer.
    }
    return null;
  }
}
