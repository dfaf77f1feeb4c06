package io.shipstream.failover.workflows.planned;

import io.temporal.testing.WorkflowReplayer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The guard of every change to the planned runbook: histories recorded from the first release
 * (0.1.0), which has no {@code Workflow.getVersion} gate, must replay against the current
 * implementation, because failovers that are running while a new worker is rolled out resume on
 * the new code. A change that breaks one of these is a change of the runbook's commands: it goes
 * behind {@code Workflow.getVersion}, keeping the recorded path, and gets histories of its own;
 * the stored ones are never re-recorded to make such a change pass. They were recorded by
 * {@code PlannedFailoverWorkflowTest#historiesReplayDeterministically} and {@code
 * PlannedFailoverDragonflyTest#historiesReplayDeterministically} with {@code
 * -Dhistory.dir=src/test/resources/histories}; planned-scheduled-succeeded (a switchover that waited an
 * hour as Scheduled, on the time-skipping test server) by {@code
 * PlannedFailoverScheduleTest#firesAtItsTimeAndNotBeforeWithTheTimeInTheStatus}.
 */
class PlannedFailoverReplayTest {
  @ParameterizedTest
  @ValueSource(strings = {"planned-succeeded", "planned-lag-timeout", "planned-deferred-succeeded",
      "planned-dragonfly-succeeded", "planned-dragonfly-sync-timeout-fail", "planned-scheduled-succeeded"})
  void storedHistoryReplays(String name) throws Exception {
    WorkflowReplayer.replayWorkflowExecutionFromResource("histories/" + name + ".json",
        PlannedFailoverWorkflowImpl.class);
  }
}
