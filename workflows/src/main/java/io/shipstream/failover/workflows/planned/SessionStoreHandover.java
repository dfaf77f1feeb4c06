package io.shipstream.failover.workflows.planned;

import io.shipstream.failover.model.Durations;
import io.shipstream.failover.model.GroupConfig.OnSyncTimeout;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.workflows.activities.DragonflyActivities;
import io.shipstream.failover.workflows.activities.DragonflyActivities.Promotion;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.shipstream.failover.workflows.activities.StoreState;
import io.shipstream.failover.workflows.activities.StoreTarget;
import io.shipstream.failover.workflows.common.ActivityStubs;
import io.shipstream.failover.workflows.common.FailoverAbort;
import io.shipstream.failover.workflows.common.FailoverProgress;
import io.shipstream.failover.workflows.common.FailoverRun;
import io.shipstream.failover.workflows.common.Failures;
import io.shipstream.failover.workflows.common.Rollback;
import io.shipstream.failover.workflows.contract.Events;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Plan;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import java.time.Duration;
import java.time.Instant;

/**
 * The session store's two phases of a planned failover, WaitingForDragonflySync and
 * PromotingDragonfly, run after the MySQL target has caught up and before it is promoted. Whether
 * the sessions provably moved changes nothing for MySQL under onSyncTimeout=proceed (the status
 * says sessionsPreserved=false); under onSyncTimeout=fail any doubt aborts the whole failover and
 * the workflow's {@link Rollback} undoes it, this class's compensation included.
 */
final class SessionStoreHandover {
  private final FailoverRun run;
  private final GroupRef group;
  private final KubernetesActivities k8s;
  private final FailoverProgress progress;
  private final DragonflyActivities store = ActivityStubs.dragonfly();
  private boolean synced;
  private boolean moved;

  SessionStoreHandover(FailoverRun run) {
    this.run = run;
    this.group = run.group;
    this.k8s = run.k8s;
    this.progress = run.progress;
  }

  // --- WaitingForDragonflySync -----------------------------------------------------------------

  /**
   * Captures the source master's offset and waits for the target replica to reach it, bounded by
   * maxSyncWait; under onSyncTimeout=fail a miss aborts the failover. Nothing to do when the spec
   * has no session store.
   */
  void waitForSync(Plan plan) {
    if (!plan.config().dragonflyEnabled()) {
      return;
    }
    StoreTarget source = StoreTarget.of(group, plan.source());
    StoreTarget target = StoreTarget.of(group, plan.target());
    Duration budget = plan.config().dragonflyMaxSyncWait();
    run.enter(Phase.WaitingForDragonflySync, "waiting for the " + target + " to reach the offset of the "
        + source);
    Instant started = FailoverRun.now();
    String problem;
    try {
      long offset = store.captureOffset(source);
      ActivityStubs.dragonflyWait(budget, "wait until the " + target + " holds offset " + offset)
          .waitForOffset(target, offset, started.plus(budget));
      progress.syncWaitSeconds = secondsSince(started);
      synced = true;
      return;
    } catch (ActivityFailure e) {
      progress.syncWaitSeconds = secondsSince(started);
      problem = Failures.rootMessage(e);
    }
    progress.sessionsPreserved = false;
    String message = "the session store of " + plan.target().name() + " did not catch up with "
        + plan.source().name() + " within maxSyncWait " + Durations.format(budget) + ": " + problem;
    run.event(Events.DRAGONFLY_SYNC_TIMEOUT, message);
    if (plan.config().onSyncTimeout() == OnSyncTimeout.fail) {
      run.metrics.dragonflyPromotion(group.toString(), plan.target().name(), "skipped");
      throw new FailoverAbort(Reason.DragonflySyncTimeout, message + " (onSyncTimeout=fail)");
    }
    progress.reason = Reason.DragonflySyncTimeout;
    progress.note(message + "; onSyncTimeout=proceed: the store is promoted anyway, sessions written since may be"
        + " lost");
  }

  // --- PromotingDragonfly ----------------------------------------------------------------------

  /**
   * Takes the source out of the active Service, promotes the target (without loss when it is in
   * sync, on its own otherwise), then labels both, re-points the old master and disconnects its
   * clients so that they come back through the Service to the new master. Nothing to do when the
   * spec has no session store.
   */
  void promote(Plan plan, Rollback rollback) {
    if (!plan.config().dragonflyEnabled()) {
      return;
    }
    SiteSpec from = plan.source();
    SiteSpec to = plan.target();
    StoreTarget source = StoreTarget.of(group, from);
    StoreTarget target = StoreTarget.of(group, to);
    run.enter(Phase.PromotingDragonfly, "moving the session store master from " + from.name() + " to " + to.name());
    run.event(Events.DRAGONFLY_PROMOTION_STARTED, "promoting the " + target + (synced
        ? " with a lossless takeover from the " + source : " on its own (it is not in sync with the " + source + ")"));
    // Registered before the label is stripped, so that a rollback puts the source back in the
    // active Service whatever happened to the label; once the store has moved it does nothing.
    rollback.register(() -> {
      if (!moved) {
        k8s.setStoreRole(group, from, StoreState.MASTER, true);
      }
    });
    Promotion promotion = null;
    String failure;
    try {
      k8s.setStoreRole(group, from, null, false);
      Duration budget = plan.config().dragonflyMaxSyncWait();
      promotion = synced ? ActivityStubs.dragonflyWait(budget, "promote the session store of " + to.name())
          .promote(target, source, budget)
          : store.promoteAlone(target);
      failure = null;
    } catch (ActivityFailure e) {
      failure = Failures.rootMessage(e);
    }
    String result = "success";
    if (promotion == null) {
      result = "failed";
      promotion = afterFailedPromotion(plan, target, synced, failure);
      if (promotion == null) {
        return;
      }
    } else {
      progress.sessionsPreserved = synced;
    }
    moved = true;
    progress.promotionMethod = promotion.method();
    repointAndRelabel(from, to, source, target);
    run.metrics.dragonflyPromotion(group.toString(), to.name(), result);
    run.event(Events.DRAGONFLY_PROMOTION_COMPLETED, "the " + target + " is the session store master ("
        + promotion.method() + "); sessions preserved: " + progress.sessionsPreserved);
  }

  /**
   * A failed promotion: aborts under onSyncTimeout=fail; otherwise forces the target when the
   * lossless takeover was what failed, and when even that fails leaves the store on the source.
   * Returns the promotion that stands, or null when the store stays where it was. The metric
   * counts the failover once, as failed, whichever way it goes on.
   */
  private Promotion afterFailedPromotion(Plan plan, StoreTarget target, boolean synced, String failure) {
    progress.sessionsPreserved = false;
    String message = "promotion of the " + target + " failed: " + failure;
    run.event(Events.DRAGONFLY_PROMOTION_FAILED, message);
    if (plan.config().onSyncTimeout() == OnSyncTimeout.fail) {
      run.metrics.dragonflyPromotion(group.toString(), plan.target().name(), "failed");
      throw new FailoverAbort(Reason.DragonflyPromotionFailed, message + " (onSyncTimeout=fail)");
    }
    progress.reason = Reason.DragonflyPromotionFailed;
    if (synced) {
      try {
        Promotion forced = store.promoteAlone(target);
        progress.note(message + "; onSyncTimeout=proceed: promoted with " + forced.method() + ", sessions may be lost");
        return forced;
      } catch (ActivityFailure e) {
        message = message + "; " + Failures.rootMessage(e);
      }
    }
    try {
      k8s.setStoreRole(group, plan.source(), StoreState.MASTER, true);
    } catch (ActivityFailure e) {
      message = message + "; the source store is not labelled active again: " + Failures.rootMessage(e);
    }
    progress.note(message + "; onSyncTimeout=proceed: the session store stays on " + plan.source().name());
    run.metrics.dragonflyPromotion(group.toString(), plan.target().name(), "failed");
    return null;
  }

  /**
   * Labels, the old master's replication and its clients; none of it can undo the move, so each
   * failure is a warning.
   */
  private void repointAndRelabel(SiteSpec from, SiteSpec to, StoreTarget source, StoreTarget target) {
    Promise<Void> master = Async.procedure(k8s::setStoreRole, group, to, StoreState.MASTER, true);
    Promise<Void> replica = Async.procedure(k8s::setStoreRole, group, from, StoreState.REPLICA, false);
    Promise<Void> rejoin = Async.procedure(store::replicateFrom, source, target);
    run.settle(master, Events.DRAGONFLY_ROUTING_UPDATE_FAILED, "the " + target + " is not labelled master/active");
    run.settle(replica, Events.DRAGONFLY_ROUTING_UPDATE_FAILED, "the " + source + " is not labelled replica/standby");
    run.settle(rejoin, Events.DRAGONFLY_REJOIN_FAILED, "the old master " + source + " is not a replica of the "
        + target);
    try {
      store.killClients(source);
    } catch (ActivityFailure e) {
      run.warn(Events.DRAGONFLY_CLIENT_KILL_FAILED, "clients of the old master " + source + " not disconnected: "
          + Failures.rootMessage(e));
    }
  }

  private static double secondsSince(Instant started) {
    return Duration.between(started, FailoverRun.now()).toMillis() / 1000.0;
  }

}
