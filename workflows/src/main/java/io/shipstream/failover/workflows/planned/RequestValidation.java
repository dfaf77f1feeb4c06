package io.shipstream.failover.workflows.planned;

import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.PlannedFailoverAnnotation;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.workflows.activities.KubernetesActivities.GroupSnapshot;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.CheckedRequest;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Decision;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Defer;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Plan;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Proceed;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Reject;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.Map;

/**
 * The Validating (and Deferred) step of the planned runbook: every site is inspected, the
 * {@link PlannedFailoverPlanner} decides, and a request held back by the anti-flap cooldown waits
 * on a durable timer and is validated again. Nothing has been touched yet, so a rejection only
 * finishes the workflow. Workflow code: its I/O goes through activities, its wait is a timer.
 */
final class RequestValidation {
  private final PlannedRun run;

  RequestValidation(PlannedRun run) {
    this.run = run;
  }

  /** Returns the plan, or null after finishing the workflow as Failed. */
  Plan validate(GroupSnapshot snapshot) {
    PlannedFailoverProgress progress = run.progress;
    while (true) {
      run.enter(Phase.Validating, "validating request " + run.annotation);
      var pre = PlannedFailoverPlanner.precheck(snapshot, run.annotation);
      if (pre instanceof Reject reject) {
        reject(reject);
        return null;
      }
      CheckedRequest request = (CheckedRequest) pre;
      progress.target = request.annotation().targetSite();
      progress.dragonflyEnabled = request.config().dragonflyEnabled();
      Map<String, ServerState> states = run.inspectAll(request.config().credentialsSecret(),
          request.config().sites());
      Decision decision = PlannedFailoverPlanner.decide(request, snapshot.status(), states, PlannedRun.now());
      if (decision instanceof Proceed proceed) {
        progress.sourcePrimary = proceed.plan().source().name();
        progress.retryAfter = null;
        return proceed.plan();
      }
      if (decision instanceof Reject reject) {
        reject(reject);
        return null;
      }
      Defer defer = (Defer) decision;
      if (!waitOutCooldown(defer)) {
        run.finishFailed(Reason.Cancelled, "cancelled while deferred: " + run.cancel.reason,
            "PlannedFailoverRejected");
        return null;
      }
      snapshot = run.k8s.loadGroup(run.group);
      if (!run.isStillRequested(snapshot)) {
        // A value changed meanwhile is a new request, which the watcher starts once this one ends.
        run.finishFailed(Reason.Cancelled, PlannedFailoverAnnotation.withdrawal(snapshot.annotation())
            + " while deferred", "PlannedFailoverRejected");
        return null;
      }
    }
  }

  /** Waits on a durable timer for the cooldown to end; false when cancelled meanwhile. */
  private boolean waitOutCooldown(Defer defer) {
    PlannedFailoverProgress progress = run.progress;
    progress.retryAfter = defer.retryAfter();
    progress.reason = Reason.CooldownActive;
    run.enter(Phase.Deferred, defer.message());
    run.publisher.event("Normal", "PlannedFailoverDeferred", defer.message());
    // The resource must say Deferred, with retryAfter, before the workflow sleeps for minutes.
    run.publisher.flush();
    Duration wait = Duration.between(PlannedRun.now(), defer.retryAfter());
    Workflow.await(wait.isNegative() ? Duration.ZERO : wait, () -> run.cancel.requested);
    progress.reason = null;
    return !run.cancel.requested;
  }

  private void reject(Reject reject) {
    if (reject.target() != null) {
      run.progress.target = reject.target();
    }
    String eventReason = reject.reason() == Reason.AlreadyActive ? "PlannedFailoverSkipped" : "PlannedFailoverRejected";
    run.finishFailed(reject.reason(), reject.message(), eventReason);
  }
}
