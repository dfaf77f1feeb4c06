package io.shipstream.failover.workflows.planned;

import io.temporal.testing.WorkflowReplayer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Histories recorded from earlier builds must replay against the current implementation:
 * failovers that are running while a new worker is rolled out resume on the new code. A change
 * that breaks one of these needs {@code Workflow.getVersion}, not a new recording. The {@code -v0}
 * histories were recorded before the Kubernetes calls and MySQL reads became local activities,
 * the {@code -v1} ones before status writes were coalesced and Events batched
 * ({@code StatusPublisher}), the {@code -v2} ones before a successful failover dealt with the
 * replicas it neither fences nor promotes ({@code AfterPromotion.repointOtherReplicas}; only the
 * histories with a third site have that step). That step first only reported those replicas; it was
 * made to re-point them before any release, and the two histories that had it were re-recorded.
 */
class PlannedFailoverReplayTest {
  @ParameterizedTest
  @ValueSource(strings = {"planned-succeeded-v0", "planned-lag-timeout-v0", "planned-deferred-succeeded-v0",
      "planned-dragonfly-succeeded-v0", "planned-dragonfly-sync-timeout-fail-v0",
      "planned-succeeded-v1", "planned-lag-timeout-v1", "planned-deferred-succeeded-v1",
      "planned-dragonfly-succeeded-v1", "planned-dragonfly-sync-timeout-fail-v1",
      "planned-succeeded-v2", "planned-deferred-succeeded-v2",
      "planned-succeeded", "planned-lag-timeout", "planned-deferred-succeeded",
      "planned-dragonfly-succeeded", "planned-dragonfly-sync-timeout-fail"})
  void storedHistoryReplays(String name) throws Exception {
    WorkflowReplayer.replayWorkflowExecutionFromResource("histories/" + name + ".json",
        PlannedFailoverWorkflowImpl.class);
  }
}
