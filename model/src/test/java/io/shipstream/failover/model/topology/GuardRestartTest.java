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

  /** The chart's probe: health + 3 x 2 s + 1 s + 1 s grace + the boot fence (46 s with a 5 s interval). */
  private static final Duration CHART_RESTART = HEALTH.plusSeconds(8).plus(SidecarLiveness.BOOT_FENCE_BOUND);

  @Test
  void theChartsProbeAgainstTheDefaultLeaseWaitsTheLeaseThenTheRestart() {
    Bound bound = GuardRestart.bound(Reading.probed("mysql-iad-0", Probe.CHART), LEASE, INTERVAL);

    // lease + interval, then health + 3 x 2 s + 1 s + 1 s grace + the boot fence, + margin: 72 s.
    assertThat(bound.total()).isEqualTo(LEASE.plus(INTERVAL).plus(CHART_RESTART).plusSeconds(1))
        .isEqualTo(Duration.ofSeconds(72));
    assertThat(bound.leaseWait()).isEqualTo(LEASE_WAIT);
    assertThat(bound.restartWait()).isEqualTo(CHART_RESTART.plusSeconds(1));
    assertThat(bound.guarded()).isTrue();
    assertThat(bound.basis()).contains("mysql-iad-0's liveness probe: /health fails after 15 s, then 3 x 2 s + 1 s "
        + "timeout + 1 s termination grace").contains("should it hang in its last tick before its lease fences")
        .endsWith("= 72 s");
  }

  /**
   * The case 0.1.0's rule missed, step by step: the old primary's sidecar, cut off from everything,
   * had its last contact just before the naming and keeps ticking (its server writable) until its
   * lease fences; it may hang in any of those ticks, and is then restarted and fences at boot the
   * restart bound after its last completed tick. Every such moment, to the last tick before the
   * lease's fence, is within the wait; 0.1.0's wait (the longer of the two) ends before most.
   */
  @Test
  void aSidecarThatHangsInAnyTickBeforeItsLeaseFencesHasFencedByTheEndOfTheWait() {
    Bound bound = GuardRestart.bound(Reading.probed("mysql-iad-0", Probe.CHART), LEASE, INTERVAL);
    Bound released = GuardRestart.boundAsReleased(Reading.probed("mysql-iad-0", Probe.CHART), LEASE, INTERVAL);
    Duration lastContactBeforeNaming = Duration.ofMillis(-1);
    int missedByTheReleasedWait = 0;
    // Ticks every interval from the last contact; the first whose silence exceeds the lease fences.
    for (Duration tick = lastContactBeforeNaming; tick.compareTo(lastContactBeforeNaming.plus(LEASE)) <= 0;
        tick =
        tick.plus(INTERVAL)) {
      Duration fencedAtBoot = tick.plus(CHART_RESTART);
      assertThat(fencedAtBoot).as("hung after the tick at %s from the naming", tick).isLessThan(bound.total());
      if (fencedAtBoot.compareTo(released.total()) > 0) {
        missedByTheReleasedWait++;
      }
    }
    // The tick that fences by rule 2 comes at most an interval after the lease ran out: a hang in
    // the tick just before it is the latest, and still within the wait.
    assertThat(lastContactBeforeNaming.plus(LEASE).plus(INTERVAL).plus(CHART_RESTART)).isLessThan(bound.total());
    assertThat(missedByTheReleasedWait).as("hang moments 0.1.0's wait ended before").isEqualTo(4);
  }

  @Test
  void aFrozenSidecarIsKilledOnlyAfterTheTerminationGraceSoAPodWithTheDefaultGraceWaitsItOut() {
    Probe podGrace = Probe.ofPodSpec(2, 1, 3, null, null);
    Bound bound = GuardRestart.bound(Reading.probed("mysql-iad-0", podGrace), LEASE, INTERVAL);

    assertThat(bound.total()).isEqualTo(LEASE.plus(INTERVAL).plus(HEALTH).plusSeconds(6 + 1 + 30)
        .plus(SidecarLiveness.BOOT_FENCE_BOUND).plusSeconds(1));
  }

  @Test
  void releasedRuleTheLongerOfTheLeaseAndTheRestartAsFailoversStartedBy010ReplayIt() {
    // A lease of 60 s against the chart's probe: the restart is the shorter.
    Bound longLease = GuardRestart.boundAsReleased(Reading.probed("mysql-iad-0", Probe.CHART), Duration.ofSeconds(60),
        INTERVAL);
    assertThat(longLease.total()).isEqualTo(Duration.ofSeconds(66)).isEqualTo(longLease.leaseWait());
    assertThat(longLease.restartWait()).isLessThan(longLease.total());

    Bound chart = GuardRestart.boundAsReleased(Reading.probed("mysql-iad-0", Probe.CHART), LEASE, INTERVAL);
    assertThat(chart.total()).isEqualTo(CHART_RESTART.plusSeconds(1)).isEqualTo(Duration.ofSeconds(47));
    // Word for word what 0.1.0 wrote into the Events and the status.
    assertThat(chart.basis()).isEqualTo("the longer of the lease (20 s + 5 s interval + 1 s = 26 s) and a hung "
        + "sidecar's restart (mysql-iad-0's liveness probe: /health fails after 15 s, then 3 x 2 s + 1 s timeout + "
        + "1 s termination grace + 23 s to the boot fence + 1 s = 47 s)");

    Bound unknown = GuardRestart.boundAsReleased(Reading.unknown("connection refused"), LEASE, INTERVAL);
    assertThat(unknown.total()).isEqualTo(HEALTH.plusSeconds(30 + 1 + 30).plus(SidecarLiveness.BOOT_FENCE_BOUND)
        .plusSeconds(1));
    assertThat(GuardRestart.boundAsReleased(Reading.noProbe("no probe"), LEASE, INTERVAL))
        .isEqualTo(GuardRestart.bound(Reading.noProbe("no probe"), LEASE, INTERVAL));
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

    // lease + interval, then health + 3 x 10 s + 1 s + 30 s grace + the boot fence, + margin.
    assertThat(bound.total()).isEqualTo(LEASE.plus(INTERVAL).plus(HEALTH).plusSeconds(30 + 1 + 30)
        .plus(SidecarLiveness.BOOT_FENCE_BOUND).plusSeconds(1));
    assertThat(bound.total()).isGreaterThan(LEASE_WAIT);
    assertThat(bound.reading()).isEqualTo(Basis.UNKNOWN);
    assertThat(bound.basis()).contains("Kubernetes' default probe").contains("the pod could not be read: connection "
        + "refused");
  }
}
