package io.shipstream.failover.workflows.planned;

import com.uber.m3.tally.Scope;
import com.uber.m3.util.Duration;
import io.temporal.workflow.Workflow;
import java.util.Map;

/**
 * The planned-failover metrics, recorded through the workflow's metrics scope so that a replay
 * does not count a failover twice. The worker reports the scope to Micrometer, whose Prometheus
 * registry adds the {@code _total} and {@code _seconds} suffixes (durations are timers because
 * Temporal's Micrometer reporter ignores tally histograms; the worker gives the timers buckets) the metric names are known by:
 * {@code bloodraven_planned_failovers_total}, {@code bloodraven_planned_failover_duration_seconds},
 * {@code bloodraven_planned_failover_lag_wait_seconds}, {@code bloodraven_dragonfly_promotions_total},
 * and {@code bloodraven_dns_flips_total{result}}, which the emergency failovers count too.
 */
final class FailoverMetrics {
  void finished(String targetSite, String result, java.time.Duration took) {
    Scope scope = Workflow.getMetricsScope();
    scope.tagged(Map.of("target_site", nullToUnknown(targetSite), "result", result))
        .counter("bloodraven_planned_failovers").inc(1);
    if ("success".equals(result)) {
      scope.tagged(Map.of("target_site", targetSite))
          .timer("bloodraven_planned_failover_duration")
          .record(Duration.ofNanos(took.toNanos()));
    }
  }

  void lagWait(String targetSite, java.time.Duration took) {
    Workflow.getMetricsScope().tagged(Map.of("target_site", targetSite))
        .timer("bloodraven_planned_failover_lag_wait")
        .record(Duration.ofNanos(took.toNanos()));
  }

  /** One per DNS flip of a promoted target, as the emergency workflow counts its own. */
  void dnsFlip(boolean ok) {
    Workflow.getMetricsScope().tagged(Map.of("result", ok ? "success" : "failed")).counter("bloodraven_dns_flips").inc(1);
  }

  /** One per failover that has the session store enabled: success, failed or skipped. */
  void dragonflyPromotion(String group, String targetSite, String result) {
    Workflow.getMetricsScope().tagged(Map.of("group", group, "target_site", nullToUnknown(targetSite), "result", result))
        .counter("bloodraven_dragonfly_promotions").inc(1);
  }

  private static String nullToUnknown(String s) {
    return s == null ? "unknown" : s;
  }
}
