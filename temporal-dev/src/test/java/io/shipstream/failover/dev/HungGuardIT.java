package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.ReplicaStatus;
import io.shipstream.failover.testsupport.WriteLoad;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Safety that does not depend on a guard being alive or a reading being fresh, on real servers:
 * each section is one case of the issue "Safety that does not depend on a guard being alive".
 */
class HungGuardIT extends StackPerTest {

  // --- fresh evidence ---

  /**
   * Case (5): {@code kill -9} of iad's server and a restart at once with the same command line
   * (writable), inside the debounce (20 polls of 500 ms), while the replicas' IO threads still
   * show the connection error of the kill: they retry every 30 s here, so the error outlives iad's
   * return by far. Once iad answers, nothing fails it over: the watcher's poll after the replicas
   * answered, its poll right before a start and the runbook's look before its fence each find it
   * answering. A failover decided while iad was really down is possible only if all three fall
   * inside the restart, and then it must end {@code PrimaryAnswered} with nothing fenced.
   */
  @Test
  void aPrimaryKilledAndRestartedWritableAtOnceIsNotFailedOverOnItsReplicasStaleErrors() {
    FailoverStack.Options emergency = FailoverStack.Options.emergency();
    start(Flavor.MARIADB, new FailoverStack.Options(emergency.sites(), emergency.drOnlySites(),
        emergency.failoverCooldown(), emergency.maxLagWait(), emergency.pollInterval(), 20, true));
    DatabaseServer iad = stack.server("iad");
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere)) {
      load.awaitAcknowledged(50, Duration.ofSeconds(30));
      for (String site : List.of("pdx", "dr")) {
        retryEvery30Seconds(stack.server(site));
      }
      long killed = System.nanoTime();
      iad.kill9();
      iad.restart();
      long answeredMs = (System.nanoTime() - killed) / 1_000_000;
      ReplicaStatus pdxSees = stack.server("pdx").replicaStatus();
      System.out.printf("kill -9 of iad, restarted writable and answering in %d ms; pdx's IO thread then: %s (%s)%n",
          answeredMs, pdxSees.ioRunning(), pdxSees.lastIoError());
      assertThat(pdxSees.lastIoError()).as("pdx still shows the connection error of the kill").isNotEmpty();

      // Long enough for a wrongly started failover to promote pdx (about 2 s with these knobs).
      Playground.sleep(6000);
      int acked = load.acknowledgedCount();
      load.awaitAcknowledged(acked + 50, Duration.ofSeconds(30));

      List<String> reasons = stack.api().eventReasons();
      EmergencyFailoverStatus run = stack.api().resource().getStatus().emergencyFailover();
      System.out.printf("Events: %s; emergency failover: %s%n", reasons, run);
      if (reasons.contains("FailoverStarted")) {
        // Decided while iad was still down: the runbook's look before its fence found it back.
        assertThat(run.reason()).isEqualTo("PrimaryAnswered");
        assertThat(run.oldPrimaryFenced()).as("nothing fenced").isNotEqualTo(Boolean.TRUE);
        assertThat(reasons).contains("FailoverRejected").doesNotContain("FailoverExecuted", "FailoverFailed");
        assertThat(stack.api().resource().getStatus().lastFailover()).as("no cooldown").isNull();
      }
      assertThat(reasons).doesNotContain("FailoverExecuted");
      assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo("iad");
      assertThat(iad.isReadOnly()).as("iad takes writes").isFalse();
      assertThat(stack.server("pdx").isReadOnly()).as("pdx was never promoted").isTrue();
    }
  }

  /** The replica retries its connection to the source every 30 s (the product's own channels retry every 2 s). */
  private void retryEvery30Seconds(DatabaseServer replica) {
    replica.execute("STOP SLAVE", "CHANGE MASTER TO MASTER_CONNECT_RETRY = 30", "START SLAVE");
    Await.until(stack, () -> replica.replicaStatus().running(), Duration.ofSeconds(30),
        replica.name() + " replicating again");
  }

  // --- end fresh evidence ---
}
