package io.shipstream.failover.watcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.workflows.TaskQueues;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The ConcurrentOperation row: a planned-failover request that arrives while another kind of
 * failover holds the group's workflow id is refused at once, with the status, an Event and the
 * annotation cleared, and nothing else is touched (the running workflow goes on).
 */
class ConcurrentOperationTest {
  private static final GroupRef ORDERS = new GroupRef(MockCluster.NAMESPACE, "orders");

  /** Stands in for the emergency failover: holds the group's id until released. */
  @WorkflowInterface
  public interface StandInEmergency {
    @WorkflowMethod(name = "EmergencyFailover")
    void run();

    @SignalMethod
    void release();
  }

  public static class StandInEmergencyImpl implements StandInEmergency {
    private boolean released;

    @Override
    public void run() {
      Workflow.await(() -> released);
    }

    @Override
    public void release() {
      released = true;
    }
  }

  @RegisterExtension
  final WatcherRig rig = new WatcherRig(StandInEmergencyImpl.class);
  private final MockCluster cluster = rig.cluster;
  private final TestWorkflowEnvironment temporal = rig.temporal;
  private final WatcherApp app = rig.start(WatcherConfig.defaults().withTopologyMonitor(false));

  @Test
  void aPlannedRequestDuringAnEmergencyFailoverIsRefused() throws InterruptedException {
    refusedWhileAnEmergencyFailoverRuns();
  }

  @Test
  void aRefusalWhoseStatusWriteConflictsIsWrittenAgain() throws InterruptedException {
    // The group's first status write meets a conflict, as when another writer changed the status
    // between a read and its write; the refusal must still be written.
    MockCluster.Refusal conflict = cluster.refuseNextWrites(MockCluster.statusPath(ORDERS), 409, 1);
    refusedWhileAnEmergencyFailoverRuns();
    assertThat(conflict.refused()).as("a status write met the conflict").isEqualTo(1);
  }

  /** A request for pdx made while an emergency failover holds the group: refused, said, and nothing else. */
  private void refusedWhileAnEmergencyFailoverRuns() throws InterruptedException {
    Http.await("the watcher leads", Duration.ofSeconds(10), app::isLeader);
    StandInEmergency emergency = temporal.getWorkflowClient().newWorkflowStub(StandInEmergency.class,
        WorkflowOptions.newBuilder().setWorkflowId(ORDERS.workflowId()).setTaskQueue(TaskQueues.FAILOVER).build());
    WorkflowClient.start(emergency::run);

    rig.createGroupRequesting(ORDERS, "pdx");

    Http.await("the request is refused", Duration.ofSeconds(10), () -> {
      MysqlFailoverGroup g = cluster.group(ORDERS);
      return g.getStatus() != null && g.getStatus().plannedFailover() != null;
    });
    PlannedFailoverStatus s = cluster.group(ORDERS).getStatus().plannedFailover();
    assertThat(s.phase()).isEqualTo("Failed");
    assertThat(s.reason()).isEqualTo("ConcurrentOperation");
    assertThat(s.target()).isEqualTo("pdx");
    assertThat(s.message()).contains("EmergencyFailover");
    Http.await("the annotation is cleared", Duration.ofSeconds(10),
        () -> PlannedFailoverRequests.annotation(cluster.group(ORDERS)) == null);
    List<Event> events = cluster.client().v1().events().inNamespace(ORDERS.namespace()).list().getItems();
    assertThat(events).anySatisfy(e -> {
      assertThat(e.getType()).isEqualTo("Warning");
      assertThat(e.getReason()).isEqualTo("PlannedFailoverRejected");
      assertThat(e.getMessage()).startsWith("ConcurrentOperation");
    });
    var running = temporal.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
        DescribeWorkflowExecutionRequest.newBuilder().setNamespace(temporal.getNamespace())
            .setExecution(WorkflowExecution.newBuilder().setWorkflowId(ORDERS.workflowId())).build())
        .getWorkflowExecutionInfo();
    assertThat(running.getType().getName()).as("the emergency failover goes on").isEqualTo("EmergencyFailover");
    assertThat(running.getStatus()).isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);
    emergency.release();
  }
}
