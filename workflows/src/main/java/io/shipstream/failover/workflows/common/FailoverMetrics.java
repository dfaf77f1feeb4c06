package io.shipstream.failover.workflows.common;

import com.uber.m3.tally.Scope;
import com.uber.m3.util.Duration;
import io.temporal.workflow.Workflow;
import java.util.Map;

/**
 * The failover metrics, one set for both runbooks, recorded through the workflow's metrics scope so
 * that a replay does not count a failover twice. The worker reports the scope to Micrometer, whose
 * Prometheus registry adds the {@code _total} and {@code _seconds} suffixes (durations are timers
 * because Temporal's Micrometer reporter ignores tally histograms; the worker gives the timers
 * buckets) the metric names are known by:
 * <ul>
 *   <li>{@code bloodraven_planned_failovers_total{target_site, result}} and
 *       {@code bloodraven_planned_failover_duration_seconds{target_site}} for planned failovers,
 *       {@code bloodraven_failovers_total{target_site, result}} and
 *       {@code bloodraven_failover_duration_seconds{target_site}} for emergency ones ({@link FailoverKind});
 *   <li>{@code bloodraven_planned_failover_lag_wait_seconds{target_site}}, the planned lag wait, whether
 *       the target caught up or not (a LagTimeout records the whole maxLagWait);
 *   <li>{@code bloodraven_write_window_seconds{kind}}, how long writes stopped in each failover whose target
 *       became writable ({@link io.shipstream.failover.model.crd.WriteWindow}): planned, the source's fence
 *       to the target writable; emergency, the watcher's detection to the candidate writable;
 *   <li>{@code bloodraven_dns_flips_total{result}} and {@code bloodraven_taint_operations_total{result}},
 *       the routing after a promotion of either kind;
 *   <li>{@code bloodraven_dragonfly_promotions_total{group, target_site, result}}, one per failover
 *       that moves the session store.
 * </ul>
 */
public final class FailoverMetrics {
  static final String SUCCESS = "success";
  static final String FAILED = "failed";

  private final FailoverKind kind;

  public FailoverMetrics(FailoverKind kind) {
    this.kind = kind;
  }

  void finished(String targetSite, String result, java.time.Duration took) {
    Scope scope = Workflow.getMetricsScope();
    scope.tagged(Map.of("target_site", nullToUnknown(targetSite), "result", result))
        .counter(kind.counter()).inc(1);
    if (SUCCESS.equals(result)) {
      scope.tagged(Map.of("target_site", targetSite))
          .timer(kind.durationTimer())
          .record(Duration.ofNanos(took.toNanos()));
    }
  }

  public void lagWait(String targetSite, java.time.Duration took) {
    Workflow.getMetricsScope().tagged(Map.of("target_site", targetSite))
        .timer("bloodraven_planned_failover_lag_wait")
        .record(Duration.ofNanos(took.toNanos()));
  }

  /** The run's write window, once its target is writable; nothing when it was not measured. */
  void writeWindow(io.shipstream.failover.model.crd.WriteWindow window) {
    if (window == null || window.seconds() == null) {
      return;
    }
    Workflow.getMetricsScope().tagged(Map.of("kind", kind.name().toLowerCase(java.util.Locale.ROOT)))
        .timer("bloodraven_write_window")
        .record(Duration.ofNanos(Math.max(0, Math.round(window.seconds() * 1_000_000_000L))));
  }

  /** One per failover that has the session store enabled: success, failed or skipped. */
  public void dragonflyPromotion(String group, String targetSite, String result) {
    Workflow.getMetricsScope()
        .tagged(Map.of("group", group, "target_site", nullToUnknown(targetSite), "result", result))
        .counter("bloodraven_dragonfly_promotions").inc(1);
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
