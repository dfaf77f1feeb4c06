package io.shipstream.failover.workflows.planned;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the planned failovers count, as Prometheus sees it through the worker: every {@code result}
 * of {@code bloodraven_planned_failovers_total} the seed page names, one per failover, and
 * {@code bloodraven_dns_flips_total} for the planned flip as for the emergency one. The alerts and
 * the dashboard of the chart are built on exactly these label values.
 */
class PlannedFailoverMetricsTest {
  private final PlannedRig rig = new PlannedRig();

  @AfterEach
  void tearDown() {
    rig.close();
  }

  @Test
  void aSuccessCountsOnceWithItsDurationAndItsDnsFlip() {
    assertThat(rig.request("pdx").phase()).isEqualTo("Succeeded");

    awaitOne("bloodraven_planned_failovers", Map.of("target_site", "pdx", "result", "success"));
    awaitOne("bloodraven_dns_flips", Map.of("result", "success"));
    assertThat(rig.metrics.timerRecordings("bloodraven_planned_failover_duration", Map.of("target_site", "pdx")))
        .isEqualTo(1);
    assertThat(rig.metrics.counter("bloodraven_planned_failovers", Map.of())).as("nothing else counted").isEqualTo(1);
  }

  @Test
  void aRejectedRequestCountsAsRejected() {
    assertThat(rig.request("sfo").reason()).isEqualTo("UnknownSite");

    awaitOne("bloodraven_planned_failovers", Map.of("target_site", "sfo", "result", "rejected"));
    assertThat(rig.metrics.counter("bloodraven_dns_flips", Map.of())).as("no flip").isZero();
  }

  @Test
  void aLagTimeoutCountsAsFailedTimeout() {
    rig.mysql.server("pdx").lagging = true;

    assertThat(rig.request("pdx:maxLagWait=1s").reason()).isEqualTo("LagTimeout");

    awaitOne("bloodraven_planned_failovers", Map.of("target_site", "pdx", "result", "failed_timeout"));
    assertThat(rig.metrics.timerRecordings("bloodraven_planned_failover_lag_wait", Map.of("target_site", "pdx")))
        .as("the failed wait is recorded too").isEqualTo(1);
  }

  @Test
  void anyOtherFailureCountsAsFailedOther() {
    rig.mysql.server("pdx").promoteFails = true;

    PlannedFailoverStatus result = rig.request("pdx");

    assertThat(result.reason()).isEqualTo("ExecuteFailed");
    awaitOne("bloodraven_planned_failovers", Map.of("target_site", "pdx", "result", "failed_other"));
  }

  @Test
  void aFailedDnsFlipOfAPlannedFailoverCountsAsFailed() {
    rig.k8s.dnsFails = true;

    assertThat(rig.request("pdx").phase()).isEqualTo("Succeeded");

    awaitOne("bloodraven_dns_flips", Map.of("result", "failed"));
    awaitOne("bloodraven_planned_failovers", Map.of("target_site", "pdx", "result", "success"));
  }

  /** The scope reports every 10 ms, after the workflow has returned. */
  private void awaitOne(String name, Map<String, String> tags) {
    long until = System.nanoTime() + 5_000_000_000L;
    while (rig.metrics.counter(name, tags) == 0 && System.nanoTime() < until) {
      Thread.yield();
    }
    assertThat(rig.metrics.counter(name, tags)).as(name + tags).isEqualTo(1);
  }
}
