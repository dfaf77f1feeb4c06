package io.shipstream.failover.workflows.planned;

import io.shipstream.failover.model.Durations;
import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.RoleLabel;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.shipstream.failover.workflows.activities.MysqlActivities.DrainResult;
import io.shipstream.failover.workflows.activities.MysqlActivities.FenceResult;
import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.shipstream.failover.workflows.common.ActivityStubs;
import io.shipstream.failover.workflows.common.FailoverAbort;
import io.shipstream.failover.workflows.common.FailoverProgress;
import io.shipstream.failover.workflows.common.FailoverRun;
import io.shipstream.failover.workflows.common.Failures;
import io.shipstream.failover.workflows.common.Rollback;
import io.shipstream.failover.workflows.contract.Events;
import io.shipstream.failover.workflows.contract.FailureTypes;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Plan;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;

/**
 * The Draining and WaitingForLag steps of the planned runbook: the source is fenced, shed from
 * the primary Service and its sessions killed, while the target catches up with every transaction
 * the fenced source holds. Registers its own undo with the runbook's {@link Rollback}; any failure
 * here is a {@link FailoverAbort} that the runbook rolls back. Workflow code: its I/O goes
 * through activities.
 */
final class SourceDrain {
  private final FailoverRun run;
  // The source's primary role label being removed, beside the lag gate; null before the fence.
  private Promise<Void> unlabel;
  // The session drain started after the fence; null before it.
  private Drain drain;

  SourceDrain(FailoverRun run) {
    this.run = run;
  }

  /**
   * Before the fence, while the application still writes: the target executes what the source had
   * when validated ({@link Plan#catchUpBeforeFence}), so that the lag gate inside the write window
   * waits only for what the source commits meanwhile. It waits {@link
   * PlannedFailoverPlanner#CATCH_UP_BEFORE_FENCE_AT_MOST} at most. However it ends (caught up, out
   * of time, the target not answering), the runbook goes on to the fence as before, whose lag gate
   * has the whole maxLagWait and decides; only a cancel ends the run here, with nothing fenced. It
   * runs on the worker that holds the connections, which warms the one to the target.
   */
  void catchUpBeforeFence(Plan plan) {
    String wanted = plan.catchUpBeforeFence();
    if (wanted == null) {
      return;
    }
    Duration budget = plan.maxLagWait().compareTo(PlannedFailoverPlanner.CATCH_UP_BEFORE_FENCE_AT_MOST) < 0
        ? plan.maxLagWait() : PlannedFailoverPlanner.CATCH_UP_BEFORE_FENCE_AT_MOST;
    Instant deadline = FailoverRun.now().plus(budget);
    String summary = "before the fence: wait up to " + Durations.format(budget) + " until " + plan.target().name()
        + " holds " + wanted + " (what " + plan.source().name() + " had when validated)";
    run.show(summary + "; when validated it lacked " + lacking(wanted, run.progress.targetGtidAtValidation));
    try {
      run.cancellable(() -> run.onConnections.ahead(queue -> Async.function(
          ActivityStubs.mysqlWaitAhead(budget, summary, queue)::catchUpBeforeFence, server(plan, plan.target()), wanted,
          deadline)));
    } catch (ActivityFailure e) {
      // The fence's lag gate, with the whole maxLagWait, decides about this target.
      boolean timeout = FailureTypes.LAG_TIMEOUT.equals(Failures.type(e));
      run.progress.note(plan.target().name() + " had not caught up with " + plan.source().name()
          + " before the fence (" + (timeout ? "not within " + Durations.format(budget) : "the wait failed: "
              + Failures.rootMessage(e))
          + "); the lag gate after the fence waited for the rest");
    }
  }

  /** What {@code have} lacks of {@code wanted}, as a count and the set, for a message. */
  private static String lacking(String wanted, String have) {
    try {
      GtidSet missing = GtidSet.parse(wanted).subtract(GtidSet.parse(have));
      return missing.count() + " transaction(s)" + (missing.isEmpty() ? "" : " " + missing);
    } catch (RuntimeException e) {
      return "an unknown number of transactions (it held " + have + ")";
    }
  }

  /** Fences and drains the source; returns once the target holds everything the source did. */
  void fenceAndDrain(Plan plan, Rollback rollback) {
    FenceResult fence = fenceSource(plan, rollback);
    drain = startDrain(plan, fence);
    waitForTargetToCatchUp(plan);
    finishDrain(plan, drain);
  }

  /** Fences the source; the compensation is registered first, so a half-done fence is undone too. */
  private FenceResult fenceSource(Plan plan, Rollback rollback) {
    // From the fence until the promotion the application cannot write: the status and Events wait
    // until then (3 s at most) instead of going ahead of the lag gate. Held from just before the
    // fence, so that no write of Draining holds up the workflow task that schedules it.
    run.openWriteWindow();
    run.enter(Phase.Draining, "fencing " + plan.source().name());
    MysqlTarget source = server(plan, plan.source());
    rollback.register(this::restoreSource, plan);
    FenceResult fence;
    try {
      String summary = "fence " + plan.source().name() + " (read-only, then its GTID set)";
      fence = run.onConnections.call(queue -> ActivityStubs.mysql(summary, queue).fence(source));
    } catch (ActivityFailure e) {
      throw new FailoverAbort(Reason.SourceCrashed, "could not fence source " + plan.source().name() + ": "
          + Failures.rootMessage(e));
    }
    run.progress.sourceGtidAtFence = fence.gtidExecuted();
    run.progress.sourceFencedAt = fence.fencedAt();
    run.publishStatus();
    run.publisher.event(Events.PLANNED_FAILOVER_DRAINING, "source " + plan.source().name()
        + " fenced at " + fence.gtidExecuted() + "; draining " + fence.appConnections() + " sessions");
    return fence;
  }

  /**
   * The compensation of the fence: the source takes writes and is routed again; the label is put
   * back only once its removal has settled, so that the removal cannot land after it. A source the
   * watcher's replicas confirmed dead is left fenced and unlabelled: unfencing it would retry
   * against a dead server until the activity gives up and end in "manual recovery required", and
   * the emergency failover that takes over needs it fenced and out of the primary Service anyway.
   */
  private void restoreSource(Plan plan) {
    if (run.cancel.sourceDead()) {
      if (unlabel != null) {
        Workflow.await(unlabel::isCompleted);
      }
      return;
    }
    ActivityStubs.mysql("unfence " + plan.source().name() + " (rollback)").unfence(server(plan, plan.source()));
    if (unlabel != null) {
      Workflow.await(unlabel::isCompleted);
    }
    run.k8s.setSiteRole(run.group, plan.source(), RoleLabel.PRIMARY);
  }

  /**
   * After the promotion, before the target is labelled primary: the source's label removal, which
   * ran beside the window, has settled. A removal the API server refused is a warning (the source
   * is fenced, so a write routed to it fails, and the watcher repairs the label once the run ends),
   * not a reason to hold the promotion up: the promotion never waits for it.
   */
  void settleUnlabel(Plan plan) {
    run.settle(unlabel, Events.ROUTING_UPDATE_FAILED, "could not remove the primary role label from "
        + plan.source().name() + " (it is fenced; a write routed there fails)");
  }

  /**
   * Sheds the source from the primary Service and starts killing its sessions, bounded by
   * drainTimeout. The drain runs beside the lag wait rather than before it: the fence already
   * stops every session from committing, so waiting for an idle source before checking the target
   * would only lengthen the time writes are refused. It is never cancelled (cancelling an activity
   * that is completing at that instant wedges Temporal's test server): the activity stops by
   * itself once the source is idle, writable again (a rollback) or replicating (it rejoined).
   */
  private Drain startDrain(Plan plan, FenceResult fence) {
    // In this workflow task, beside the lag gate's first look and the failover record, so that it
    // has settled before the target is labelled; an API server that does not answer within
    // WINDOW_LOCAL_AT_MOST leaves it to an ordinary activity, which the promotion does not wait for.
    // Ordinary from the start it left with the promotion's command and, slower than the promotion,
    // held the target's label up by its rest and a workflow task or two.
    unlabel = Async.procedure(ActivityStubs.kubernetesLocalInTheWindow()::setSiteRole, run.group, plan.source(),
        RoleLabel.REPLICA).handle(
            (done, failure) -> failure == null ? Workflow.newPromise((Void) null)
                : Async.procedure(run.k8sAside::setSiteRole, run.group, plan.source(), RoleLabel.REPLICA))
        .thenCompose(next -> next);
    if (fence.appConnections() == 0) {
      return new Drain(null);
    }
    Instant deadline = FailoverRun.now().plus(plan.config().drainTimeout());
    MysqlActivities waiting = ActivityStubs.mysqlWait(plan.config().drainTimeout(), "drain "
        + plan.source().name() + ": end its " + fence.appConnections() + " sessions by " + deadline);
    return new Drain(Async.function(waiting::killAppConnections, server(plan, plan.source()), deadline));
  }

  private MysqlTarget server(Plan plan, SiteSpec site) {
    return MysqlTarget.of(run.group, plan.config(), site);
  }

  /** The session drain running beside the lag wait; null kills when the source had no sessions. */
  private record Drain(Promise<DrainResult> kills) {}

  private void waitForTargetToCatchUp(Plan plan) {
    FailoverProgress progress = run.progress;
    run.enter(Phase.WaitingForLag, "waiting for " + plan.target().name() + " to execute "
        + progress.sourceGtidAtFence);
    Instant started = FailoverRun.now();
    Instant deadline = started.plus(plan.maxLagWait());
    String summary = "wait until " + plan.target().name() + " holds " + progress.sourceGtidAtFence + " (fenced "
        + plan.source().name() + ")";
    run.show(lagStep(plan.target().name(), progress.sourceGtidAtFence, progress.targetGtidAtValidation));
    try {
      if (!firstLook(plan, started)) {
        run.cancellable(() -> run.onConnections.async(queue -> Async.function(
            ActivityStubs.mysqlWait(plan.maxLagWait(), summary, queue)::waitForGtidSet, server(plan, plan.target()),
            progress.sourceGtidAtFence, deadline)));
      }
    } catch (FailoverAbort stopped) {
      // Cancelled, or the source died: a lag wait all the same, ended early.
      run.metrics.lagWait(plan.target().name(), Duration.between(started, FailoverRun.now()));
      throw stopped;
    } catch (ActivityFailure e) {
      // A wait that failed is a lag wait too: a LagTimeout is the longest one there is.
      run.metrics.lagWait(plan.target().name(), Duration.between(started, FailoverRun.now()));
      boolean timeout = FailureTypes.LAG_TIMEOUT.equals(Failures.type(e));
      throw new FailoverAbort(timeout ? Reason.LagTimeout : Reason.TargetUnhealthy, "target "
          + plan.target().name() + (timeout ? " did not catch up within maxLagWait "
              + Durations.format(plan.maxLagWait()) : " failed while catching up")
          + ": " + Failures.rootMessage(e));
    }
    Duration waited = Duration.between(started, FailoverRun.now());
    run.metrics.lagWait(plan.target().name(), waited);
    progress.lagWaitSeconds = waited.toMillis() / 1000.0;
    run.publisher.event(Events.PLANNED_FAILOVER_LAG_OK, plan.target().name() + " holds every transaction of "
        + plan.source().name() + " (" + progress.sourceGtidAtFence + ")");
  }

  /**
   * The lag gate's first look: the same wait for the fenced set, for {@link #LAG_GATE_LOCALLY_AT_MOST}
   * at most (and within maxLagWait), as a local activity in the workflow task that took the fence's
   * result ({@link ActivityStubs#mysqlLagGateLocal}). A target that is current passes here, and the
   * failover record and the promotion's command follow in the same task: no server round trip and
   * no workflow task between the fence and the promotion's command but the one. True when the
   * target holds the set; false (whatever the look ended in) leaves the decision to the ordinary
   * wait, which has the whole maxLagWait from {@code started} and its retries, on the worker that
   * holds the connections. A cancel (or the source's death) that comes while it looks is seen once
   * it ended, a second at most: by the ordinary wait, or, when the target passed, by the runbook's
   * check before the promotion.
   */
  private boolean firstLook(Plan plan, Instant started) {
    Duration budget = plan.maxLagWait().compareTo(LAG_GATE_LOCALLY_AT_MOST) < 0 ? plan.maxLagWait()
        : LAG_GATE_LOCALLY_AT_MOST;
    try {
      ActivityStubs.mysqlLagGateLocal(budget, "first look: does " + plan.target().name() + " hold "
          + run.progress.sourceGtidAtFence + " within " + Durations.format(budget) + "?")
          .waitForGtidSet(server(plan, plan.target()),
              run.progress.sourceGtidAtFence, started.plus(budget));
      return true;
    } catch (ActivityFailure notYet) {
      return false;
    }
  }

  /**
   * How long the lag gate's first look waits inside the workflow task: a target that is streaming
   * holds the fenced set within milliseconds; one that takes longer is left to the ordinary wait,
   * whose progress shows in its heartbeats and which a cancel stops at once.
   */
  static final Duration LAG_GATE_LOCALLY_AT_MOST = Duration.ofSeconds(1);

  /**
   * The WaitingForLag step for the current details: what the target lacked of the fenced set when
   * the request was validated, just before the fence (the last reading the workflow holds; the wait
   * itself is one activity, whose progress shows in its heartbeat details, not here). Reading the
   * target again here would put a command and a workflow task inside the write window.
   */
  static String lagStep(String target, String fenced, String targetGtidAtValidation) {
    String waiting = "waiting for " + target + " to execute " + fenced;
    if (targetGtidAtValidation == null) {
      return waiting;
    }
    return waiting + "; when validated, before the fence, " + target + " lacked "
        + lacking(fenced, targetGtidAtValidation) + " of it; the wait's heartbeats show its progress";
  }

  /**
   * Before the run completes, once Succeeded is on its way: the session drain, started with the
   * promotion's command and usually done within milliseconds (it stops by itself once the source
   * rejoined), has its completion seen, {@link #DRAIN_SEEN_AT_MOST} at most. Its completion
   * arriving while the last workflow task runs had that task's completion refused and the task run
   * again, local activities included: the rejoin twice, the success counted twice. Waiting here ends
   * that task first, so what it did is recorded; Succeeded is already written.
   */
  void awaitDrainSeen() {
    if (drain != null && drain.kills() != null && !drain.kills().isCompleted()) {
      Workflow.await(DRAIN_SEEN_AT_MOST, drain.kills()::isCompleted);
    }
  }

  /** How long the run's end waits to see the session drain complete ({@link #awaitDrainSeen}). */
  static final Duration DRAIN_SEEN_AT_MOST = Duration.ofSeconds(1);

  /** Notes how the drain went, after the notes before it; the promotion waits for none of it. */
  private void finishDrain(Plan plan, Drain drain) {
    FailoverProgress progress = run.progress;
    if (drain.kills() != null) {
      if (!drain.kills().isCompleted()) {
        progress.note("sessions still reconnecting to " + plan.source().name()
            + " when the target caught up; they are fenced and fail on their next write");
      } else {
        try {
          var drained = drain.kills().get();
          if (drained.remaining() > 0) {
            progress.note(drained.remaining() + " sessions still connected after drainTimeout; "
                + "they are fenced and will fail on their next write");
          }
        } catch (ActivityFailure e) {
          // The target already holds every transaction of the fenced source, so losing the
          // source now costs nothing: promotion goes on.
          progress.note("draining " + plan.source().name() + " failed: " + Failures.rootMessage(e));
        }
      }
    }
  }
}
