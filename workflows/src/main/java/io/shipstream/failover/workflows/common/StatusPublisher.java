package io.shipstream.failover.workflows.common;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.WorkflowRef;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.shipstream.failover.workflows.activities.KubernetesActivities.EventNote;
import io.temporal.workflow.Async;
import io.temporal.workflow.Functions;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;

/**
 * Writes status and Events in the order they happened without putting the API server on the
 * failover's critical path: the writes run while the workflow goes on fencing and promoting.
 * {@link #flush()} waits for all of them; the workflow calls it before it ends so the resource
 * never lags behind the workflow's result.
 *
 * <p>Coalescing (workflows started since the {@link #COALESCED_CHANGE_ID} change): at most one
 * status write and one Event write are in flight. A status that arrives while one is being
 * written waits, and a newer one replaces it, so the resource goes straight to the latest phase
 * and only a phase that was already superseded is never written; Events are never dropped, those
 * that queued up go in one call. Each write of the local-activity runbooks holds up the workflow
 * task until it is done, so the fence or the promotion is scheduled a round trip or three sooner.
 * Before the change every status and Event was written one after another, each its own call.
 */
public final class StatusPublisher {
  private static final Logger log = Workflow.getLogger(StatusPublisher.class);
  /** The change id of coalesced status and batched Event writes, see the class comment. */
  public static final String COALESCED_CHANGE_ID = "coalesced-status-writes";

  private final KubernetesActivities k8s;
  private final GroupRef group;
  private final WorkflowRef workflow;
  private final boolean coalesce;
  private Promise<Void> tail;
  // Coalescing: the latest status not yet sent and whether a status write is in flight; the
  // Events not yet sent and whether an Event write is in flight.
  private Functions.Func<Promise<Void>> pendingStatus;
  private boolean statusInFlight;
  private final List<EventNote> pendingEvents = new ArrayList<>();
  private boolean eventsInFlight;

  /** Publishes as workflows did before the coalescing change: every write its own call, in order. */
  public StatusPublisher(KubernetesActivities k8s, GroupRef group, WorkflowRef workflow) {
    this(k8s, group, workflow, false);
  }

  public StatusPublisher(KubernetesActivities k8s, GroupRef group, WorkflowRef workflow, boolean coalesce) {
    this.k8s = k8s;
    this.group = group;
    this.workflow = workflow;
    this.coalesce = coalesce;
    this.tail = completed();
  }

  /**
   * Whether this run coalesces its writes: true for runs started on this code, false when
   * replaying a history recorded before the change. Call once, from the workflow method.
   */
  public static boolean coalescing() {
    return Workflow.getVersion(COALESCED_CHANGE_ID, Workflow.DEFAULT_VERSION, 1) >= 1;
  }

  public void status(PlannedFailoverStatus status) {
    write(() -> Async.procedure(k8s::writePlannedFailoverStatus, group, status, workflow));
  }

  public void status(EmergencyFailoverStatus status) {
    write(() -> Async.procedure(k8s::writeEmergencyFailoverStatus, group, status, workflow));
  }

  public void event(String type, String reason, String message) {
    if (!coalesce) {
      chain(() -> Async.procedure(k8s::emitEvent, group, type, reason, message));
      return;
    }
    pendingEvents.add(new EventNote(type, reason, message));
    sendEvents();
  }

  public void flush() {
    if (coalesce) {
      Workflow.await(() -> !statusInFlight && pendingStatus == null && !eventsInFlight && pendingEvents.isEmpty());
      return;
    }
    tail.handle((ignored, failure) -> {
      if (failure != null) {
        log.warn("status or event write failed for {}: {}", group, failure.getMessage());
      }
      return null;
    }).get();
  }

  private void write(Functions.Func<Promise<Void>> statusWrite) {
    if (!coalesce) {
      chain(statusWrite);
      return;
    }
    pendingStatus = statusWrite;
    sendStatus();
  }

  private void sendStatus() {
    if (statusInFlight || pendingStatus == null) {
      return;
    }
    Functions.Func<Promise<Void>> next = pendingStatus;
    pendingStatus = null;
    statusInFlight = true;
    next.apply().handle((ignored, failure) -> {
      logFailure(failure);
      statusInFlight = false;
      sendStatus();
      return null;
    });
  }

  private void sendEvents() {
    if (eventsInFlight || pendingEvents.isEmpty()) {
      return;
    }
    List<EventNote> batch = List.copyOf(pendingEvents);
    pendingEvents.clear();
    eventsInFlight = true;
    Async.procedure(k8s::emitEvents, group, batch).handle((ignored, failure) -> {
      logFailure(failure);
      eventsInFlight = false;
      sendEvents();
      return null;
    });
  }

  private void chain(Functions.Func<Promise<Void>> write) {
    // A write that failed for good (its retries exhausted) is logged and does not stop the ones
    // after it: a later, fresher status is worth more than the one that was lost.
    tail = tail.handle((ignored, failure) -> {
      logFailure(failure);
      return null;
    }).thenCompose(ignored -> write.apply());
  }

  private void logFailure(RuntimeException failure) {
    if (failure != null) {
      log.warn("status or event write failed for {}: {}", group, failure.getMessage());
    }
  }

  private static Promise<Void> completed() {
    var p = Workflow.<Void>newPromise();
    p.complete(null);
    return p;
  }
}
