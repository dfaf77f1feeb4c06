package io.shipstream.failover.workflows.planned;

import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.PlannedFailoverAnnotation;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.workflows.activities.KubernetesActivities.GroupSnapshot;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.common.FailoverAbort;
import io.shipstream.failover.workflows.common.FailoverProgress;
import io.shipstream.failover.workflows.common.FailoverRun;
import io.shipstream.failover.workflows.contract.Events;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.CheckedRequest;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Decision;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Defer;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.ParsedRequest;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Plan;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Proceed;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Reject;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * The Scheduled, Validating and Deferred steps of the planned runbook: a request with a time waits
 * for it on a durable timer; then every site is inspected, the
 * {@link PlannedFailoverPlanner} decides, and a request held back by the anti-flap cooldown waits
 * on a durable timer and is validated again. Nothing has been touched yet, so a refusal is a
 * {@link FailoverAbort} that only finishes the workflow. Workflow code: its I/O goes through
 * activities, its wait is a timer.
 */
final class RequestValidation {
  private final FailoverRun run;

  RequestValidation(FailoverRun run) {
    this.run = run;
  }

  /** Returns the plan; throws a {@link FailoverAbort} when the request is refused or given up. */
  Plan validate(GroupSnapshot snapshot) {
    FailoverProgress progress = run.progress;
    // Parsed once for the whole request: the schedule, every validation and re-validation read it.
    ParsedRequest parsed = ParsedRequest.of(run.annotation);
    snapshot = waitForSchedule(snapshot, parsed);
    while (true) {
      run.enter(Phase.Validating, "validating request " + run.annotation);
      var pre = PlannedFailoverPlanner.precheck(snapshot, parsed);
      if (pre instanceof Reject reject) {
        throw refused(reject);
      }
      CheckedRequest request = (CheckedRequest) pre;
      progress.target = request.annotation().targetSite();
      progress.dragonflyEnabled = request.config().dragonflyEnabled();
      // The worker that runs the inspections keeps their connections: asked in the same workflow
      // task, as a local activity, so that worker answers.
      Promise<String> connections = Async.function(run.quickMysql::connectionsQueue);
      Map<String, ServerState> states = run.inspectAll(request.config(), request.config().sites());
      run.connectionsQueue = ownQueue(connections);
      Decision decision = PlannedFailoverPlanner.decide(request, snapshot.status(), states, FailoverRun.now());
      if (decision instanceof Proceed proceed) {
        progress.source = proceed.plan().source().name();
        ServerState target = states.get(progress.target);
        progress.targetGtidAtValidation = target == null ? null : target.gtidExecuted();
        progress.retryAfter = null;
        return proceed.plan();
      }
      if (decision instanceof Reject reject) {
        throw refused(reject);
      }
      waitOutCooldown((Defer) decision);
      snapshot = run.k8s.loadGroup(run.group);
      if (!run.annotation.equals(snapshot.annotation())) {
        // A value changed meanwhile is a new request, which the watcher starts once this one ends.
        throw new FailoverAbort(Reason.Cancelled, PlannedFailoverAnnotation.withdrawal(snapshot.annotation())
            + " while deferred");
      }
    }
  }

  /**
   * A request with a time ({@code at=}) waits for it on a durable timer, as Scheduled, having
   * touched nothing; returns the group as it is then, for the full validation. What can be refused
   * without a server is refused at once (an unknown site, say, or a time not ahead within {@link
   * PlannedFailoverAnnotation#MAX_SCHEDULE_AHEAD}, judged again here in workflow time in case the
   * start came late), not when the time comes. A request without a time, or a malformed one (which
   * Validating refuses), returns at once.
   */
  private GroupSnapshot waitForSchedule(GroupSnapshot snapshot, ParsedRequest parsed) {
    PlannedFailoverAnnotation request = parsed.annotation();
    if (request == null || request.at().isEmpty()) {
      return snapshot;
    }
    FailoverProgress progress = run.progress;
    Instant at = request.at().get();
    progress.scheduledAt = at;
    progress.target = request.targetSite();
    if (PlannedFailoverPlanner.precheck(snapshot, parsed) instanceof Reject reject) {
      throw refused(reject);
    }
    Optional<String> problem = request.scheduleProblem(FailoverRun.now());
    if (problem.isPresent()) {
      throw new FailoverAbort(Reason.InvalidSchedule, problem.get() + "; request refused");
    }
    String message = "switchover to " + request.targetSite() + " scheduled at " + at;
    run.enter(Phase.Scheduled, message);
    run.event(Events.PLANNED_FAILOVER_SCHEDULED, message);
    // The resource must say Scheduled, with scheduledAt, before the workflow sleeps for days.
    run.publisher.flush();
    Workflow.await(Duration.between(FailoverRun.now(), at), run.cancel::requested);
    run.checkNotCancelled("while scheduled");
    snapshot = run.k8s.loadGroup(run.group);
    if (!run.annotation.equals(snapshot.annotation())) {
      throw new FailoverAbort(Reason.Cancelled, PlannedFailoverAnnotation.withdrawal(snapshot.annotation())
          + " while scheduled");
    }
    // The switchover starts now: its duration (the status's, the metric's) is not the wait's.
    progress.startTime = FailoverRun.now();
    return snapshot;
  }

  /** Waits on a durable timer for the cooldown to end; aborts when cancelled meanwhile. */
  private void waitOutCooldown(Defer defer) {
    FailoverProgress progress = run.progress;
    progress.retryAfter = defer.retryAfter();
    progress.reason = Reason.CooldownActive;
    run.enter(Phase.Deferred, defer.message());
    run.event(Events.PLANNED_FAILOVER_DEFERRED, defer.message());
    // The resource must say Deferred, with retryAfter, before the workflow sleeps for minutes.
    run.publisher.flush();
    Duration wait = Duration.between(FailoverRun.now(), defer.retryAfter());
    Workflow.await(wait.isNegative() ? Duration.ZERO : wait, run.cancel::requested);
    progress.reason = null;
    run.checkNotCancelled("while deferred");
  }

  /** The worker's own queue; null (the shared queue) when it has none or could not say. */
  private static String ownQueue(Promise<String> connections) {
    try {
      return connections.get();
    } catch (ActivityFailure e) {
      return null;
    }
  }

  private FailoverAbort refused(Reject reject) {
    if (reject.target() != null) {
      run.progress.target = reject.target();
    }
    return new FailoverAbort(reject.reason(), reject.message());
  }
}
