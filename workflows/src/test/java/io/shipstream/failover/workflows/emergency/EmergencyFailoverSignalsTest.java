package io.shipstream.failover.workflows.emergency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.workflows.EmergencyFailoverWorkflow;
import io.shipstream.failover.workflows.PlannedFailoverWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.CanceledFailure;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What can reach a running emergency failover from outside: the cancel signal, a Temporal cancel
 * request, the status query, and a planned failover asking for the same group. In these tests
 * iad's primary is still alive and writable, and its fence is held open so the test can act while
 * the workflow is Fencing.
 */
class EmergencyFailoverSignalsTest extends EmergencyRigTest {
  CountDownLatch fence = new CountDownLatch(1);

  @BeforeEach
  void setUp() {
    rig.iadBackForTheFence().fenceGate = fence;
  }

  /** Before the rig closes: a fence held back must not hold up the workflow's end. */
  @AfterEach
  void tearDown() {
    fence.countDown();
  }

  @Test
  void aCancelBeforeTheStartEndsTheFailoverBeforeTheFence() {
    fence.countDown();
    WorkflowStub stub = WorkflowStub.fromTyped(rig.stub());
    stub.signalWithStart("cancel", new Object[] {"operator is on it"},
        new Object[] {EmergencyRig.request("pdx", "0-1-100")});

    EmergencyFailoverStatus result = rig.result(stub);

    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).isEqualTo("Cancelled");
    assertThat(result.message()).contains("operator is on it");
    assertThat(mysql.callsTo("fence")).isEmpty();
    assertThat(mysql.server("iad").readOnly).isFalse();
    assertThat(k8s.roles).isEmpty();
    assertThat(k8s.eventReasons()).containsExactly("FailoverStarted", "FailoverFailed");
  }

  @Test
  void aCancelWhileFencingUndoesTheFence() {
    EmergencyFailoverWorkflow wf = rig.start("pdx", "0-1-100");
    rig.waitForPhase("Fencing");
    assertThat(wf.status().phase()).as("the status query").isEqualTo("Fencing");

    wf.cancel("false alarm: iad answers again");
    fence.countDown();
    EmergencyFailoverStatus result = rig.result(wf);

    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).isEqualTo("Cancelled");
    assertThat(result.message()).contains("false alarm").contains("rolled back: iad unfenced and labelled primary");
    assertThat(mysql.callsTo("unfence")).containsExactly("unfence iad");
    assertThat(mysql.server("iad").readOnly).as("iad takes writes again").isFalse();
    assertThat(k8s.roles).containsEntry("iad", "primary").doesNotContainKey("pdx");
    assertThat(mysql.callsTo("promote")).isEmpty();
    assertThat(k8s.status.activeSite()).isEqualTo("iad");
  }

  @Test
  void aTemporalCancelRequestIsTheSameAsTheCancelSignal() {
    EmergencyFailoverWorkflow wf = rig.start("pdx", "0-1-100");
    rig.waitForPhase("Fencing");

    WorkflowStub.fromTyped(wf).cancel();
    fence.countDown();

    // The Java SDK marks an execution cancelled whenever cancellation was requested, however it
    // ended; the resource's status is where the outcome is told.
    assertThatThrownBy(() -> rig.result(wf)).isInstanceOf(WorkflowFailedException.class)
        .hasCauseInstanceOf(CanceledFailure.class);
    EmergencyFailoverStatus status = k8s.status.emergencyFailover();
    assertThat(status.phase()).isEqualTo("Failed");
    assertThat(status.reason()).isEqualTo("Cancelled");
    assertThat(status.message()).contains("rolled back");
    assertThat(mysql.server("iad").readOnly).isFalse();
    assertThat(mysql.callsTo("promote")).isEmpty();
  }

  @Test
  void aCancelOncePromotingIsIgnored() {
    fence.countDown();
    mysql.beforePromote = () -> rig.client.newWorkflowStub(EmergencyFailoverWorkflow.class,
        EmergencyRig.GROUP.workflowId()).cancel("too late");

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(mysql.server("pdx").readOnly).isFalse();
    assertThat(k8s.status.activeSite()).isEqualTo("pdx");
  }

  @Test
  void aPlannedFailoverCannotStartBesideAnEmergencyOne() {
    EmergencyFailoverWorkflow wf = rig.start("pdx", "0-1-100");
    rig.waitForPhase("Fencing");

    PlannedFailoverWorkflow planned = rig.client.newWorkflowStub(PlannedFailoverWorkflow.class, EmergencyRig.options());
    assertThatThrownBy(() -> WorkflowClient.start(planned::run,
        new PlannedFailoverWorkflow.Request(EmergencyRig.GROUP, "dr")))
        .isInstanceOf(WorkflowExecutionAlreadyStarted.class);

    fence.countDown();
    assertThat(rig.result(wf).phase()).isEqualTo("Succeeded");
  }
}
