package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.EmergencyFailoverSpec;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import io.shipstream.failover.testsupport.ReplicaStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The old primary a failover left behind, on real servers with the topology monitor on (three
 * sites, iad primary, polled every 500 ms): issue 31 items 5 and 6. A planned failover's source
 * killed while the run waits is pointed at the new primary when it returns, as an emergency's old
 * primary is; and a DBA who stops replication on a rejoined old primary is not fought: the thread
 * stays stopped through a spec edit (which restarts the group's monitoring and drops the watcher's
 * memory), with one RecoveryComplete, Degraded/ReplicationStopped and one ReplicationStopped Event.
 */
@ExtendWith(StoredGroupsFitTheCrd.class)
class OldPrimaryRecoveryIT extends StackPerTest {
  private static final Duration END = Duration.ofSeconds(60);

  private static FailoverStack.Options withMonitor() {
    return new FailoverStack.Options(List.of("iad", "pdx", "dr"), List.of("dr"), "0s", null, "500ms", 3, true);
  }

  /** Item 5: the killed planned-failover source gets one RejoinFailed, then follows pdx once it returns. */
  @Test
  void aPlannedFailoverSourceKilledWhileTheRunWaitsFollowsTheNewPrimaryWhenItReturns() throws Exception {
    start(Flavor.MARIADB, withMonitor());
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    // pdx receives every transaction at once and applies each 8 s late, and iad commits one after
    // that (the stack's own were older than the delay on a slow start): the run waits at most 3 s
    // before its fence (CATCH_UP_BEFORE_FENCE_AT_MOST), so WaitingForLag lasts about 5 s.
    pdx.execute("STOP SLAVE", "CHANGE MASTER TO MASTER_DELAY=8", "START SLAVE");
    iad.execute("CREATE DATABASE IF NOT EXISTS held_back_by_the_delay");
    String before = Instant.now().toString();
    stack.api().annotate("pdx");
    Await.until(stack, iad::isReadOnly, END, "iad fenced by the planned failover");
    String fenced = iad.gtidExecuted();
    Await.until(stack, () -> fenced.equals(pdx.replicaStatus().gtidIoPos()), END, "pdx to receive " + fenced);
    iad.kill9();

    PlannedFailoverStatus s = stack.waits().plannedEnd(before, END);
    if ("Succeeded".equals(s.phase())) {
      assertThat(stack.api().eventReasons()).as("the run could not re-point the dead source").contains("RejoinFailed");
    }
    Await.until(stack, () -> "pdx".equals(stack.api().resource().getStatus().activeSite()), END, "pdx active");
    // Back after the run has ended, its own rejoin attempts with it (one still retrying when the
    // source returns at once would re-point it itself): from here only the recovery can.
    Thread.sleep(5_000);
    assertThat(iad.isRunning()).isFalse();

    iad.restart();
    Await.until(stack, () -> iad.replicaStatus().running() && iad.replicaStatus().sourcePort() == pdx.port(), END,
        "iad replicating from pdx");
    assertThat(iad.isReadOnly()).isTrue();
    iad.awaitCaughtUpWith(pdx, END);
    assertThat(stack.api().eventReasons()).contains("RecoveryComplete").doesNotContain("RecoveryBlocked");
  }

  /** Item 6: a DBA's STOP SLAVE (one thread or both) on the rejoined old primary is left alone and reported once. */
  @FlavorTest
  void aDbaWhoStopsReplicationOnTheRejoinedOldPrimaryIsNotFought(Flavor flavor) throws Exception {
    start(flavor, FailoverStack.Options.emergency());
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    iad.kill9();
    Await.until(stack, () -> "Succeeded".equals(stack.api().emergencyPhase())
        && "pdx".equals(stack.api().resource().getStatus().activeSite()), END, "the emergency failover to pdx");
    iad.restart();
    Await.until(stack, () -> iad.replicaStatus().running() && iad.replicaStatus().sourcePort() == pdx.port(), END,
        "iad rejoined as pdx's replica");
    assertThat(count("RecoveryComplete")).isEqualTo(1);

    iad.execute(flavor == Flavor.MYSQL ? "STOP REPLICA IO_THREAD" : "STOP SLAVE IO_THREAD");
    holdsFor(Duration.ofSeconds(2), () -> "No".equals(iad.replicaStatus().ioRunning()),
        "iad's IO thread stays stopped");
    // A spec edit restarts the group's monitoring, which drops what the watcher remembered of the
    // recovery: the server's own configuration still says it is no longer the recovery's to start.
    stack.api().editSpec(spec -> GroupSpecs.withEmergencyFailover(spec, new EmergencyFailoverSpec(1_000_000L)));
    holdsFor(Duration.ofSeconds(4), () -> "No".equals(iad.replicaStatus().ioRunning()),
        "iad's IO thread stays stopped through the spec edit");
    Await.until(stack, () -> degradedBy("ReplicationStopped"), END, "Degraded=True/ReplicationStopped");
    assertThat(stack.api().condition("Degraded").orElseThrow().getMessage()).contains("site 'iad'")
        .contains("IO thread stopped without an error");
    iad.execute(flavor == Flavor.MYSQL ? "STOP REPLICA" : "STOP SLAVE");
    holdsFor(Duration.ofSeconds(3), () -> !iad.replicaStatus().running(), "both threads stay stopped");
    Await.until(stack, () -> degradedBy("ReplicationStopped") && stack.api().condition("Degraded").orElseThrow()
        .getMessage().contains("IO and SQL threads stopped"), END, "Degraded naming both threads");

    ReplicaStatus r = iad.replicaStatus();
    assertThat(r.configured()).isTrue();
    assertThat(r.sourcePort()).isEqualTo(pdx.port());
    assertThat(count("RecoveryComplete")).as("the recovery acted once").isEqualTo(1);
    assertThat(count("ReplicationStopped")).as("once per change of what is stopped, not per pass").isEqualTo(2);
    assertThat(iad.isReadOnly()).isTrue();
  }

  private long count(String reason) {
    return stack.api().eventReasons().stream().filter(reason::equals).count();
  }

  private boolean degradedBy(String reason) {
    Condition c = stack.api().condition("Degraded").orElse(null);
    return c != null && "True".equals(c.getStatus()) && reason.equals(c.getReason());
  }

  private static void holdsFor(Duration d, java.util.function.BooleanSupplier condition, String what)
      throws InterruptedException {
    long until = System.nanoTime() + d.toNanos();
    while (System.nanoTime() < until) {
      assertThat(condition.getAsBoolean()).as(what).isTrue();
      Thread.sleep(100);
    }
  }
}
