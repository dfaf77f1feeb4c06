package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.WriteLoad;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The acceptance case of a source killed (kill -9) while a planned failover waits for the target:
 * three real mariadbd sites (iad primary, pdx, dr-only dr), no topology monitor. pdx has received
 * every transaction iad held and applies them a few seconds late, so the failover completes
 * without loss; dr, which stopped receiving from iad early and is left on it dead, is re-pointed
 * at pdx after the promotion and fetches from it every transaction it had not received, without a
 * Warning. A stack of its own: the killed
 * server would leak into other cases.
 */
class PlannedFailoverReplicasIT {
  static final Duration END = Duration.ofSeconds(60);

  @Test
  void aSourceKilledDuringWaitingForLagStillFailsOverAndTheReplicaLeftOnItFollowsTheNewPrimary(@TempDir Path work)
      throws InterruptedException {
    try (FailoverStack stack = FailoverStack.start(work, FailoverStack.Options.threeSites())) {
      killTheSourceDuringWaitingForLag(stack);
    }
  }

  private static void killTheSourceDuringWaitingForLag(FailoverStack stack) throws InterruptedException {
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    DatabaseServer dr = stack.server("dr");
    // pdx receives every transaction at once but applies each 3 s late: WaitingForLag lasts that long.
    pdx.execute("STOP SLAVE", "CHANGE MASTER TO MASTER_DELAY=3", "START SLAVE");
    List<Long> acknowledged;
    String before = Instant.now().toString();
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere)) {
      load.awaitAcknowledged(100, END);
      // dr stops receiving, so it misses iad's later writes: only the re-pointing can bring them.
      dr.execute("STOP SLAVE IO_THREAD");
      load.awaitAcknowledged(200, END);
      stack.api().annotate("pdx");
      // iad is fenced (the workflow is in WaitingForLag, whose status the write window holds back
      // for its first seconds): nothing more is acknowledged, and its GTID position is final.
      long fencedBy = System.nanoTime() + END.toNanos();
      while (!iad.isReadOnly()) {
        assertThat(System.nanoTime()).as("iad fenced in time").isLessThan(fencedBy);
        Thread.sleep(20);
      }
      load.stop();
      acknowledged = load.acknowledged();
    }
    String fenced = iad.gtidExecuted();
    long until = System.nanoTime() + END.toNanos();
    while (!fenced.equals(pdx.replicaStatus().gtidIoPos())) {
      assertThat(System.nanoTime()).as("pdx receives " + fenced + " in time").isLessThan(until);
      Thread.sleep(20);
    }
    iad.kill9();

    PlannedFailoverStatus s = stack.waits().plannedEnd(before, END);

    assertThat(s.phase()).as(s.message()).isEqualTo("Succeeded");
    assertThat(s.transactionsLost()).isZero();
    assertThat(DatabaseCluster.writtenIds(pdx)).as("every acknowledged write is on pdx").containsAll(acknowledged);
    assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo("pdx");
    assertThat(dr.replicaStatus().sourcePort()).as("dr replicates from the new primary").isEqualTo(pdx.port());
    dr.awaitCaughtUpWith(pdx, END);
    assertThat(dr.replicaStatus().running()).as("both of dr's replication threads run").isTrue();
    assertThat(DatabaseCluster.writtenIds(dr)).as("dr holds every acknowledged write pdx has")
        .containsAll(acknowledged).containsExactlyInAnyOrderElementsOf(DatabaseCluster.writtenIds(pdx));
    assertThat(stack.api().eventReasons()).as("dr was re-pointed, so nothing to warn about").doesNotContain(
        "ReplicaNotRepointed");
    assertThat(s.message()).doesNotContain("dr ");
    assertThat(stack.api().eventReasons()).as("only the dead old primary could not be re-pointed")
        .contains("RejoinFailed");
  }
}
