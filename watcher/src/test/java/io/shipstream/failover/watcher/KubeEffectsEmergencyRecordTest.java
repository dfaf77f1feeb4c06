package io.shipstream.failover.watcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.WorkflowRef;
import io.shipstream.failover.model.topology.Verdict;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.watcher.FailoverStarter;
import io.shipstream.failover.workflows.TaskQueues;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Item 13 of issue 31: a second emergency failover on a group whose status holds the previous
 * run's Succeeded. No worker polls the task queue, so the new run stays before its first step (its
 * first status write), the window a script polling for Succeeded fell into: the status must
 * already name the new run, Pending.
 */
class KubeEffectsEmergencyRecordTest {
  private static final GroupRef ORDERS = new GroupRef(MockCluster.NAMESPACE, "orders");
  private final MockCluster cluster = MockCluster.start();
  private final TestWorkflowEnvironment temporal = TestWorkflowEnvironment.newInstance();
  private final FailoverStarter starter = new FailoverStarter(temporal.getWorkflowClient(), TaskQueues.FAILOVER);
  private final KubeEffects effects = new KubeEffects(cluster.client(), starter, null,
      g -> Optional.ofNullable(cluster.group(g)), Clock.systemUTC());

  @AfterEach
  void close() {
    temporal.close();
    cluster.close();
  }

  /** pdx failed over to iad before, and that run Succeeded; iad is active. */
  private void previousRunSucceeded() {
    cluster.createGroup(ORDERS.name(), List.of(MockCluster.site("orders", "iad", "10.0.0.1"),
        MockCluster.site("orders", "pdx", "10.0.0.2")));
    cluster.setStatus(ORDERS, MysqlFailoverGroupStatus.empty().withActiveSite("iad")
        .withEmergencyFailover(new EmergencyFailoverStatus("Succeeded", "pdx", "iad", "pdx unreachable", null,
            "2026-01-01T10:00:00Z", "2026-01-01T10:00:02Z", 2.0, false, "0-1-5", "0-1-5", 0L, "",
            "promoted iad after pdx failed"))
        .withWorkflow(new WorkflowRef("EmergencyFailover", ORDERS.workflowId(), "run-1")));
  }

  @Test
  void aNewRunReplacesThePreviousSucceededWithItsOwnPendingBeforeItsFirstStep() {
    previousRunSucceeded();

    boolean started = effects.startEmergency(ORDERS, new Verdict.Promote("iad", "pdx", "0-1-9", "iad unreachable"),
        Map.of());

    assertThat(started).isTrue();
    String runId = starter.runningRunId(ORDERS).orElseThrow();
    MysqlFailoverGroupStatus status = cluster.group(ORDERS).getStatus();
    assertThat(status.emergencyFailover().phase()).isEqualTo("Pending");
    assertThat(status.emergencyFailover().failedSite()).isEqualTo("iad");
    assertThat(status.emergencyFailover().target()).isEqualTo("pdx");
    assertThat(status.emergencyFailover().trigger()).isEqualTo("iad unreachable");
    assertThat(status.emergencyFailover().completionTime()).isNull();
    // No start time of this process's clock: the run's own writes are refused behind a later one.
    assertThat(status.emergencyFailover().startTime()).isNull();
    assertThat(status.workflow()).isEqualTo(new WorkflowRef("EmergencyFailover", ORDERS.workflowId(), runId));
    assertThat(status.activeSite()).isEqualTo("iad");
  }

  @Test
  void aRequestTheStatusSupersedesLeavesThePreviousRecordAlone() {
    previousRunSucceeded();

    // pdx is not the active site: the run will end superseded without writing, so nothing is replaced.
    effects.startEmergency(ORDERS, new Verdict.Promote("pdx", "iad", "0-1-9", "pdx unreachable"), Map.of());

    MysqlFailoverGroupStatus status = cluster.group(ORDERS).getStatus();
    assertThat(status.emergencyFailover().phase()).isEqualTo("Succeeded");
    assertThat(status.workflow().runId()).isEqualTo("run-1");
  }
}
