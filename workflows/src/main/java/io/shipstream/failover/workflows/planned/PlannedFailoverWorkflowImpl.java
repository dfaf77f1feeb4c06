package io.shipstream.failover.workflows.planned;

import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.workflows.PlannedFailoverWorkflow;
import io.shipstream.failover.workflows.activities.KubernetesActivities.GroupSnapshot;
import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.shipstream.failover.workflows.common.ActivityStubs;
import io.shipstream.failover.workflows.common.CancelRequest;
import io.shipstream.failover.workflows.common.ChannelReadBack;
import io.shipstream.failover.workflows.common.FailoverAbort;
import io.shipstream.failover.workflows.common.FailoverKind;
import io.shipstream.failover.workflows.common.FailoverMetrics;
import io.shipstream.failover.workflows.common.FailoverProgress;
import io.shipstream.failover.workflows.common.FailoverRun;
import io.shipstream.failover.workflows.common.Failures;
import io.shipstream.failover.workflows.common.PromotionOutcome;
import io.shipstream.failover.workflows.common.PromotionOutcome.Promoted;
import io.shipstream.failover.workflows.common.PromotionOutcome.Reversible;
import io.shipstream.failover.workflows.common.Rollback;
import io.shipstream.failover.workflows.contract.Events;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Plan;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import java.util.Optional;

/**
 * The planned-failover runbook. {@link #failover} reads as the procedure an operator would follow
 * by hand; the steps live beside it, all sharing one {@link FailoverRun}: {@link RequestValidation}
 * (Scheduled, Validating, Deferred), {@link SourceDrain} (the target's catch-up before the fence,
 * Draining, WaitingForLag), {@link
 * SessionStoreHandover} (the session store), {@link TargetPromotion} (Promoting) and {@link
 * OtherReplicasRepointing}. One failure idiom: before the promotion a step throws a {@link
 * FailoverAbort}, and {@link #rollBack} undoes what the {@link Rollback} holds; the promotion ends
 * in a {@link PromotionOutcome}, and a failed one is undone ({@link #rollBackPromotion}) only once
 * the target is fenced again; after a promotion the workflow only goes forward. The short,
 * idempotent calls (every Kubernetes call, the MySQL inspection, the old primary's rejoin and the
 * other replicas' re-pointing) are local activities, so a workflow task carries several of them
 * instead of costing a server round trip each; the fence, the drain, the lag wait, the promotion
 * and the unfence stay ordinary activities, recorded before the workflow goes on. The one
 * exception is the lag gate's first look, a read: in the task that takes the fence's result, a
 * target that is current passes it as a local activity, and the failover record and the
 * promotion's command follow in that task (one workflow task from the fence to the promotion);
 * one that is not is left to the ordinary wait. From the fence
 * until the writers are routed to the new primary (the write window) nothing but the failover
 * record stands between the fence, the lag gate and the promotion: the source's unlabel runs
 * beside the lag gate as an ordinary activity, the status and Events wait ({@link
 * FailoverRun#openWriteWindow}), and the three steps go to the worker that holds their connections
 * ({@link io.shipstream.failover.workflows.common.OnConnections}). The record stays after the lag
 * gate: written before it, a lag timeout or a cancel would roll back with the anti-flap cooldown
 * started, holding back the next switchover and any emergency failover.
 */
public class PlannedFailoverWorkflowImpl implements PlannedFailoverWorkflow {
  private final FailoverProgress progress = new FailoverProgress();
  // Set by the cancel signal, which may arrive before the run below is built.
  private final CancelRequest cancel = new CancelRequest();
  private FailoverRun run;

  @Override
  public PlannedFailoverStatus run(Request request) {
    return FailoverRun.runDetached(this::cancel, () -> failover(request));
  }

  private PlannedFailoverStatus failover(Request request) {
    progress.startTime = FailoverRun.now();
    run = new FailoverRun(FailoverKind.PLANNED, request.group(), request.annotation(), progress,
        ActivityStubs.kubernetesLocal(), ActivityStubs.mysqlLocal(), new FailoverMetrics(FailoverKind.PLANNED), cancel);
    GroupSnapshot snapshot = run.k8s.loadGroup(run.group);
    if (!isStillRequested(snapshot)) {
      // A re-delivered informer event for a request that was already handled, or one the user
      // has since changed: touching the status would overwrite the real outcome.
      progress.message = "request superseded: the annotation no longer holds '" + run.annotation + "'";
      return progress.toPlannedStatus();
    }
    run.enter(Phase.Pending, "annotation observed: " + run.annotation);
    run.event(Events.PLANNED_FAILOVER_STARTED, "planned failover requested: " + run.annotation);
    Plan plan;
    SourceDrain drain = new SourceDrain(run);
    try {
      plan = new RequestValidation(run).validate(snapshot);
      run.useHooks(plan.config().hooks()).beforePlannedFence();
      drain.catchUpBeforeFence(plan);
      run.checkNotCancelled("before the fence");
    } catch (FailoverAbort refused) {
      // Nothing has been touched (a vetoing pre-hook answered, or a cancel came, before the fence):
      // there is nothing to undo.
      run.fail(refused.reason(), refused.getMessage(), refused.reason() == Reason.AlreadyActive
          ? Events.PLANNED_FAILOVER_SKIPPED : Events.PLANNED_FAILOVER_REJECTED);
      return progress.toPlannedStatus();
    }

    Rollback rollback = new Rollback();
    SessionStoreHandover sessions = new SessionStoreHandover(run);
    TargetPromotion promotion = new TargetPromotion(run);
    try {
      drain.fenceAndDrain(plan, rollback);
      sessions.waitForSync(plan);
      run.checkNotCancelled("before promotion");
      sessions.promote(plan, rollback);
      promotion.nameTargetActive(plan, rollback);
    } catch (FailoverAbort abort) {
      run.closeWriteWindow();
      return rollBack(rollback, abort);
    }
    PromotionOutcome promoted = promotion.promote(plan);
    if (!(promoted instanceof Promoted)) {
      run.closeWriteWindow();
    }
    if (promoted instanceof Reversible reversible) {
      return rollBackPromotion(plan, rollback, reversible.why());
    }
    if (!(promoted instanceof Promoted)) {
      run.fail(Reason.ExecuteFailed, ((PromotionOutcome.Stuck) promoted).why() + "; the source stays fenced and "
          + plan.target().name() + " is recorded as the active site: manual recovery required",
          Events.PLANNED_FAILOVER_FAILED);
      return progress.toPlannedStatus();
    }

    drain.settleUnlabel(plan);
    // The writers' way to the new primary (its role label), DNS, the taints, the old primary's
    // rejoin and the promotion point's record all start at once (none of them waits for another);
    // the status and Events the window held go out once the label is on.
    FailoverRun.RoutingFlip routing = run.flipRouting(plan.config(), plan.target());
    Promise<Void> rejoin = Async.procedure(run.quickMysql::replicateFrom, server(plan, plan.source()),
        server(plan, plan.target()));
    Promise<Void> recorded = run.startRecordingPromotionPoint(plan.target());
    routing.labelled();
    run.closeWriteWindow();
    routing.settle();
    // Each re-pointed channel is read back as soon as it was re-pointed, beside the rest, and
    // recorded once Succeeded is on its way (ChannelReadBack): the proof never delays the outcome.
    ChannelReadBack channels = new ChannelReadBack(run, server(plan, plan.target()));
    if (run.settle(rejoin, Events.REJOIN_FAILED, "old primary " + plan.source().name() + " not re-pointed at "
        + plan.target().name() + "; it stays read-only")) {
      channels.start(server(plan, plan.source()));
    }
    run.settle(recorded, Events.STATUS_UPDATE_FAILED,
        "could not record the promotion point " + progress.targetGtidAtPromotion);
    new OtherReplicasRepointing(run).repoint(plan, channels);
    progress.transactionsLost = lost(progress.sourceGtidAtFence, progress.targetGtidAtPromotion);
    // Exact, not an estimate: the source was fenced (read-only) when its set was read.
    run.succeed("promoted " + plan.target().name() + ", " + progress.transactionsLost + " transactions lost ("
        + plan.source().name() + "'s GTID set at its fence against " + plan.target().name() + "'s at promotion)",
        Events.PLANNED_FAILOVER_COMPLETED, () -> {
          channels.record();
          drain.awaitDrainSeen();
        });
    return progress.toPlannedStatus();
  }

  private boolean isStillRequested(GroupSnapshot snapshot) {
    return run.annotation != null && run.annotation.equals(snapshot.annotation());
  }

  // --- Rollback ----------------------------------------------------------------------------------

  /** Undoes everything before the promotion and finishes as Failed with the abort's reason. */
  private PlannedFailoverStatus rollBack(Rollback rollback, FailoverAbort abort) {
    Optional<String> undoFailed = rollback.undo();
    String outcome;
    if (cancel.sourceDead() && undoFailed.isEmpty()) {
      // SourceDrain.restoreSource left the dead source as it was: nothing can be unfenced.
      outcome = "; rolled back without the source: it stays fenced and out of the primary Service (its replicas "
          + "confirm it dead, nothing to unfence); handed off to the emergency failover, no DNS flip";
    } else {
      outcome = undoFailed.isEmpty() ? "; rolled back: source unfenced and labelled primary, no DNS flip"
          : "; ROLLBACK FAILED (" + undoFailed.get() + "): the source may still be fenced, "
              + Events.MANUAL_RECOVERY_REQUIRED;
    }
    run.fail(abort.reason(), abort.getMessage() + outcome, Events.PLANNED_FAILOVER_FAILED);
    return progress.toPlannedStatus();
  }

  /**
   * The target is read-only again after its promotion failed, so the source can take writes again
   * without a second writable server: the source is named active first (so that no sidecar fences
   * it once unfenced; registered when the target was named), then the rollback unfences it and
   * labels it primary, as for a failure before promotion. The target is then pointed back at the
   * source, best effort: it stays read-only either way.
   */
  private PlannedFailoverStatus rollBackPromotion(Plan plan, Rollback rollback, String message) {
    Optional<String> undoFailed = rollback.undo();
    if (undoFailed.isPresent()) {
      run.fail(Reason.ExecuteFailed, message + "; ROLLBACK FAILED (" + undoFailed.get() + "): the source may "
          + "still be fenced, " + Events.MANUAL_RECOVERY_REQUIRED, Events.PLANNED_FAILOVER_FAILED);
      return progress.toPlannedStatus();
    }
    String source = plan.source().name();
    String outcome = message + "; rolled back: " + source + " is named active again and writable again, labelled "
        + "primary, no DNS flip";
    try {
      run.quickMysql.replicateFrom(server(plan, plan.target()), server(plan, plan.source()));
    } catch (ActivityFailure e) {
      String notRejoined = plan.target().name() + " not re-pointed at " + source + "; it stays read-only: "
          + Failures.rootMessage(e);
      run.event(Events.REJOIN_FAILED, notRejoined);
      outcome += "; " + notRejoined;
    }
    run.fail(Reason.ExecuteFailed, outcome, Events.PLANNED_FAILOVER_FAILED);
    return progress.toPlannedStatus();
  }

  // --- Signals and queries -------------------------------------------------------------------------

  @Override
  public void cancel(String reason) {
    FailoverRun.cancel(cancel, progress, run == null ? null : run.group, reason);
  }

  @Override
  public void sourceDied(String why) {
    FailoverRun.sourceDied(cancel, progress, run == null ? null : run.group, why);
  }

  @Override
  public PlannedFailoverStatus status() {
    return progress.toPlannedStatus();
  }

  private MysqlTarget server(Plan plan, SiteSpec site) {
    return MysqlTarget.of(run.group, plan.config(), site);
  }

  private static long lost(String fenced, String promoted) {
    return GtidSet.parse(fenced).subtract(GtidSet.parse(promoted)).count();
  }
}
