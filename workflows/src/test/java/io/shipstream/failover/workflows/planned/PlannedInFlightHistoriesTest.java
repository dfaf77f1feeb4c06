package io.shipstream.failover.workflows.planned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.workflows.PlannedFailoverWorkflow;
import io.shipstream.failover.workflows.fakes.WorkflowWaits;
import io.shipstream.failover.workflows.release.InFlightCut;
import io.temporal.common.WorkflowExecutionHistory;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Planned runs cut while they wait or work, as a new worker finds them when it takes them over in
 * a rolling upgrade: Scheduled (its timer running), Deferred (the cooldown's timer), WaitingForLag
 * (the lag gate's activity running on the fenced source's GTID set), between the fence and the
 * promotion (the promote activity running), and a rollback in progress (a cancel in WaitingForLag,
 * the source's unfence running). Each cut replays against the code as it is now ({@link
 * InFlightCut}); with {@code -Dhistory.dir=...} it is stored as {@code partial-<name>.json} for a
 * release's directory ({@code scripts/cut-release-histories}).
 */
class PlannedInFlightHistoriesTest extends PlannedRigTest {
  private final CountDownLatch release = new CountDownLatch(1);

  /** Ends the cut run and lets every blocked fake go, so that the rig closes at once. */
  @AfterEach
  void endTheRun() {
    try {
      rig.client.newUntypedWorkflowStub(PlannedRig.GROUP.workflowId()).terminate("cut recorded");
    } catch (RuntimeException alreadyEnded) {
      // The assertions failed after it ended: nothing to end.
    }
    release.countDown();
  }

  private WorkflowExecutionHistory cut(String name, Predicate<WorkflowExecutionHistory> reached, String what)
      throws Exception {
    return InFlightCut.cut(rig.client, PlannedRig.GROUP.workflowId(), "planned-" + name, reached, what);
  }

  /** Nothing running but a timer: the run waits, touching no server. */
  private static boolean waitingOnATimer(WorkflowExecutionHistory h) {
    return InFlightCut.timerRunning(h) && InFlightCut.openActivities(h).isEmpty();
  }

  @Test
  void scheduled() throws Exception {
    Instant at = Instant.ofEpochMilli(rig.env.currentTimeMillis()).plus(Duration.ofHours(1));
    rig.startAsync("pdx:at=" + at);
    WorkflowWaits.awaitPhase("Scheduled", k8s::lastPhase);
    WorkflowWaits.await(k8s::eventReasons, r -> r.contains("PlannedFailoverScheduled"), "the Scheduled Event");
    cut("scheduled", PlannedInFlightHistoriesTest::waitingOnATimer, "Scheduled");
    assertThat(mysql.callsTo("fence")).as("nothing fenced while scheduled").isEmpty();
  }

  @Test
  void deferred() throws Exception {
    k8s.spec = PlannedRig.spec("defer");
    // The last failover just now: its 5 minute cooldown outlasts the cut.
    k8s.status = k8s.status.withFailover("iad", Instant.ofEpochMilli(rig.env.currentTimeMillis()).toString(), "0-1-50");
    rig.startAsync("pdx");
    WorkflowWaits.awaitPhase("Deferred", k8s::lastPhase);
    WorkflowWaits.await(k8s::eventReasons, r -> r.contains("PlannedFailoverDeferred"), "the Deferred Event");
    cut("deferred", PlannedInFlightHistoriesTest::waitingOnATimer, "Deferred");
    assertThat(mysql.callsTo("fence")).isEmpty();
  }

  /** Holds pdx's lag gate, caught up when validated so that only the gate after the fence waits. */
  private PlannedFailoverWorkflow holdTheLagGate() {
    mysql.server("pdx").seqno = 100;
    mysql.server("pdx").waitGate = release;
    PlannedFailoverWorkflow wf = rig.startAsync("pdx");
    WorkflowWaits.awaitPhase("WaitingForLag", k8s::lastPhase);
    // The window holds its writes back 3 s at most: the fence's Event is written once they are let go.
    WorkflowWaits.await(k8s::eventReasons, r -> r.contains("PlannedFailoverDraining"), "the Draining Event");
    return wf;
  }

  @Test
  void waitingForLag() throws Exception {
    holdTheLagGate();
    WorkflowExecutionHistory h = cut("waiting-for-lag",
        history -> InFlightCut.openActivities(history).contains("WaitForGtidSet"), "WaitingForLag");
    assertThat(InFlightCut.completedActivities(h)).as("the source fenced before the gate").contains("Fence");
    assertThat(mysql.server("iad").readOnly).isTrue();
    // The replay of a prefix checks its commands: code that would call another activity at the gate is refused.
    WorkflowExecutionHistory otherGate = InFlightCut.renamingActivity(h, "WaitForGtidSet", "WaitForGtidSetV2");
    assertThatThrownBy(() -> InFlightCut.replay(otherGate)).hasMessageContaining("WaitForGtidSetV2");
  }

  @Test
  void fencedNotYetPromoted() throws Exception {
    mysql.beforePromote = () -> {
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    };
    rig.startAsync("pdx");
    WorkflowExecutionHistory h = cut("fenced-promoting",
        history -> InFlightCut.openActivities(history).contains("Promote"), "the promotion running");
    // The lag gate passed as a local activity in the task that took the fence's result: no ordinary WaitForGtidSet.
    assertThat(InFlightCut.completedActivities(h)).contains("Fence").doesNotContain("Promote", "WaitForGtidSet");
    assertThat(mysql.server("iad").readOnly).as("the source fenced").isTrue();
    assertThat(mysql.server("pdx").readOnly).as("the target not writable yet").isTrue();
  }

  @Test
  void rollingBack() throws Exception {
    mysql.server("iad").unfenceGate = release;
    holdTheLagGate().cancel("maintenance postponed");
    WorkflowExecutionHistory h = cut("rolling-back",
        history -> InFlightCut.openActivities(history).contains("Unfence"), "the rollback's unfence running");
    assertThat(InFlightCut.completedActivities(h)).contains("Fence").doesNotContain("Promote", "Unfence");
    assertThat(mysql.callsTo("unfence")).hasSize(1);
  }
}
