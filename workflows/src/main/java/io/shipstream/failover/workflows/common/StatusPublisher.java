package io.shipstream.failover.workflows.common;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.WorkflowRef;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.shipstream.failover.workflows.activities.KubernetesActivities.EventNote;
import io.shipstream.failover.workflows.contract.Events;
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
 * <p>At most one status write and one Event write are in flight. A status that arrives while one
 * is being written waits, and a newer one replaces it, so the resource goes straight to the latest
 * phase and only a phase that was already superseded is never written; Events are never dropped,
 * those that queued up go in one call. Each write of the local-activity runbooks holds up the
 * workflow task until it is done, so the fence or the promotion is scheduled a round trip or three
 * sooner than with every write its own call.
 *
 * <p>While the application's writes are stopped ({@link #holdForTheWindow}), every write waits: a
 * local activity would hold up the workflow task that schedules the next step of the window (the
 * lag gate, the promotion) until the API server answered, and on a busy worker even an ordinary
 * activity beside the step competes with it for the worker and the server. Held writes go out
 * when the window closes ({@link #release}), or as ordinary activities if it stays open long
 * enough to be worth showing ({@link #releaseAside}: a lagging target).
 */
public final class StatusPublisher {
  private static final Logger log = Workflow.getLogger(StatusPublisher.class);

  private final KubernetesActivities local;
  private final KubernetesActivities aside;
  // The stub of the next write; null while writes are held.
  private KubernetesActivities k8s;
  private final GroupRef group;
  private final WorkflowRef workflow;
  // The latest status not yet sent and whether a status write is in flight; the Events not yet
  // sent and whether an Event write is in flight.
  private Functions.Func<Promise<Void>> pendingStatus;
  private boolean statusInFlight;
  private final List<EventNote> pendingEvents = new ArrayList<>();
  private boolean eventsInFlight;

  /**
   * @param local the stub of the writes in general (local activities in the runbooks)
   * @param aside the stub of the writes of a long write window ({@link #releaseAside}): ordinary
   *     activities, which run beside the step the workflow waits for
   */
  public StatusPublisher(KubernetesActivities local, KubernetesActivities aside, GroupRef group, WorkflowRef workflow) {
    this.local = local;
    this.aside = aside;
    this.k8s = local;
    this.group = group;
    this.workflow = workflow;
  }

  /**
   * From the fence on: writes queue up (a newer status still replaces a waiting one, Events still
   * accumulate) and none is sent. Writes already in flight finish where they started.
   */
  public void holdForTheWindow() {
    k8s = null;
  }

  /** The window is still open after a while: what waits, and what comes, goes as ordinary activities. */
  public void releaseAside() {
    send(aside);
  }

  /** The window has closed: what waits goes out, and writes are local activities again. */
  public void release() {
    send(local);
  }

  private void send(KubernetesActivities through) {
    k8s = through;
    sendStatus();
    sendEvents();
  }

  public void status(PlannedFailoverStatus status) {
    write(() -> Async.procedure(k8s::writePlannedFailoverStatus, group, status, workflow));
  }

  public void status(EmergencyFailoverStatus status) {
    write(() -> Async.procedure(k8s::writeEmergencyFailoverStatus, group, status, workflow));
  }

  public void event(Events event, String message) {
    pendingEvents.add(new EventNote(event.type().name(), event.reason(), message));
    sendEvents();
  }

  public void flush() {
    if (k8s == null) {
      release();
    }
    Workflow.await(() -> !statusInFlight && pendingStatus == null && !eventsInFlight && pendingEvents.isEmpty());
  }

  private void write(Functions.Func<Promise<Void>> statusWrite) {
    pendingStatus = statusWrite;
    sendStatus();
  }

  private void sendStatus() {
    if (k8s == null || statusInFlight || pendingStatus == null) {
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
    if (k8s == null || eventsInFlight || pendingEvents.isEmpty()) {
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

  private void logFailure(RuntimeException failure) {
    // A write that failed for good (its retries exhausted) is logged and does not stop the ones
    // after it: a later, fresher status is worth more than the one that was lost.
    if (failure != null) {
      log.warn("status or event write failed for {}: {}", group, failure.getMessage());
    }
  }
}
