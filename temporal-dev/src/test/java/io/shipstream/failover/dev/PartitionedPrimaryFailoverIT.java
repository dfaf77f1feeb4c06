package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.TcpProxy;
import io.shipstream.failover.testsupport.WriteLoad;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The emergency failover with a sidecar per site, the spec carrying each sidecar's URL and knobs. The old primary may be dead, or alive and cut off from the control plane; the
 * candidate must not become writable while the old primary may still take writes, and a plain
 * crash must not cost a lease wait.
 */
class PartitionedPrimaryFailoverIT extends StackPerTest {
  @Test
  void anOldPrimaryCutOffFromTheControlPlaneIsReadOnlyBeforeTheCandidateIsWritable() {
    stack = FailoverStack.start(work, FailoverStack.Options.emergency());
    // A lease longer than detection plus the failed fence attempt (about 7 s here): without the
    // wait for iad's lease, pdx would be writable seconds before iad's sidecar fences iad by rule 2.
    SidecarMesh sidecars = stack.startSidecars(new SidecarMesh.Knobs(Duration.ofSeconds(10), Duration.ofSeconds(1)));
    TcpProxy controlToIad = stack.proxyControlPlaneMysql("iad");
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    WritableSampler sampler = WritableSampler.started(stack, new Timeline(System.out));
    // The application still reaches iad directly: only the control plane is cut off from it.
    try (WriteLoad load = WriteLoad.start(iad::jdbcUrl)) {
      load.awaitAcknowledged(50, Duration.ofSeconds(30));
      pdx.awaitCaughtUpWith(iad, Duration.ofSeconds(30));
      sampler.resetMost();
      // Cut off from everything but its application: replicas that still heard iad would prove it
      // alive and no failover would start (holistic detection, model PrimaryConfirmation row c2);
      // replicas that cannot vouch leave it to the debounce, and the lease wait is what is tested.
      pdx.stopReplicaIoThread();
      stack.server("dr").stopReplicaIoThread();
      controlToIad.blackhole();
      sidecars.partition("iad");

      Await.until(stack, () -> "Succeeded".equals(stack.api().emergencyPhase()), Duration.ofSeconds(90),
          "the emergency failover to succeed");
      Await.until(stack, () -> !pdx.isReadOnly(), Duration.ofSeconds(5), "pdx writable");
      sampler.stop();

      assertThat(sampler.most()).as("never two writable servers, sampled every 50 ms").isLessThanOrEqualTo(1);
      assertThat(iad.isReadOnly()).as("iad fenced by its sidecar (rule 2)").isTrue();
      assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo("pdx");
      assertThat(stack.api().eventReasons())
          .contains("OldPrimaryNotFenced", "OldPrimaryLeaseWait", "OldPrimaryLeaseExpired")
          .doesNotContain("OldPrimaryFenceConfirmed");
      assertThat(stack.api().eventMessages("OldPrimaryLeaseWait").get(0)).contains("for iad's lease to expire");
    } finally {
      sampler.stop();
    }
  }

  @Test
  void aKilledPrimaryWithALiveSidecarIsConfirmedFencedWithoutWaitingForItsLease() {
    stack = FailoverStack.start(work, FailoverStack.Options.emergency());
    stack.startSidecars(SidecarMesh.Knobs.playground());
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere)) {
      load.awaitAcknowledged(50, Duration.ofSeconds(30));
      int ackedAtKill = load.acknowledgedCount();
      long killedAt = System.nanoTime();
      stack.server("iad").kill9();

      Await.until(stack, () -> "Succeeded".equals(stack.api().emergencyPhase()), Duration.ofSeconds(60),
          "the emergency failover to succeed");
      load.awaitAcknowledged(ackedAtKill + 20, Duration.ofSeconds(30));
      long firstAfter = load.acks().stream().filter(a -> a.nanos() > killedAt).mapToLong(WriteLoad.Ack::nanos)
          .min().orElseThrow();
      System.out.printf(
          "kill -9 with sidecars: first acknowledged write on pdx %d ms after the kill; failover %.1f s%n",
          Duration.ofNanos(firstAfter - killedAt).toMillis(),
          stack.api().resource().getStatus().emergencyFailover().durationSeconds());

      assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo("pdx");
      assertThat(stack.api().eventMessages("OldPrimaryFenceConfirmed")).singleElement().asString()
          .contains("iad's sidecar confirms iad takes no writes: its server process is dead (STOPPED");
      assertThat(stack.api().eventReasons()).doesNotContain("OldPrimaryLeaseWait", "OldPrimaryLeaseExpired",
          "OldPrimaryNotGuarded");
    }
  }

}
