package io.shipstream.failover.dev;

import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityInput;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityOutput;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;

/**
 * One workflow's run, call by call: every activity the worker ran for it (local or not, from the
 * worker's side, with its start and end) beside the workflow tasks and activity events of its
 * history. The benchmark prints it for its last run so that a gap between two steps has a name.
 * A worker interceptor: install it with {@link ControlPlane#addWorkerInterceptor} before the
 * worker starts.
 */
final class CallTimeline extends ActivityObserver {
  private record Call(String workflowId, String name, boolean local, long startMs, long endMs, Object result) {}

  private record Mark(String workflowId, String what, long atMs) {}

  private final ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Mark> marks = new ConcurrentLinkedQueue<>();

  /** A moment seen outside the worker (the annotation patched, Succeeded read back), for {@link #describe}. */
  void mark(String workflowId, String what, long atMs) {
    marks.add(new Mark(workflowId, what, atMs));
  }

  @Override
  protected ActivityOutput observe(ActivityExecutionContext context, ActivityInput input,
      Function<ActivityInput, ActivityOutput> proceed) {
    long start = System.currentTimeMillis();
    Object result = null;
    try {
      ActivityOutput output = proceed.apply(input);
      result = output.getResult();
      return output;
    } finally {
      var info = context.getInfo();
      calls.add(new Call(info.getWorkflowId(), info.getActivityType(), info.isLocal(), start,
          System.currentTimeMillis(), result));
    }
  }

  /**
   * The server-side window of the run of {@code workflowId} that started at {@code sinceMs} or
   * later: from the fence applied on the source (its first fence) to the target writable (its last
   * promotion), as the activities estimated them; null when either is missing.
   */
  java.time.Duration serverWindow(String workflowId, long sinceMs) {
    java.time.Instant fenced = null;
    java.time.Instant writable = null;
    for (Call c : calls) {
      if (!c.workflowId().equals(workflowId) || c.startMs() < sinceMs) {
        continue;
      }
      if (fenced == null && c.result() instanceof MysqlActivities.FenceResult f) {
        fenced = f.fencedAt();
      } else if (c.result() instanceof MysqlActivities.PromoteResult p && p.writableAt() != null) {
        writable = p.writableAt();
      }
    }
    return fenced == null || writable == null ? null : java.time.Duration.between(fenced, writable);
  }

  /** Forgets what was recorded so far (the warm-up runs). */
  void clear() {
    calls.clear();
    marks.clear();
  }

  /**
   * The latest run of {@code workflowId} as text: one line per event, its time from the run's
   * first event, in time order.
   */
  String describe(WorkflowClient client, String workflowId) {
    List<HistoryEvent> events = client.fetchHistory(workflowId).getEvents();
    if (events.isEmpty()) {
      return workflowId + ": no history\n";
    }
    long origin = millis(events.get(0));
    record Line(long at, String text) {}
    List<Line> lines = new ArrayList<>();
    for (HistoryEvent e : events) {
      String what = switch (e.getEventType()) {
        case EVENT_TYPE_WORKFLOW_TASK_SCHEDULED -> "workflow task scheduled";
        case EVENT_TYPE_WORKFLOW_TASK_STARTED -> "workflow task started";
        case EVENT_TYPE_WORKFLOW_TASK_COMPLETED -> "workflow task completed";
        case EVENT_TYPE_ACTIVITY_TASK_SCHEDULED ->
          "activity scheduled " + e.getActivityTaskScheduledEventAttributes().getActivityType().getName();
        case EVENT_TYPE_ACTIVITY_TASK_COMPLETED -> "activity completed (event "
            + e.getActivityTaskCompletedEventAttributes().getScheduledEventId() + ")";
        case EVENT_TYPE_MARKER_RECORDED -> "marker " + e.getMarkerRecordedEventAttributes().getMarkerName();
        default -> e.getEventType().name().replace("EVENT_TYPE_", "").toLowerCase();
      };
      lines.add(new Line(millis(e) - origin, "history  #" + e.getEventId() + " " + what));
    }
    long end = lines.get(lines.size() - 1).at();
    for (Call c : calls) {
      long start = c.startMs() - origin;
      if (c.workflowId().equals(workflowId) && start >= -1000 && start <= end + 1000) {
        lines.add(new Line(start, String.format("worker   %s %s: %d ms (until %d)", c.local() ? "local" : "activity",
            c.name(), c.endMs() - c.startMs(), c.endMs() - origin)));
      }
    }
    for (Mark m : marks) {
      long at = m.atMs() - origin;
      if (m.workflowId().equals(workflowId) && at >= -5000 && at <= end + 5000) {
        lines.add(new Line(at, "client   " + m.what()));
      }
    }
    lines.sort(Comparator.comparingLong(Line::at));
    StringBuilder out = new StringBuilder(workflowId + ", call by call (ms from the workflow's start)\n");
    lines.forEach(l -> out.append(String.format("%6d  %s%n", l.at(), l.text())));
    return out.toString();
  }

  private static long millis(HistoryEvent e) {
    return e.getEventTime().getSeconds() * 1000 + e.getEventTime().getNanos() / 1_000_000;
  }
}
