package io.shipstream.failover.model.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.topology.GuardRestart.Basis;
import io.shipstream.failover.model.topology.GuardRestart.Bound;
import io.shipstream.failover.model.topology.GuardRestart.Probe;
import io.shipstream.failover.model.topology.GuardRestart.Reading;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Every row of {@link GuardRestart}'s table, with the spec's default knobs (lease 20 s, interval 5 s). */
class GuardRestartTest {
  private static final Duration LEASE = Duration.ofSeconds(20);
  private static final Duration INTERVAL = Duration.ofSeconds(5);
  /** lease + interval + margin. */
  private static final Duration LEASE_WAIT = Duration.ofSeconds(26);

  @Test
  void aProbeWhoseRestartEndsAfterTheLeaseIsTheWait() {
    Bound bound = GuardRestart.bound(Reading.probed(new Probe("mysql-iad-0", 2, 1, 3, 1)), LEASE, INTERVAL);

    Duration restart = Duration.ofSeconds(20 + 6 + 1 + 1 + 1).plus(GuardRestart.BOOT_FENCE);
    assertThat(bound.restartWait()).isEqualTo(restart);
    assertThat(bound.total()).isEqualTo(restart).isGreaterThan(LEASE_WAIT);
    assertThat(bound.guarded()).isTrue();
    assertThat(bound.basis()).contains("mysql-iad-0's liveness probe: /health fails after 20 s, then 3 x 2 s + 1 s "
        + "timeout + 1 s termination grace");
  }

  @Test
  void aFrozenSidecarIsKilledOnlyAfterTheTerminationGraceSoAPodWithTheDefaultGraceWaitsItOut() {
    Bound bound = GuardRestart.bound(Reading.probed(new Probe("mysql-iad-0", 2, 1, 3, 30)), LEASE, INTERVAL);

    assertThat(bound.total()).isEqualTo(Duration.ofSeconds(20 + 6 + 1 + 30 + 1).plus(GuardRestart.BOOT_FENCE));
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

    // health 20 s + 3 x 10 s + 1 s + 30 s grace + boot + margin.
    assertThat(bound.total()).isEqualTo(Duration.ofSeconds(20 + 30 + 1 + 30 + 1).plus(GuardRestart.BOOT_FENCE));
    assertThat(bound.total()).isGreaterThan(LEASE_WAIT);
    assertThat(bound.reading()).isEqualTo(Basis.UNKNOWN);
    assertThat(bound.basis()).contains("Kubernetes' default probe").contains("the pod could not be read: connection "
        + "refused");
  }
}
