package io.shipstream.failover.workflows.planned;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.workflows.SearchAttributes;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.shipstream.failover.workflows.activities.KubernetesActivities.GroupSnapshot;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.common.Failures;
import io.shipstream.failover.workflows.common.StatusPublisher;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Plan;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Functions;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

/**
 * What every step of one planned failover shares: the group and its request, the progress, where
 * the status and Events go, the short-call stubs chosen for this history, the cancel request, and
 * the ways a step reports (a phase change, a warning, the Failed outcome). The runbook and its
 * collaborators hold the same instance, so the status and the Events keep the order in which the
 * steps write them. Workflow code: it runs on the workflow thread and its time is
 * {@code Workflow.currentTimeMillis}.
 */
final class PlannedRun {
  // The runbook's logger name, kept so that log configuration written for it still applies.
  private static final Logger log = Workflow.getLogger(PlannedFailoverWorkflowImpl.class);

  final GroupRef group;
  final String annotation;
  final PlannedFailoverProgress progress;
  final StatusPublisher publisher;
  final KubernetesActivities k8s;
  /** The inspection and the re-pointing: a local activity on histories that have them, see the runbook. */
  final MysqlActivities quickMysql;
  final FailoverMetrics metrics;
  final CancelRequest cancel;

  PlannedRun(GroupRef group, String annotation, PlannedFailoverProgress progress, StatusPublisher publisher,
      KubernetesActivities k8s, MysqlActivities quickMysql, FailoverMetrics metrics, CancelRequest cancel) {
    this.group = group;
    this.annotation = annotation;
    this.progress = progress;
    this.publisher = publisher;
    this.k8s = k8s;
    this.quickMysql = quickMysql;
    this.metrics = metrics;
    this.cancel = cancel;
  }

  void enter(Phase phase, String message) {
    progress.phase = phase;
    log.info("{} planned failover: {} ({})", group, phase, message);
    publisher.status(progress.toStatus());
    SearchAttributes.phase(phase, progress.target);
  }

  void warn(String reason, String message) {
    progress.message = progress.message == null ? message : progress.message + "; " + message;
    publisher.event("Warning", reason, message);
  }

  /** Waits for a step that cannot undo the promotion; its failure becomes a warning. */
  void settle(Promise<Void> step, String reason, String what) {
    try {
      step.get();
    } catch (ActivityFailure e) {
      warn(reason, what + ": " + Failures.rootMessage(e));
    }
  }

  /** Runs an activity in a scope that the cancel signal cancels, so a long wait stops at once. */
  <T> T cancellable(Functions.Func<Promise<T>> call) {
    List<Promise<T>> holder = new ArrayList<>(1);
    CancellationScope scope = Workflow.newCancellationScope(() -> holder.add(call.apply()));
    scope.run();
    Promise<T> promise = holder.get(0);
    Workflow.await(() -> promise.isCompleted() || cancel.requested);
    if (!promise.isCompleted()) {
      scope.cancel(cancel.reason);
      throw new FailoverAbort(Reason.Cancelled, "cancelled in " + progress.phase + ": " + cancel.reason);
    }
    return promise.get();
  }

  void checkNotCancelled() {
    if (cancel.requested) {
      throw new FailoverAbort(Reason.Cancelled, "cancelled before promotion: " + cancel.reason);
    }
  }

  void finishFailed(Reason reason, String message, String eventReason) {
    progress.phase = Phase.Failed;
    progress.reason = reason;
    progress.message = message;
    progress.completionTime = now();
    publisher.status(progress.toStatus());
    publisher.event("Warning", eventReason, reason + ": " + message);
    String result = switch (reason) {
      case LagTimeout -> "failed_timeout";
      case InvalidAnnotation, UnknownSite, AlreadyActive, TargetUnhealthy, NoActivePrimary, CooldownActive,
          ConcurrentOperation, InvalidSpec -> "rejected";
      default -> "failed_other";
    };
    metrics.finished(progress.target, result, Duration.between(progress.startTime, progress.completionTime));
    finish();
  }

  /** Clears the annotation (unless the user changed it meanwhile) and waits for every write. */
  PlannedFailoverStatus finish() {
    publisher.flush();
    try {
      k8s.clearAnnotation(group, annotation);
    } catch (ActivityFailure e) {
      log.warn("could not clear the planned-failover annotation of {}: {}", group, Failures.rootMessage(e));
    }
    return progress.toStatus();
  }

  /**
   * Inspects the sites at once, so a slow site costs its own timeout, not the sum of all; a read
   * that fails counts as an unreachable server. By site name, in the order given.
   */
  Map<String, ServerState> inspectAll(String credentialsSecret, List<SiteSpec> sites) {
    Map<String, Promise<ServerState>> pending = new LinkedHashMap<>();
    for (SiteSpec site : sites) {
      pending.put(site.name(), Async.function(quickMysql::inspect, target(credentialsSecret, site)));
    }
    Map<String, ServerState> states = new LinkedHashMap<>();
    pending.forEach((name, promise) -> {
      try {
        states.put(name, promise.get());
      } catch (ActivityFailure e) {
        states.put(name, ServerState.unreachable(name, Failures.rootMessage(e)));
      }
    });
    return states;
  }

  boolean isStillRequested(GroupSnapshot snapshot) {
    return annotation != null && annotation.equals(snapshot.annotation());
  }

  MysqlTarget target(Plan plan, SiteSpec site) {
    return target(plan.config().credentialsSecret(), site);
  }

  MysqlTarget target(String secret, SiteSpec site) {
    return new MysqlTarget(group, site.name(), site.mysql().host(), GroupConfig.mysqlPort(site), secret);
  }

  static Instant now() {
    return Instant.ofEpochMilli(Workflow.currentTimeMillis());
  }
}
