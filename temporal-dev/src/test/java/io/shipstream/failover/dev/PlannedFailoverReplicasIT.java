package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.MariaDbCluster;
import io.shipstream.failover.testsupport.MariaDbServer;
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
 * without loss; dr, which the planned runbook does not re-point, stays on the dead iad, and the
 * failover says so in a Warning Event and its status message. A stack of its own: the killed
 * server would leak into other cases.
 */
class PlannedFailoverReplicasIT {
  static final Duration END = Duration.ofSeconds(60);

  @Test
  void aSourceKilledDuringWaitingForLagStillFailsOverAndReportsTheReplicaLeftOnIt(@TempDir Path work)
      throws InterruptedException {
    try (FailoverStack stack = FailoverStack.start(work, new FailoverStack.Options(List.of("iad", "pdx", "dr"),
        List.of("dr"), "0s", null))) {
      killTheSourceDuringWaitingForLag(stack);
    }
  }

  private static void killTheSourceDuringWaitingForLag(FailoverStack stack) throws InterruptedException {
    MariaDbServer iad = stack.server("iad");
    MariaDbServer pdx = stack.server("pdx");
    MariaDbServer dr = stack.server("dr");
    // pdx receives every transaction at once but applies each 3 s late: WaitingForLag lasts that long.
    pdx.execute("STOP SLAVE", "CHANGE MASTER TO MASTER_DELAY=3", "START SLAVE");
    List<Long> acknowledged;
    String before = Instant.now().toString();
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere)) {
      load.awaitAcknowledged(100, END);
      stack.annotate("pdx");
      stack.awaitPlanned(p -> "WaitingForLag".equals(p.phase()) && p.startTime().compareTo(before) >= 0, END);
      // iad is fenced: nothing more is acknowledged, and its GTID position is final.
      load.stop();
      acknowledged = load.acknowledged();
    }
    String fenced = iad.gtidBinlogPos();
    long until = System.nanoTime() + END.toNanos();
    while (!fenced.equals(pdx.replicaStatus().gtidIoPos())) {
      assertThat(System.nanoTime()).as("pdx receives " + fenced + " in time").isLessThan(until);
      Thread.sleep(20);
    }
    iad.kill9();

    PlannedFailoverStatus s = stack.awaitPlannedEnd(before, END);

    assertThat(s.phase()).as(s.message()).isEqualTo("Succeeded");
    assertThat(s.transactionsLost()).isZero();
    assertThat(MariaDbCluster.writtenIds(pdx)).as("every acknowledged write is on pdx").containsAll(acknowledged);
    assertThat(stack.resource().getStatus().activeSite()).isEqualTo("pdx");
    assertThat(dr.replicaStatus().sourcePort()).as("dr was not re-pointed").isEqualTo(iad.port());

    String leftOnIad = "dr still replicates from the old primary iad (" + iad.host() + ":" + iad.port() + ")";
    String whatToDo = "point dr at pdx (" + pdx.host() + ":" + pdx.port() + ") with GTID positioning: STOP SLAVE;"
        + " CHANGE MASTER TO MASTER_HOST='" + pdx.host() + "', MASTER_PORT=" + pdx.port()
        + ", MASTER_USE_GTID=slave_pos; START SLAVE";
    List<Event> notRepointed = stack.events().stream().filter(e -> "ReplicaNotRepointed".equals(e.getReason()))
        .toList();
    assertThat(notRepointed).singleElement().satisfies(e -> {
      assertThat(e.getType()).isEqualTo("Warning");
      assertThat(e.getMessage()).startsWith(leftOnIad).endsWith(whatToDo);
    });
    assertThat(s.message()).startsWith("promoted pdx, 0 transactions lost").contains(leftOnIad);
    assertThat(stack.eventReasons()).as("the dead old primary could not rejoin either").contains("RejoinFailed");
  }
}
