package io.shipstream.failover.workflows.emergency;

import com.uber.m3.tally.Scope;
import com.uber.m3.util.Duration;
import io.temporal.workflow.Workflow;
import java.util.Map;

/**
 * The emergency-failover metrics, recorded through the workflow's metrics scope so that a replay
 * does not count a failover twice. Prometheus adds the suffixes they are known by:
 * {@code bloodraven_failovers_total{target_site, result}},
 * {@code bloodraven_failover_duration_seconds{target_site}},
 * {@code bloodraven_dns_flips_total{result}} and {@code bloodraven_taint_operations_total{result}}.
 */
final class EmergencyFailoverMetrics {
  static final String SUCCESS = "success";
  static final String FAILED = "failed";

  void finished(String targetSite, String result, java.time.Duration took) {
    Scope scope = Workflow.getMetricsScope();
    scope.tagged(Map.of("target_site", nullToUnknown(targetSite), "result", result))
        .counter("bloodraven_failovers").inc(1);
    if (SUCCESS.equals(result)) {
      scope.tagged(Map.of("target_site", targetSite))
          .timer("bloodraven_failover_duration")
          .record(Duration.ofNanos(took.toNanos()));
    }
  }

  void dnsFlip(boolean ok) {
    Workflow.getMetricsScope().tagged(Map.of("result", ok ? SUCCESS : FAILED)).counter("bloodraven_dns_flips").inc(1);
  }

  void taintOperation(boolean ok) {
    Workflow.getMetricsScope().tagged(Map.of("result", ok ? SUCCESS : FAILED))
        .counter("bloodraven_taint_operations").inc(1);
  }

  private static String nullToUnknown(String s) {
    return s == null ? "unknown" : s;
  }
}
