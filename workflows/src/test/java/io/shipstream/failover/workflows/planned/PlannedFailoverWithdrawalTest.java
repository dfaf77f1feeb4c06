package io.shipstream.failover.workflows.planned;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.PlannedFailoverAnnotation;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.workflows.PlannedFailoverWorkflow;
import io.shipstream.failover.workflows.fakes.PhaseChecks;
import io.shipstream.failover.workflows.fakes.WorkflowWaits;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * A request the operator withdraws by giving the annotation another value: the run that serves
 * the old value gets the watcher's cancel, rolls back and says what replaced it, leaves the new
 * value in place for the watcher to start, and the new value then runs as a request of its own.
 * Past the point of no return the cancel is ignored and the run finishes. The same
 * {@link PlannedRig} as {@link PlannedFailoverWorkflowTest}.
 */
class PlannedFailoverWithdrawalTest extends PlannedRigTest {
  static final String OLD = "pdx:maxLagWait=10m";
  static final String NEW = "pdx:maxLagWait=1m";

  @Test
  void aRequestReplacedDuringWaitingForLagRollsBackSaysWhatReplacedItAndTheNewValueThenRuns() {
    CountDownLatch gate = new CountDownLatch(1);
    mysql.server("pdx").seqno = 100; // caught up when validated: only the lag gate, after the fence, waits
    mysql.server("pdx").waitGate = gate;
    PlannedFailoverWorkflow wf = rig.startAsync(OLD);
    WorkflowWaits.awaitPhase("WaitingForLag", k8s::lastPhase);

    // What kubectl annotate --overwrite and then the watcher do.
    k8s.annotation = NEW;
    wf.cancel(PlannedFailoverAnnotation.withdrawal(NEW));
    PlannedFailoverStatus replaced = rig.result(wf);
    gate.countDown();

    assertThat(replaced.phase()).isEqualTo("Failed");
    assertThat(replaced.reason()).isEqualTo("Cancelled");
    assertThat(replaced.message()).isEqualTo("cancelled in WaitingForLag: request replaced by a new annotation "
        + "value '" + NEW + "'; rolled back: source unfenced and labelled primary, no DNS flip");
    assertThat(k8s.events).anySatisfy(e -> {
      assertThat(e.type()).isEqualTo("Warning");
      assertThat(e.reason()).isEqualTo("PlannedFailoverFailed");
      assertThat(e.message()).startsWith("Cancelled: cancelled in WaitingForLag: request replaced by a new "
          + "annotation value '" + NEW + "'");
    });
    assertThat(k8s.events).noneSatisfy(e -> assertThat(e.message()).contains("annotation removed"));
    assertThat(mysql.server("iad").readOnly).as("the source takes writes again").isFalse();
    assertThat(k8s.roles).containsEntry("iad", "primary");
    assertThat(mysql.callsTo("promote")).isEmpty();
    assertThat(k8s.status.activeSite()).isEqualTo("iad");
    assertThat(k8s.annotation).as("the new request is left for the watcher").isEqualTo(NEW);

    mysql.server("pdx").waitGate = null;
    k8s.statusHistory.clear();
    PlannedFailoverStatus next = rig.request(NEW);

    assertThat(next.phase()).isEqualTo("Succeeded");
    PhaseChecks.assertShown(k8s.phases(), List.of("Pending", "Validating", "Draining", "WaitingForLag", "Promoting",
        "Resuming", "Succeeded"));
    assertThat(k8s.status.activeSite()).isEqualTo("pdx");
    assertThat(k8s.annotation).as("cleared by the run that served it").isNull();
  }

  @Test
  void aRequestReplacedWhileDeferredSaysWhatReplacedIt() {
    k8s.spec = PlannedRig.spec("defer");
    Instant cooldownEndsSoon = Instant.ofEpochMilli(rig.env.currentTimeMillis()).minus(Duration.ofMinutes(5))
        .plusSeconds(2);
    k8s.status = k8s.status.withFailover("iad", cooldownEndsSoon.toString(), "0-1-50");
    PlannedFailoverWorkflow wf = rig.startAsync(OLD);
    WorkflowWaits.awaitPhase("Deferred", k8s::lastPhase);

    // No cancel signal: the validation at retryAfter must tell a new value from a removed one.
    k8s.annotation = NEW;
    PlannedFailoverStatus result = rig.result(wf);

    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).isEqualTo("Cancelled");
    assertThat(result.message()).isEqualTo("request replaced by a new annotation value '" + NEW + "' while deferred");
    assertThat(mysql.callsTo("fence")).isEmpty();
    assertThat(k8s.annotation).isEqualTo(NEW);
  }

  @Test
  void aReplacementArrivingWhilePromotingIsIgnoredAndTheRunFinishes() {
    mysql.beforePromote = () -> rig.client.newWorkflowStub(PlannedFailoverWorkflow.class, PlannedRig.GROUP.workflowId())
        .cancel(PlannedFailoverAnnotation.withdrawal(NEW));
    PlannedFailoverStatus result = rig.request(OLD);

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(result.message()).doesNotContain("replaced");
    assertThat(k8s.status.activeSite()).isEqualTo("pdx");
    assertThat(mysql.server("iad").readOnly).isTrue();
  }
}
