package io.shipstream.failover.workflows.planned;

import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.common.ChannelReadBack;
import io.shipstream.failover.workflows.common.FailoverRun;
import io.shipstream.failover.workflows.common.ReplicaRepointing;
import io.shipstream.failover.workflows.contract.Events;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Plan;
import io.temporal.failure.ActivityFailure;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The last step of a successful planned failover: every other replica is pointed at the new
 * primary, as the emergency runbook does with its survivors. What to do with each site is {@link
 * OtherReplicas}'s decision; this reads the sites and does it. None of it can undo the promotion,
 * so each finding is a warning. Workflow code: its I/O goes through activities.
 */
final class OtherReplicasRepointing {
  private final FailoverRun run;

  OtherReplicasRepointing(FailoverRun run) {
    this.run = run;
  }

  /**
   * Reads every site the failover did not touch, side by side, then the new primary, and
   * re-points in parallel each site {@link OtherReplicas} says to; a site it leaves alone for a
   * reason, and one whose re-pointing fails, is a warning; one re-pointed is read back ({@code
   * channels}). Runs once the old primary was re-pointed and the failover recorded, so a site that
   * is slow to answer delays nothing that matters.
   */
  void repoint(Plan plan, ChannelReadBack channels) {
    List<SiteSpec> others = OtherReplicas.others(plan);
    if (others.isEmpty()) {
      return;
    }
    Map<String, ServerState> states = run.inspectAll(plan.config(), others);
    List<String> newPrimaryGtids = Arrays.asList(run.progress.targetGtidAtPromotion, newPrimaryGtid(plan));
    ReplicaRepointing repointing = new ReplicaRepointing(run.quickMysql, server(plan, plan.target()));
    Map<String, OtherReplicas.Step> steps = new LinkedHashMap<>();
    for (SiteSpec site : others) {
      OtherReplicas.Step step = OtherReplicas.step(plan, site.name(), states.get(site.name()), newPrimaryGtids);
      steps.put(site.name(), step);
      if (step.repoint()) {
        repointing.start(server(plan, site));
      }
    }
    steps.forEach((site, step) -> {
      if (step.report() != null) {
        run.warn(Events.REPLICA_NOT_REPOINTED, step.report());
      } else if (step.repoint()) {
        Optional<String> failure = repointing.failure(site);
        if (failure.isPresent()) {
          run.warn(Events.REPLICA_NOT_REPOINTED,
              OtherReplicas.notRepointed(plan, site, states.get(site), failure.get()));
        } else {
          channels.start(repointing.replica(site));
        }
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
      ServerState state = run.quickMysql.inspect(server(plan, plan.target()));
      if (state.reachable() && state.gtidExecuted() != null) {
        return state.gtidExecuted();
      }
    } catch (ActivityFailure e) {
      // Unknown, as from a server that did not answer.
    }
    return null;
  }

  private MysqlTarget server(Plan plan, SiteSpec site) {
    return MysqlTarget.of(run.group, plan.config(), site);
  }
}
