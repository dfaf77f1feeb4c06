package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.util.Timestamps;
import io.temporal.api.common.v1.ActivityType;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.TimeoutType;
import io.temporal.api.history.v1.ActivityTaskScheduledEventAttributes;
import io.temporal.api.history.v1.ActivityTaskStartedEventAttributes;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.history.v1.WorkflowTaskStartedEventAttributes;
import io.temporal.api.history.v1.WorkflowTaskTimedOutEventAttributes;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What {@link LeaderOutage#stuck} reads from a failover's history: the tasks that waited out a timeout. */
class LeaderOutageTest {
  @Test
  void countsTimedOutWorkflowTasksAndActivitiesRunOnARetryWithTheirWaits() {
    List<HistoryEvent> history = List.of(
        event(1, 0, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED),
        event(2, 0, EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED),
        event(3, 5, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED).toBuilder()
            .setWorkflowTaskStartedEventAttributes(WorkflowTaskStartedEventAttributes.newBuilder()
                .setIdentity("worker-dr"))
            .build(),
        event(4, 10_005, EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT).toBuilder()
            .setWorkflowTaskTimedOutEventAttributes(WorkflowTaskTimedOutEventAttributes.newBuilder()
                .setScheduledEventId(2).setStartedEventId(3).setTimeoutType(TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE))
            .build(),
        event(7, 10_100, EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED).toBuilder()
            .setActivityTaskScheduledEventAttributes(ActivityTaskScheduledEventAttributes.newBuilder()
                .setActivityId("7").setActivityType(ActivityType.newBuilder().setName("Inspect")))
            .build(),
        event(8, 25_200, EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED).toBuilder()
            .setActivityTaskStartedEventAttributes(ActivityTaskStartedEventAttributes.newBuilder()
                .setScheduledEventId(7).setAttempt(2))
            .build(),
        event(10, 25_300, EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED).toBuilder()
            .setActivityTaskScheduledEventAttributes(ActivityTaskScheduledEventAttributes.newBuilder()
                .setActivityId("10").setActivityType(ActivityType.newBuilder().setName("Fence")))
            .build(),
        event(11, 25_310, EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED).toBuilder()
            .setActivityTaskStartedEventAttributes(ActivityTaskStartedEventAttributes.newBuilder()
                .setScheduledEventId(10).setAttempt(2))
            .build());

    // Fence's first attempt ran and failed (its server did not answer): an ordinary retry. Inspect's
    // first attempt no worker began: it went to a poll of the cut-off worker.
    LeaderOutage.Stuck stuck = LeaderOutage.stuck(history, Set.of("10#1", "10#2", "7#2"));

    assertThat(stuck.workflowTasksTimedOut()).isEqualTo(1);
    assertThat(stuck.longestWorkflowTaskMs()).isEqualTo(10_000);
    assertThat(stuck.activityAttemptsLost()).as("Fence's failed attempt was begun").isEqualTo(1);
    assertThat(stuck.longestActivityWaitMs()).isEqualTo(15_100);
    assertThat(stuck.detail()).contains("workflow task handed to worker-dr timed out (start_to_close) after 10000 ms")
        .contains("Inspect attempt 1 begun by no worker, attempt 2 ran 15100 ms after it was scheduled")
        .doesNotContain("Fence");
  }

  @Test
  void aHistoryWithNothingStuckSaysSo() {
    LeaderOutage.Stuck stuck = LeaderOutage.stuck(List.of(event(1, 0, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED)),
        Set.of());
    assertThat(stuck.workflowTasksTimedOut()).isZero();
    assertThat(stuck.activityAttemptsLost()).isZero();
    assertThat(stuck.detail()).isEqualTo("no task waited out a timeout");
  }

  private static HistoryEvent event(long id, long ms, EventType type) {
    return HistoryEvent.newBuilder().setEventId(id).setEventType(type).setEventTime(Timestamps.fromMillis(ms)).build();
  }
}
