package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.workflows.SearchAttributes;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.shipstream.failover.workflows.common.Failures;
import io.shipstream.failover.workflows.common.StatusPublisher;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Instant;
import org.slf4j.Logger;

/**
 * What every step of one emergency failover shares: the group, its progress, where the status
 * and Events go, and the ways a step reports (a phase change, a warning, a note that belongs in
 * the record). The runbook and its collaborators hold the same instance, so the status and the
 * Events keep the order in which the steps write them. Workflow code: it runs on the workflow
 * thread and its time is {@code Workflow.currentTimeMillis}.
 */
final class EmergencyRun {
  private static final Logger log = Workflow.getLogger(EmergencyRun.class);

  final GroupRef group;
  final EmergencyFailoverProgress progress;
  final StatusPublisher publisher;
  final KubernetesActivities k8s;
  final EmergencyFailoverMetrics metrics;

  EmergencyRun(GroupRef group, EmergencyFailoverProgress progress, StatusPublisher publisher,
      KubernetesActivities k8s, EmergencyFailoverMetrics metrics) {
    this.group = group;
    this.progress = progress;
    this.publisher = publisher;
    this.k8s = k8s;
    this.metrics = metrics;
  }

  void enter(EmergencyPhase phase, String message) {
    progress.phase = phase;
    log.info("{} emergency failover: {} ({})", group, phase, message);
    publisher.status(progress.toStatus());
    SearchAttributes.phase(phase.name(), progress.target);
  }

  void warn(String reason, String message) {
    progress.note(message);
    publisher.event("Warning", reason, message);
  }

  /** Like {@link #warn}, for what went right but belongs in the record. */
  void inform(String reason, String message) {
    progress.note(message);
    publisher.event("Normal", reason, message);
  }

  /** True when the step succeeded; a failure becomes a warning. */
  boolean settle(Promise<Void> step, String reason, String what) {
    try {
      step.get();
      return true;
    } catch (ActivityFailure e) {
      warn(reason, what + ": " + Failures.rootMessage(e));
      return false;
    }
  }

  static Instant now() {
    return Instant.ofEpochMilli(Workflow.currentTimeMillis());
  }
}
