package io.shipstream.failover.dev;

import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a failover's time went, read from the workflows' histories: how long workflow tasks and
 * activity tasks waited to be picked up, how long the worker spent on each workflow task, and how
 * long each kind of activity ran. The benchmarks print it under their numbers, so a missed goal
 * comes with the reason.
 */
public final class HistoryProfile {
  private final List<Double> workflowTaskQueued = new ArrayList<>();
  private final List<Double> workflowTaskRun = new ArrayList<>();
  private final List<Double> activityQueued = new ArrayList<>();
  private final Map<String, List<Double>> activityRun = new TreeMap<>();
  private int workflows;

  /** Adds the latest run of each workflow id. */
  static HistoryProfile of(WorkflowClient client, List<String> workflowIds) {
    HistoryProfile p = new HistoryProfile();
    for (String id : workflowIds) {
      p.add(client.fetchHistory(id).getEvents());
    }
    return p;
  }

  /** A stuck workflow as an operator would look at it: its pending activities and last events. */
  public static String describe(WorkflowClient client, String workflowId) {
    StringBuilder d = new StringBuilder(workflowId);
    try {
      var response = client.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
          io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest.newBuilder().setNamespace("default")
              .setExecution(io.temporal.api.common.v1.WorkflowExecution.newBuilder().setWorkflowId(workflowId))
              .build());
      d.append(" status ").append(response.getWorkflowExecutionInfo().getStatus());
      response.getPendingActivitiesList().forEach(a -> d.append("\n  pending ").append(a.getActivityType().getName())
          .append(" state ").append(a.getState()).append(" attempt ").append(a.getAttempt())
          .append(a.hasLastFailure() ? " last failure " + a.getLastFailure().getMessage() : ""));
      if (response.hasPendingWorkflowTask()) {
        d.append("\n  pending workflow task ").append(response.getPendingWorkflowTask().getState())
            .append(" attempt ").append(response.getPendingWorkflowTask().getAttempt());
      }
      List<HistoryEvent> events = client.fetchHistory(workflowId).getEvents();
      events.subList(Math.max(0, events.size() - 25), events.size()).forEach(e -> d.append("\n  event ")
          .append(e.getEventId()).append(' ').append(e.getEventType()).append(detail(e)));
    } catch (RuntimeException e) {
      d.append(": cannot describe: ").append(e.getMessage());
    }
    return d.toString();
  }

  /** What an event of a stuck run says beyond its type: the activity, or why a workflow task failed. */
  private static String detail(HistoryEvent e) {
    if (e.hasActivityTaskScheduledEventAttributes()) {
      return " " + e.getActivityTaskScheduledEventAttributes().getActivityType().getName();
    }
    if (e.hasWorkflowTaskFailedEventAttributes()) {
      return " " + e.getWorkflowTaskFailedEventAttributes().getCause() + " "
          + e.getWorkflowTaskFailedEventAttributes().getFailure().getMessage();
    }
    return "";
  }

  private void add(List<HistoryEvent> events) {
    workflows++;
    Map<Long, Long> at = new HashMap<>();
    Map<Long, String> type = new HashMap<>();
    for (HistoryEvent e : events) {
      at.put(e.getEventId(), e.getEventTime().getSeconds() * 1000 + e.getEventTime().getNanos() / 1_000_000);
    }
    long workflowTaskStarted = -1;
    for (HistoryEvent e : events) {
      long ms = at.get(e.getEventId());
      switch (e.getEventType()) {
        case EVENT_TYPE_WORKFLOW_TASK_STARTED -> {
          since(at, e.getWorkflowTaskStartedEventAttributes().getScheduledEventId(), ms, workflowTaskQueued);
          workflowTaskStarted = ms;
        }
        // A workflow task completes right after its start in event order; the test server does
        // not fill in startedEventId.
        case EVENT_TYPE_WORKFLOW_TASK_COMPLETED -> {
          if (workflowTaskStarted >= 0) {
            workflowTaskRun.add((double) ms - workflowTaskStarted);
          }
        }
        case EVENT_TYPE_ACTIVITY_TASK_SCHEDULED ->
          type.put(e.getEventId(), e.getActivityTaskScheduledEventAttributes().getActivityType().getName());
        case EVENT_TYPE_ACTIVITY_TASK_STARTED ->
          since(at, e.getActivityTaskStartedEventAttributes().getScheduledEventId(), ms, activityQueued);
        case EVENT_TYPE_ACTIVITY_TASK_COMPLETED -> {
          var c = e.getActivityTaskCompletedEventAttributes();
          since(at, c.getStartedEventId(), ms,
              activityRun.computeIfAbsent(String.valueOf(type.get(c.getScheduledEventId())), k -> new ArrayList<>()));
        }
        default -> {}
      }
    }
  }

  private static void row(StringBuilder t, String name, List<Double> values) {
    t.append(values.isEmpty() ? "| " + name + " | - | - | - |\n" : BenchmarkTable.row(name, values));
  }

  /**
   * Adds the time since an earlier event. The test server writes an activity's Started event
   * together with its completion, after events that happened later, so the map is filled first.
   */
  private static void since(Map<Long, Long> at, long earlierId, long ms, List<Double> into) {
    Long earlier = at.get(earlierId);
    if (earlier != null) {
      into.add((double) ms - earlier);
    }
  }

  String table() {
    StringBuilder t = new StringBuilder(String.format("where the time went (%d workflows, %.0f workflow tasks and %d"
        + " activities each)%n", workflows, workflowTaskRun.size() / (double) workflows,
        activityRun.values().stream().mapToInt(List::size).sum() / workflows));
    t.append(BenchmarkTable.header());
    row(t, "workflow task: scheduled -> picked up (ms)", workflowTaskQueued);
    row(t, "workflow task: worker processing (ms)", workflowTaskRun);
    row(t, "activity: scheduled -> picked up (ms)", activityQueued);
    activityRun.forEach((name, runs) -> row(t, "activity " + name + " (ms)", runs));
    return t.toString();
  }
}
