package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.model.gtid.GtidUnion;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import io.shipstream.failover.testsupport.TcpProxy;
import io.shipstream.failover.testsupport.WriteLoad;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A planned failover's source killed (kill -9) while the lag gate waits for a target far behind
 * (issue 31, item 1), on real servers of both flavors with the topology monitor acting: pdx and dr
 * receive every transaction at once but apply each {@link #DELAY_SECONDS} s late ({@code
 * MASTER_DELAY} / {@code SOURCE_DELAY}), so WaitingForLag would last minutes. The monitor's
 * replicas confirm iad dead, the planned run ends {@code SourceCrashed} at once without trying to
 * unfence it, and the emergency failover that follows promotes pdx with everything its relay log
 * held, the delay notwithstanding. A source only cut off from the control plane is not dead: the
 * run keeps waiting.
 */
class SourceDeathDuringLagWaitIT extends StackPerTest {
  /** Longer than the emergency relay drain's deadline (connectionDrainTimeout, 30 s): waiting it out loses writes. */
  static final int DELAY_SECONDS = 120;
  static final Duration END = Duration.ofSeconds(60);

  @FlavorTest
  void aSourceKilledWhileTheLagGateWaitsEndsTheRunAsSourceCrashedAndTheEmergencyFailoverLosesNothingReceived(
      Flavor flavor) throws Exception {
    start(flavor, FailoverStack.Options.emergency());
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    DatabaseServer dr = stack.server("dr");
    pdx.delayReplication(DELAY_SECONDS);
    dr.delayReplication(DELAY_SECONDS);
    String before = Instant.now().toString();
    List<Long> acknowledged = writeUntilFenced(iad, "pdx:maxLagWait=300s");
    String fenced = iad.gtidExecuted();
    // Everything acknowledged has reached pdx's relay log, none of the last writes is applied.
    Await.until(stack, () -> holds(pdx, fenced), END, "pdx to receive " + fenced);
    assertThat(DatabaseCluster.writtenIds(pdx)).as("pdx applies late")
        .doesNotContain(acknowledged.get(acknowledged.size() - 1));
    awaitWaitingForLag();

    long killedAt = System.nanoTime();
    iad.kill9();
    Await.until(stack, () -> stack.api().plannedStatus().map(PlannedFailoverStatus::phase).filter("Failed"::equals)
        .isPresent(), Duration.ofSeconds(20), "the planned failover to end");
    Duration ended = Duration.ofNanos(System.nanoTime() - killedAt);
    PlannedFailoverStatus planned = stack.api().plannedStatus().orElseThrow();
    Await.until(stack, () -> "Succeeded".equals(stack.api().emergencyPhase()), END, "the emergency failover");
    Duration promoted = Duration.ofNanos(System.nanoTime() - killedAt);
    EmergencyFailoverStatus emergency = stack.api().resource().getStatus().emergencyFailover();
    System.out.printf("%s: source killed in WaitingForLag: planned run Failed/%s %d ms after the kill; emergency "
        + "failover started %d ms after the planned run ended, Succeeded %d ms after the kill (%.1f s)%n", flavor,
        planned.reason(), ended.toMillis(), Duration.between(Instant.parse(planned.completionTime()),
            Instant.parse(emergency.startTime())).toMillis(),
        promoted.toMillis(), emergency.durationSeconds());

    assertThat(planned.startTime()).isGreaterThanOrEqualTo(before);
    assertThat(planned.reason()).as(planned.message()).isEqualTo("SourceCrashed");
    assertThat(ended).as("the planned run ends within 10 s of the kill").isLessThanOrEqualTo(Duration.ofSeconds(10));
    assertThat(planned.message()).contains("stays fenced").doesNotContain("MANUAL_RECOVERY", "manual recovery");
    assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo("pdx");
    assertThat(DatabaseCluster.writtenIds(pdx)).as("every acknowledged write pdx had received is on the new primary")
        .containsAll(acknowledged);
    assertThat(stack.api().eventReasons()).doesNotContain("FailoverBlocked");
  }

  /**
   * The same wait with iad only cut off from the control plane (the watcher's polls and the worker
   * go through a proxy that is black-holed), its replicas still hearing it: not dead. The run keeps
   * waiting, nothing is failed over, and once the link is back the switchover completes.
   */
  @Test
  void aSourceOnlyCutOffFromTheControlPlaneIsNotDeadAndTheRunKeepsWaiting() throws Exception {
    start(Flavor.MARIADB, FailoverStack.Options.emergency());
    TcpProxy controlToIad = stack.proxyControlPlaneMysql("iad");
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    pdx.delayReplication(20);
    stack.server("dr").delayReplication(20);
    String before = Instant.now().toString();
    List<Long> acknowledged = writeUntilFenced(iad, "pdx:maxLagWait=120s");
    awaitWaitingForLag();

    controlToIad.blackhole();
    Await.until(stack, () -> stack.api().eventReasons().contains("PrimaryUnreachableFromWatcher"), END,
        "the replicas to vouch for iad");
    long cutOff = System.nanoTime() + Duration.ofSeconds(4).toNanos();
    while (System.nanoTime() < cutOff) {
      assertThat(stack.api().plannedStatus().map(PlannedFailoverStatus::phase)).contains("WaitingForLag");
      assertThat(stack.api().emergencyPhase()).isNull();
      Thread.sleep(50);
    }
    controlToIad.heal();

    PlannedFailoverStatus s = stack.waits().plannedEnd(before, END);
    assertThat(s.phase()).as(s.message()).isEqualTo("Succeeded");
    assertThat(s.transactionsLost()).isZero();
    assertThat(stack.api().resource().getStatus().emergencyFailover()).isNull();
    assertThat(DatabaseCluster.writtenIds(pdx)).containsAll(acknowledged);
  }

  /**
   * Writes through the routed address until 100 writes are acknowledged, asks for the planned
   * failover {@code annotation} and stops writing once {@code source} is fenced: nothing more is
   * acknowledged, and its set is final. Returns the acknowledged writes.
   */
  private List<Long> writeUntilFenced(DatabaseServer source, String annotation) throws Exception {
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere)) {
      load.awaitAcknowledged(100, END);
      stack.api().annotate(annotation);
      Await.until(stack, source::isReadOnly, END, "the source (" + source.name() + ") fenced");
      load.stop();
      return load.acknowledged();
    }
  }

  private void awaitWaitingForLag() {
    Await.until(stack, () -> stack.api().plannedStatus().map(PlannedFailoverStatus::phase)
        .filter("WaitingForLag"::equals).isPresent(), END, "the planned failover in WaitingForLag");
  }

  /** Whether the server has executed or received every transaction of {@code wanted}. */
  private static boolean holds(DatabaseServer server, String wanted) {
    GtidSet held = GtidUnion.of(server.gtidExecuted(), server.replicaStatus().gtidIoPos());
    return GtidSet.parse(wanted).subtract(held).isEmpty();
  }
}
