package io.shipstream.failover.workflows.release;

import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.WorkflowReplayer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Cuts the history of a run that waits or works (Scheduled, Deferred, a lag gate, a promotion, a
 * rollback, a wait for the old primary's proof), as the server hands it to a new worker that takes
 * the run over: fetched from the test server while the run is in flight, at a point where no
 * workflow task is pending (the last workflow task completed and its commands written), so that it
 * is exactly the prefix a new worker replays. Each cut is replayed against the code as it is now;
 * with {@code -Dhistory.dir=...} it is also stored there as {@code partial-<name>.json}.
 */
public final class InFlightCut {
  /** The file name prefix of an in-flight history; the others ran to their end. */
  public static final String PARTIAL_PREFIX = "partial-";

  /** The workflow implementations a worker hosts: every history is replayed with all of them. */
  public static final List<Class<?>> WORKFLOWS = List.of(
      io.shipstream.failover.workflows.planned.PlannedFailoverWorkflowImpl.class,
      io.shipstream.failover.workflows.emergency.EmergencyFailoverWorkflowImpl.class,
      io.shipstream.failover.workflows.dryrun.DryRunWorkflowImpl.class);

  private static final Set<EventType> CLOSED = Set.of(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
      EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
      EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
      EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW);

  /** How long the history must stay unchanged, with no workflow task pending, to be cut. */
  private static final long QUIET_MILLIS = 600;

  private InFlightCut() {}

  /**
   * Waits (20 s at most) until the run's history, with no workflow task pending and unchanged for
   * a moment, satisfies {@code reached}; replays it, stores it if asked, and returns it.
   */
  public static WorkflowExecutionHistory cut(WorkflowClient client, String workflowId, String name,
      Predicate<WorkflowExecutionHistory> reached, String what) throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    WorkflowExecutionHistory last = null;
    long quietSince = 0;
    while (true) {
      WorkflowExecutionHistory now = client.fetchHistory(workflowId);
      long at = System.nanoTime();
      if (last == null || now.getEvents().size() != last.getEvents().size()) {
        quietSince = at;
      }
      last = now;
      if (isClosed(now)) {
        throw new AssertionError("the run ended before " + what + ": " + describe(now));
      }
      if (!taskPending(now) && at - quietSince >= TimeUnit.MILLISECONDS.toNanos(QUIET_MILLIS) && reached.test(now)) {
        break;
      }
      if (at > until) {
        throw new AssertionError("never cut " + what + "; the history: " + describe(now));
      }
      Thread.sleep(50);
    }
    replay(last);
    String dir = System.getProperty("history.dir");
    if (dir != null) {
      Files.writeString(Path.of(dir, PARTIAL_PREFIX + name + ".json"), last.toJson(true));
    }
    return last;
  }

  /** Replays {@code history} with every workflow implementation a worker hosts. */
  public static void replay(WorkflowExecutionHistory history) throws Exception {
    WorkflowReplayer.replayWorkflowExecution(history, WORKFLOWS.get(0),
        WORKFLOWS.subList(1, WORKFLOWS.size()).toArray(Class<?>[]::new));
  }

  /**
   * The same history with every scheduled {@code from} activity named {@code to}: a worker whose
   * code calls another activity at that point, which a replay must refuse.
   */
  public static WorkflowExecutionHistory renamingActivity(WorkflowExecutionHistory history, String from, String to) {
    List<HistoryEvent> events = new ArrayList<>();
    for (HistoryEvent e : history.getEvents()) {
      if (e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
          && e.getActivityTaskScheduledEventAttributes().getActivityType().getName().equals(from)) {
        e = e.toBuilder()
            .setActivityTaskScheduledEventAttributes(e.getActivityTaskScheduledEventAttributes().toBuilder()
                .setActivityType(io.temporal.api.common.v1.ActivityType.newBuilder().setName(to)))
            .build();
      }
      events.add(e);
    }
    return new WorkflowExecutionHistory(io.temporal.api.history.v1.History.newBuilder().addAllEvents(events).build(),
        history.getWorkflowExecution().getWorkflowId());
  }

  /** Whether the run's history ends with its close (completed, failed, cancelled, ...). */
  public static boolean isClosed(WorkflowExecutionHistory history) {
    List<HistoryEvent> events = history.getEvents();
    return !events.isEmpty() && CLOSED.contains(events.get(events.size() - 1).getEventType());
  }

  /** A workflow task scheduled or started and not completed yet: a cut there is not what a new worker replays. */
  static boolean taskPending(WorkflowExecutionHistory history) {
    long lastCompleted = -1;
    long lastOpened = -1;
    for (HistoryEvent e : history.getEvents()) {
      switch (e.getEventType()) {
        case EVENT_TYPE_WORKFLOW_TASK_COMPLETED -> lastCompleted = e.getEventId();
        case EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, EVENT_TYPE_WORKFLOW_TASK_STARTED -> lastOpened = e.getEventId();
        default -> {}
      }
    }
    return lastCompleted < lastOpened;
  }

  /** The activity types scheduled and not ended (completed, failed, timed out or cancelled) in the history. */
  public static List<String> openActivities(WorkflowExecutionHistory history) {
    Map<Long, String> open = new HashMap<>();
    for (HistoryEvent e : history.getEvents()) {
      switch (e.getEventType()) {
        case EVENT_TYPE_ACTIVITY_TASK_SCHEDULED ->
          open.put(e.getEventId(), e.getActivityTaskScheduledEventAttributes().getActivityType().getName());
        case EVENT_TYPE_ACTIVITY_TASK_COMPLETED ->
          open.remove(e.getActivityTaskCompletedEventAttributes().getScheduledEventId());
        case EVENT_TYPE_ACTIVITY_TASK_FAILED ->
          open.remove(e.getActivityTaskFailedEventAttributes().getScheduledEventId());
        case EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT ->
          open.remove(e.getActivityTaskTimedOutEventAttributes().getScheduledEventId());
        case EVENT_TYPE_ACTIVITY_TASK_CANCELED ->
          open.remove(e.getActivityTaskCanceledEventAttributes().getScheduledEventId());
        default -> {}
      }
    }
    return new ArrayList<>(open.values());
  }

  /** The activity types that completed in the history, in order. */
  public static List<String> completedActivities(WorkflowExecutionHistory history) {
    Map<Long, String> scheduled = new HashMap<>();
    List<String> completed = new ArrayList<>();
    for (HistoryEvent e : history.getEvents()) {
      if (e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
        scheduled.put(e.getEventId(), e.getActivityTaskScheduledEventAttributes().getActivityType().getName());
      } else if (e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) {
        completed.add(scheduled.get(e.getActivityTaskCompletedEventAttributes().getScheduledEventId()));
      }
    }
    return completed;
  }

  /** Whether a timer was started and has neither fired nor been cancelled. */
  public static boolean timerRunning(WorkflowExecutionHistory history) {
    Map<String, Boolean> running = new HashMap<>();
    for (HistoryEvent e : history.getEvents()) {
      switch (e.getEventType()) {
        case EVENT_TYPE_TIMER_STARTED -> running.put(e.getTimerStartedEventAttributes().getTimerId(), true);
        case EVENT_TYPE_TIMER_FIRED -> running.remove(e.getTimerFiredEventAttributes().getTimerId());
        case EVENT_TYPE_TIMER_CANCELED -> running.remove(e.getTimerCanceledEventAttributes().getTimerId());
        default -> {}
      }
    }
    return !running.isEmpty();
  }

  /** The history's events as "id type" lines, and the open activities, for a failure message. */
  public static String describe(WorkflowExecutionHistory history) {
    StringBuilder out = new StringBuilder();
    for (HistoryEvent e : history.getEvents()) {
      out.append('\n').append(e.getEventId()).append(' ').append(e.getEventType());
      if (e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
        out.append(' ').append(e.getActivityTaskScheduledEventAttributes().getActivityType().getName());
      } else if (e.getEventType() == EventType.EVENT_TYPE_TIMER_STARTED) {
        out.append(' ').append(e.getTimerStartedEventAttributes().getStartToFireTimeout().getSeconds()).append(" s");
      }
    }
    return out.append("\nopen activities: ").append(openActivities(history)).toString();
  }
}
