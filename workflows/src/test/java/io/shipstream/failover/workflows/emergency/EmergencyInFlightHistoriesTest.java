package io.shipstream.failover.workflows.emergency;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.workflows.fakes.RigTest;
import io.shipstream.failover.workflows.release.InFlightCut;
import io.temporal.common.WorkflowExecutionHistory;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An emergency run cut while it waits for the old primary's proof, as a new worker finds it in a
 * rolling upgrade: iad's sidecar answered that it cannot confirm the fence and runs with a lease of
 * a minute, so the run waits that lease out on a timer before it promotes pdx. The cut replays
 * against the code as it is now ({@link InFlightCut}); with {@code -Dhistory.dir=...} it is stored
 * as {@code partial-emergency-awaiting-proof.json}.
 */
class EmergencyInFlightHistoriesTest extends RigTest<EmergencyRig> {
  @Override
  protected EmergencyRig newRig() {
    return new EmergencyRig();
  }

  @AfterEach
  void endTheRun() {
    try {
      rig.client.newUntypedWorkflowStub(EmergencyRig.GROUP.workflowId()).terminate("cut recorded");
    } catch (RuntimeException alreadyEnded) {
      // The assertions failed after it ended: nothing to end.
    }
  }

  @Test
  void awaitingTheOldPrimarysProof() throws Exception {
    k8s.spec = EmergencyRig.specWithSidecars();
    rig.sidecar.confirmAfter = null;
    rig.sidecar.reportedLease = Duration.ofMinutes(1);
    rig.start("pdx", "0-1-100");
    WorkflowExecutionHistory h = InFlightCut.cut(rig.client, EmergencyRig.GROUP.workflowId(),
        "emergency-awaiting-proof", history -> InFlightCut.completedActivities(history).contains("SidecarConfirmFenced")
            && InFlightCut.timerRunning(history) && InFlightCut.openActivities(history).isEmpty(),
        "the wait for iad's reported lease");
    assertThat(rig.sidecar.calls).hasSize(1);
    assertThat(mysql.callsTo("promote")).as("not promoted before the proof").isEmpty();
    assertThat(InFlightCut.isClosed(h)).isFalse();
  }
}
