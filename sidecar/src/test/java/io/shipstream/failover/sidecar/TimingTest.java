package io.shipstream.failover.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.SidecarLiveness;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The health bound's allowances against the sidecar's own timeouts: a tick that stays within its
 * timeouts never makes {@code /health} fail, and with the spec's defaults the bound is below the
 * lease.
 */
class TimingTest {

  @Test
  void aTickWithinItsTimeoutsFitsTheAllowances() {
    assertThat(Timing.MAX_REQUEST_TIMEOUT).isEqualTo(SidecarLiveness.MAX_REQUEST_TIMEOUT);
    for (Duration interval : new Duration[] {Duration.ofMillis(100), Duration.ofMillis(500), Duration.ofSeconds(5),
        Duration.ofSeconds(30)}) {
      assertThat(new Timing(interval.multipliedBy(3), interval).requestTimeout())
          .isLessThanOrEqualTo(SidecarLiveness.MAX_REQUEST_TIMEOUT);
    }
    assertThat(JdbcLocalMysql.LONGEST_HEALTHY_WORK).isLessThanOrEqualTo(SidecarLiveness.LOCAL_MYSQL_ALLOWANCE);
    // A server that does not answer: the look gives up, then the stop waits for the process.
    assertThat(JdbcLocalMysql.CONNECT_TIMEOUT.plus(JdbcLocalMysql.PROBE_TIMEOUT).plus(FencingLoop.STOP_WAIT))
        .isLessThanOrEqualTo(SidecarLiveness.LOCAL_MYSQL_ALLOWANCE);
    assertThat(JdbcLocalMysql.SOCKET_TIMEOUT).isGreaterThan(Duration.ofSeconds(JdbcLocalMysql.LOCK_WAIT_SECONDS));
  }

  @Test
  void theHealthBoundIsTheIntervalPlusTheLongestHealthyTick() {
    Timing defaults = new Timing(Duration.ofSeconds(20), Duration.ofSeconds(5));
    assertThat(defaults.healthBound()).isEqualTo(Duration.ofSeconds(15));
    assertThat(defaults.healthBound()).isLessThan(defaults.leaseTimeout());
    assertThat(new Timing(Duration.ofSeconds(2), Duration.ofMillis(500)).healthBound())
        .isEqualTo(Duration.ofMillis(10_500));
  }

  @Test
  void theChartsProbeRestartsAStalledSidecarAndItFencesWithinTheBound() {
    SidecarLiveness.Probe probe = SidecarLiveness.Probe.CHART;
    assertThat(probe.restartWithin()).isEqualTo(Duration.ofSeconds(2 * 3 + 1 + 1));
    assertThat(SidecarLiveness.BOOT_FENCE_BOUND).isEqualTo(SidecarLiveness.JVM_START_ALLOWANCE
        .plus(Timing.MAX_REQUEST_TIMEOUT).plus(SidecarLiveness.LOCAL_MYSQL_ALLOWANCE));
    assertThat(SidecarLiveness.restartAndFenceBound(probe, Duration.ofSeconds(5)))
        .isEqualTo(Duration.ofSeconds(15 + 8).plus(SidecarLiveness.BOOT_FENCE_BOUND));
    // Kubernetes' defaults where the pod says nothing: a 30 s grace dominates.
    assertThat(SidecarLiveness.Probe.ofPodSpec(null, null, null, null, null).restartWithin())
        .isEqualTo(Duration.ofSeconds(10 * 3 + 1 + 30));
  }
}
