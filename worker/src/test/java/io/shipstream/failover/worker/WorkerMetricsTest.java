package io.shipstream.failover.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.uber.m3.tally.DurationBuckets;
import com.uber.m3.tally.Scope;
import com.uber.m3.tally.ValueBuckets;
import com.uber.m3.util.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What Prometheus sees of what the workflows record through Temporal's metrics scope. The
 * interval is long: every test reports by closing the scope, which flushes it once, so nothing
 * depends on timing.
 */
class WorkerMetricsTest {
  private static final DurationBuckets FAILOVER_BUCKETS = DurationBuckets.custom(
      Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2),
      Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(60),
      Duration.ofSeconds(300));

  private final WorkerMetrics metrics = WorkerMetrics.start(java.time.Duration.ofHours(1));

  @AfterEach
  void close() {
    metrics.close();
  }

  @Test
  void aTallyDurationHistogramBecomesAPrometheusHistogramWithTheSameBuckets() throws Exception {
    Scope pdx = metrics.scope().tagged(Map.of("target_site", "pdx"));
    pdx.histogram("bloodraven_planned_failover_duration", FAILOVER_BUCKETS).recordDuration(Duration.ofMillis(3200));
    pdx.histogram("bloodraven_planned_failover_duration", FAILOVER_BUCKETS).recordDuration(Duration.ofMillis(4100));
    pdx.histogram("bloodraven_planned_failover_duration", FAILOVER_BUCKETS).recordDuration(Duration.ofSeconds(400));

    metrics.scope().close();
    String scrape = metrics.scrape();

    assertThat(scrape)
        .contains("bloodraven_planned_failover_duration_seconds_bucket{target_site=\"pdx\",le=\"2.0\"} 0")
        .contains("bloodraven_planned_failover_duration_seconds_bucket{target_site=\"pdx\",le=\"5.0\"} 2")
        .contains("bloodraven_planned_failover_duration_seconds_bucket{target_site=\"pdx\",le=\"300.0\"} 2")
        .contains("bloodraven_planned_failover_duration_seconds_bucket{target_site=\"pdx\",le=\"+Inf\"} 3")
        .contains("bloodraven_planned_failover_duration_seconds_count{target_site=\"pdx\"} 3");
  }

  @Test
  void aTallyValueHistogramBecomesAPrometheusHistogram() throws Exception {
    metrics.scope().histogram("bloodraven_test_sessions", ValueBuckets.custom(10, 100))
        .recordValue(42);

    metrics.scope().close();

    assertThat(metrics.scrape())
        .contains("bloodraven_test_sessions_bucket{le=\"10.0\"} 0")
        .contains("bloodraven_test_sessions_bucket{le=\"100.0\"} 1")
        .contains("bloodraven_test_sessions_count 1");
  }

  @Test
  void failoverTimersGetFailoverScaleBucketsAndTemporalTimersKeepTheirs() throws Exception {
    metrics.scope().timer("bloodraven_planned_failover_lag_wait").record(Duration.ofMillis(700));
    metrics.scope().timer("temporal_activity_execution_latency").record(Duration.ofMillis(700));

    metrics.scope().close();
    String scrape = metrics.scrape();

    assertThat(scrape.lines().filter(l -> l.startsWith("bloodraven_planned_failover_lag_wait_seconds_bucket")))
        .hasSize(WorkerMetrics.FAILOVER_BUCKETS_SECONDS.length + 1)
        .contains("bloodraven_planned_failover_lag_wait_seconds_bucket{le=\"0.5\"} 0",
            "bloodraven_planned_failover_lag_wait_seconds_bucket{le=\"1.0\"} 1");
    assertThat(scrape.lines().filter(l -> l.startsWith("temporal_activity_execution_latency_seconds_bucket")).count())
        .as("Temporal's reporter asks for a percentile histogram")
        .isGreaterThan(20);
  }

  @Test
  void countersGetTheTotalSuffixAndJvmMetricsAreThere() throws Exception {
    metrics.scope().tagged(Map.of("target_site", "pdx", "result", "success"))
        .counter("bloodraven_planned_failovers").inc(1);

    metrics.scope().close();

    assertThat(metrics.scrape())
        .contains("bloodraven_planned_failovers_total{result=\"success\",target_site=\"pdx\"} 1.0")
        .contains("jvm_memory_used_bytes", "jvm_threads_live_threads", "process_uptime_seconds");
  }

  @Test
  void representativeValuesFallInsideTheirPrometheusBucket() {
    long min = Duration.MIN_VALUE.getNanos();
    long max = Duration.MAX_VALUE.getNanos();

    assertThat(HistogramReportingStatsReporter.representative(2_000, 5_000, min, max)).isEqualTo(3_500);
    assertThat(HistogramReportingStatsReporter.representative(min, 250, min, max)).isEqualTo(125);
    assertThat(HistogramReportingStatsReporter.representative(300, max, min, max)).isEqualTo(301);
    assertThat(HistogramReportingStatsReporter.representative(Double.MIN_VALUE, 10)).isEqualTo(5);
    assertThat(HistogramReportingStatsReporter.representative(100, Double.MAX_VALUE)).isGreaterThan(100);
  }
}
