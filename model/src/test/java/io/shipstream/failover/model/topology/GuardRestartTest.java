package io.shipstream.failover.model.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.SidecarLiveness;
import io.shipstream.failover.model.SidecarLiveness.Probe;
import io.shipstream.failover.model.topology.GuardRestart.Basis;
import io.shipstream.failover.model.topology.GuardRestart.Bound;
import io.shipstream.failover.model.topology.GuardRestart.Reading;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Every row of {@link GuardRestart}'s table, with the spec's default knobs (lease 20 s, interval 5 s). */
class GuardRestartTest {
  private static final Duration LEASE = Duration.ofSeconds(20);
  private static final Duration INTERVAL = Duration.ofSeconds(5);
  /** lease + interval + margin. */
  private static final Duration LEASE_WAIT = Duration.ofSeconds(26);
  /** /health fails 15 s after the last completed tick with a 5 s interval. */
  private static final Duration HEALTH = SidecarLiveness.healthBound(INTERVAL);

  @Test
  void aProbeWhoseRestartEndsBeforeTheLeaseLeavesTheLeaseAsTheWait() {
    // A lease of 60 s against the chart's probe: the restart is the shorter.
    Bound bound = GuardRestart.bound(Reading.probed("mysql-iad-0", Probe.CHART), Duration.ofSeconds(60), INTERVAL);

    assertThat(bound.total()).isEqualTo(Duration.ofSeconds(66)).isEqualTo(bound.leaseWait());
    assertThat(bound.restartWait()).isLessThan(bound.total());
    assertThat(bound.reading()).isEqualTo(Basis.PROBED);
  }

  @Test
  void theChartsProbeAgainstTheDefaultLeaseMakesTheRestartTheWait() {
    Bound bound = GuardRestart.bound(Reading.probed("mysql-iad-0", Probe.CHART), LEASE, INTERVAL);

    // health + 3 x 2 s + 1 s + 1 s grace + the boot fence + margin.
    Duration restart = HEALTH.plusSeconds(8).plus(SidecarLiveness.BOOT_FENCE_BOUND).plusSeconds(1);
    assertThat(bound.restartWait()).isEqualTo(restart);
    assertThat(bound.total()).isEqualTo(restart).isGreaterThan(LEASE_WAIT);
    assertThat(bound.guarded()).isTrue();
    assertThat(bound.basis()).contains("mysql-iad-0's liveness probe: /health fails after 15 s, then 3 x 2 s + 1 s "
        + "timeout + 1 s termination grace");
  }

  @Test
  void aFrozenSidecarIsKilledOnlyAfterTheTerminationGraceSoAPodWithTheDefaultGraceWaitsItOut() {
    Probe podGrace = Probe.ofPodSpec(2, 1, 3, null, null);
    Bound bound = GuardRestart.bound(Reading.probed("mysql-iad-0", podGrace), LEASE, INTERVAL);

    assertThat(bound.total()).isEqualTo(HEALTH.plusSeconds(6 + 1 + 30).plus(SidecarLiveness.BOOT_FENCE_BOUND)
        .plusSeconds(1));
  }

  @Test
  void noProbeLeavesTheLeaseAndSaysNothingRestartsAHungSidecar() {
    Bound bound = GuardRestart.bound(Reading.noProbe("pod mysql-iad-0 has no liveness probe on /health"), LEASE,
        INTERVAL);

    assertThat(bound.total()).isEqualTo(LEASE_WAIT);
    assertThat(bound.guarded()).isFalse();
    assertThat(bound.reading()).isEqualTo(Basis.NO_PROBE);
    assertThat(bound.basis()).contains("a hung sidecar is never restarted");
  }

  @Test
  void anUnreadablePodIsWaitedOutWithKubernetesDefaultsNeverTheBareLease() {
    Bound bound = GuardRestart.bound(Reading.unknown("connection refused"), LEASE, INTERVAL);

    // health + 3 x 10 s + 1 s + 30 s grace + the boot fence + margin.
    assertThat(bound.total()).isEqualTo(HEALTH.plusSeconds(30 + 1 + 30).plus(SidecarLiveness.BOOT_FENCE_BOUND)
        .plusSeconds(1));
    assertThat(bound.total()).isGreaterThan(LEASE_WAIT);
    assertThat(bound.reading()).isEqualTo(Basis.UNKNOWN);
    assertThat(bound.basis()).contains("Kubernetes' default probe").contains("the pod could not be read: connection "
        + "refused");
  }
}
