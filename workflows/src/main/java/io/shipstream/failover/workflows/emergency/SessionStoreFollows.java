package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.workflows.activities.DragonflyActivities.Promotion;
import io.shipstream.failover.workflows.activities.StoreState;
import io.shipstream.failover.workflows.activities.StoreTarget;
import io.shipstream.failover.workflows.common.ActivityStubs;
import io.shipstream.failover.workflows.common.FailoverRun;
import io.shipstream.failover.workflows.common.Failures;
import io.shipstream.failover.workflows.contract.Events;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import java.util.ArrayList;
import java.util.List;

/**
 * The session store after an emergency promotion of MySQL: its master is presumably dead with its
 * site, so there is nothing to take over from losslessly; the freshest reachable replica is
 * promoted on its own (REPLICAOF NO ONE), the other reachable stores follow it, and the pods are
 * relabelled. Nothing here can fail the failover: MySQL is already promoted, so every problem is a
 * warning. Workflow code: its I/O goes through activities.
 */
final class SessionStoreFollows {
  private final FailoverRun run;

  SessionStoreFollows(FailoverRun run) {
    this.run = run;
  }

  /** Nothing to do when the spec has no session store. */
  void promote(EmergencyPlan plan) {
    if (!plan.config().dragonflyEnabled()) {
      return;
    }
    String group = run.group.toString();
    List<SiteSpec> sites = plan.config().sites().stream().filter(s -> s.dragonfly() != null).toList();
    List<StoreTarget> stores = sites.stream().map(s -> StoreTarget.of(run.group, s)).toList();
    Promotion store;
    try {
      store = ActivityStubs.dragonfly().promoteFreshestReplica(stores, plan.target().name());
    } catch (ActivityFailure e) {
      run.warn(Events.DRAGONFLY_PROMOTION_FAILED, "session store not promoted: " + Failures.rootMessage(e));
      run.metrics.dragonflyPromotion(group, plan.target().name(), "failed");
      return;
    }
    List<Promise<Void>> labels = new ArrayList<>();
    for (SiteSpec site : sites) {
      boolean master = site.name().equals(store.site());
      labels.add(Async.procedure(run.k8s::setStoreRole, run.group, site,
          master ? StoreState.MASTER : StoreState.REPLICA, master));
    }
    labels.forEach(l -> run.settle(l, Events.DRAGONFLY_ROUTING_UPDATE_FAILED, "session-store pods not relabelled"));
    run.metrics.dragonflyPromotion(group, plan.target().name(), "success");
    run.event(Events.DRAGONFLY_PROMOTION_COMPLETED, "the " + store.site() + " store is the session "
        + "store master (" + store.method() + "): " + store.message());
  }
}
