package io.shipstream.failover.workflows.common;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.WorkflowRef;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import org.slf4j.Logger;

/**
 * Writes status and Events in the order they happened without putting the API server on the
 * failover's critical path: each write is chained after the previous one and runs while the
 * workflow goes on fencing and promoting. {@link #flush()} waits for all of them; the workflow
 * calls it before it ends so the resource never lags behind the workflow's result.
 */
public final class StatusPublisher {
  private static final Logger log = Workflow.getLogger(StatusPublisher.class);

  private final KubernetesActivities k8s;
  private final GroupRef group;
  private final WorkflowRef workflow;
  private Promise<Void> tail;

  public StatusPublisher(KubernetesActivities k8s, GroupRef group, WorkflowRef workflow) {
    this.k8s = k8s;
    this.group = group;
    this.workflow = workflow;
    this.tail = completed();
  }

  public void status(PlannedFailoverStatus status) {
    chain(() -> Async.procedure(k8s::writePlannedFailoverStatus, group, status, workflow));
  }

  public void status(EmergencyFailoverStatus status) {
    chain(() -> Async.procedure(k8s::writeEmergencyFailoverStatus, group, status, workflow));
  }

  public void event(String type, String reason, String message) {
    chain(() -> Async.procedure(k8s::emitEvent, group, type, reason, message));
  }

  public void flush() {
    tail.handle((ignored, failure) -> {
      if (failure != null) {
        log.warn("status or event write failed for {}: {}", group, failure.getMessage());
      }
      return null;
    }).get();
  }

  private void chain(java.util.function.Supplier<Promise<Void>> write) {
    // A write that failed for good (its retries exhausted) is logged and does not stop the ones
    // after it: a later, fresher status is worth more than the one that was lost.
    tail = tail.handle((ignored, failure) -> {
      if (failure != null) {
        log.warn("status or event write failed for {}: {}", group, failure.getMessage());
      }
      return null;
    }).thenCompose(ignored -> write.get());
  }

  private static Promise<Void> completed() {
    var p = Workflow.<Void>newPromise();
    p.complete(null);
    return p;
  }
}
