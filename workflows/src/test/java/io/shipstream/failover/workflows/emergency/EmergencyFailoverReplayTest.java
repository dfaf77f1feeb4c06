package io.shipstream.failover.workflows.emergency;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.SidecarLiveness;
import io.shipstream.failover.model.topology.GuardRestart;
import io.shipstream.failover.workflows.fakes.FakeMysql;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.WorkflowReplayer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The guard of every change to the emergency runbook: histories recorded from the first release
 * (0.1.0), which has no {@code Workflow.getVersion} gate, must replay against the current
 * implementation, because failovers that are running while a new worker is rolled out resume on
 * the new code. A change that breaks one of these is a change of the runbook's commands: it goes
 * behind {@code Workflow.getVersion}, keeping the recorded path, and gets histories of its own;
 * the stored ones are never re-recorded to make such a change pass. They were recorded by
 * {@link #freshHistoriesReplayDeterministically} with {@code -Dhistory.dir=src/test/resources/histories},
 * which writes only the histories not stored yet: each stands for the code that recorded it
 * ({@code emergency-wait-from-last-renewal} is the first with {@link OldPrimaryGate#WAIT_FROM_LAST_RENEWAL}).
 */
class EmergencyFailoverReplayTest {
  /** A liveness probe every second, two failures, 1 s timeout and 1 s of termination grace. */
  private static final SidecarLiveness.Probe HUNG_SIDECAR_PROBE = SidecarLiveness.Probe.ofPodSpec(1, 1, 2, 1L, null);

  @ParameterizedTest
  @ValueSource(strings = {"emergency-succeeded", "emergency-data-loss", "emergency-rejected",
      "emergency-cancelled", "emergency-catch-up", "emergency-primary-answered", "emergency-sidecar-confirmed",
      "emergency-lease-expired", "emergency-hung-sidecar-wait", "emergency-wait-from-last-renewal"})
  void storedHistoryReplays(String name) throws Exception {
    WorkflowReplayer.replayWorkflowExecutionFromResource("histories/" + name + ".json",
        EmergencyFailoverWorkflowImpl.class);
  }

  /**
   * A failover 0.1.0 started that waits for a hung sidecar's restart keeps the wait it began with
   * on a later worker: 0.1.0 waited the longer of the lease and the restart bound, later releases
   * wait both ({@link OldPrimaryGate#WAIT_ADDS_LEASE_AND_RESTART}). The history was recorded by the
   * release's own code (commit 0a93c45, this test's scenario {@code emergency-hung-sidecar-wait}
   * added to its {@link #freshHistoriesReplayDeterministically}). Temporal does not compare a
   * timer's duration on replay, so this history (whose commands the longer wait schedules in the
   * same order) would replay without the marker too; the marker matters where the order differs,
   * as with a spec lease longer than the restart bound, where 0.1.0 asked the sidecar no second
   * time: there a 0.1.0 run past its wait would fail on a later worker without it.
   */
  @Test
  void aHungSidecarWaitThatRelease010StartedReplaysWithTheWaitItBeganWith() throws Exception {
    WorkflowReplayer.replayWorkflowExecutionFromResource("histories/recorded-by-0.1.0/emergency-hung-sidecar-wait.json",
        EmergencyFailoverWorkflowImpl.class);
  }

  /**
   * Replays the history each scenario just produced, which catches non-determinism in the code as
   * it is now; {@code -Dhistory.dir=...} also stores them as the resources above.
   */
  @Test
  void freshHistoriesReplayDeterministically() throws Exception {
    try (EmergencyRig rig = new EmergencyRig()) {
      rig.run("pdx", "0-1-100");
      replayAndMaybeStore(rig.client, "emergency-succeeded");

      // iad again, alive this time and 4 transactions ahead: fenced, sessions killed, loss reported.
      rig.k8s.status = rig.k8s.status.withActiveSite("iad");
      FakeMysql.Server iad = rig.mysql.server("iad");
      iad.reachable = true;
      iad.readOnly = false;
      iad.seqno = 104;
      // Back just after the check before the fence found it dead, so its fence reaches it.
      iad.missedInspections.set(1);
      rig.mysql.server("pdx").readOnly = true;
      rig.run("pdx", "0-1-100");
      replayAndMaybeStore(rig.client, "emergency-data-loss");

      // pdx is writable after that promotion: refused.
      rig.k8s.status = rig.k8s.status.withActiveSite("iad");
      rig.run("pdx", "0-1-100");
      replayAndMaybeStore(rig.client, "emergency-rejected");

      rig.k8s.status = rig.k8s.status.withActiveSite("iad");
      rig.mysql.server("pdx").readOnly = true;
      iad.missedInspections.set(1);
      var stub = io.temporal.client.WorkflowStub.fromTyped(rig.stub());
      stub.signalWithStart("cancel", new Object[] {"operator is on it"},
          new Object[] {EmergencyRig.request("pdx", "0-1-100")});
      rig.result(stub);
      replayAndMaybeStore(rig.client, "emergency-cancelled");

      // dr received more of iad's last transactions than pdx: pdx catches up from it first.
      rig.k8s.status = rig.k8s.status.withActiveSite("iad");
      rig.mysql.server("dr").seqno = rig.mysql.server("pdx").seqno + 3;
      iad.missedInspections.set(1);
      rig.run("pdx", "0-1-100");
      assertThat(rig.mysql.callsTo("catchUp")).hasSize(1);
      replayAndMaybeStore(rig.client, "emergency-catch-up");

      // iad answers right before its fence, named active still: nothing is done (PrimaryAnswered).
      rig.k8s.status = rig.k8s.status.withActiveSite("iad");
      rig.mysql.server("pdx").readOnly = true;
      assertThat(rig.run("pdx", "0-1-100").reason()).isEqualTo("PrimaryAnswered");
      replayAndMaybeStore(rig.client, "emergency-primary-answered");

      // iad unreachable with a sidecar: its sidecar confirms iad takes no writes before pdx is promoted.
      rig.k8s.status = rig.k8s.status.withActiveSite("iad");
      rig.k8s.spec = EmergencyRig.specWithSidecars();
      rig.mysql.server("iad").reachable = false;
      rig.mysql.server("pdx").readOnly = true;
      rig.run("pdx", "0-1-100");
      assertThat(rig.sidecar.calls).hasSize(1);
      replayAndMaybeStore(rig.client, "emergency-sidecar-confirmed");

      // Its sidecar cannot be reached: pdx is promoted once iad's lease has run out.
      rig.k8s.status = rig.k8s.status.withActiveSite("iad");
      rig.mysql.server("pdx").readOnly = true;
      rig.sidecar.confirmAfter = null;
      rig.run("pdx", "0-1-100");
      assertThat(rig.k8s.eventReasons()).contains("OldPrimaryLeaseExpired");
      replayAndMaybeStore(rig.client, "emergency-lease-expired");

      // The same, but iad's pods have a liveness probe on its sidecar: the wait is the lease, then
      // a hung sidecar's restart and boot fence.
      rig.k8s.status = rig.k8s.status.withActiveSite("iad");
      rig.mysql.server("pdx").readOnly = true;
      rig.k8s.sidecarProbe = GuardRestart.Reading.probed("mysql-iad-0", HUNG_SIDECAR_PROBE);
      rig.run("pdx", "0-1-100");
      replayAndMaybeStore(rig.client, "emergency-hung-sidecar-wait");

      // The same, but the lease's last renewal is read (OldPrimaryGate.WAIT_FROM_LAST_RENEWAL): it
      // was renewed last 6 s before the read, so the wait counts from then.
      rig.k8s.status = rig.k8s.status.withActiveSite("iad");
      rig.mysql.server("pdx").readOnly = true;
      rig.sidecar.renewal = new io.shipstream.failover.workflows.activities.SidecarActivities.Renewal(6000L,
          "the sidecar at http://pdx.sidecar:8080", "an answer to iad", 3);
      rig.run("pdx", "0-1-100");
      assertThat(rig.k8s.eventReasons()).contains("OldPrimaryLeaseExpired");
      replayAndMaybeStore(rig.client, "emergency-wait-from-last-renewal");
    }
  }

  private static void replayAndMaybeStore(WorkflowClient client, String name) throws Exception {
    WorkflowExecutionHistory history = client.fetchHistory(EmergencyRig.GROUP.workflowId());
    WorkflowReplayer.replayWorkflowExecution(history, EmergencyFailoverWorkflowImpl.class);
    String dir = System.getProperty("history.dir");
    // A stored history is never written again: it stands for the runs that code started.
    if (dir != null && !Files.exists(Path.of(dir, name + ".json"))) {
      Files.writeString(Path.of(dir, name + ".json"), history.toJson(true));
    }
  }
}
