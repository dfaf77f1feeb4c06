package io.shipstream.failover.worker;

import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
import com.uber.m3.tally.ScopeCloseException;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.shipstream.failover.runtime.Metric;
import io.shipstream.failover.runtime.ProcessMetrics;
import java.time.Duration;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process's Prometheus registry (the runtime module's {@link ProcessMetrics}) and the Temporal
 * metrics scope that feeds it. The workflows count failovers through the scope (so a replay does
 * not count twice); the scope is copied into the registry every {@code reportInterval}, and
 * {@code /metrics} serves the registry.
 */
final class WorkerMetrics implements AutoCloseable {
  /**
   * Buckets for the failover timers, in seconds: a planned failover takes seconds when all is
   * well and minutes when it waits for lag, and the buckets follow what an SLO would ask.
   */
  static final double[] FAILOVER_BUCKETS_SECONDS = {0.25, 0.5, 1, 2, 5, 10, 30, 60, 300};

  /**
   * Buckets for {@code bloodraven_write_window}, in seconds: a planned switchover stops writes for
   * a fraction of a second when all is well, so the SLO's buckets start at 50 ms.
   */
  static final double[] WRITE_WINDOW_BUCKETS_SECONDS = {0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300};

  private static final Logger log = LoggerFactory.getLogger(WorkerMetrics.class);

  private final ProcessMetrics process;
  private final Scope scope;

  private WorkerMetrics(ProcessMetrics process, Scope scope) {
    this.process = process;
    this.scope = scope;
  }

  static WorkerMetrics start(Duration reportInterval) {
    ProcessMetrics process = ProcessMetrics.create(describeFailoverMeters(), failoverTimersAsHistograms());
    Scope scope = new RootScopeBuilder()
        .reporter(new HistogramReportingStatsReporter(process.registry()))
        .reportEvery(com.uber.m3.util.Duration.ofMillis(reportInterval.toMillis()));
    return new WorkerMetrics(process, scope);
  }

  /**
   * Gives the workflows' meters their help text from the {@link Metric} catalogue. Temporal's
   * reporter registers a meter with its name and tags only, and a Prometheus family without HELP is
   * what {@code promtool check metrics} flags (AlertRulesTest runs it on this scrape).
   */
  static MeterFilter describeFailoverMeters() {
    return new MeterFilter() {
      @Override
      public Meter.Id map(Meter.Id id) {
        if (!id.getName().startsWith("bloodraven_") || id.getDescription() != null) {
          return id;
        }
        String help = Metric.byMeterName(id.getName()).map(Metric::help).orElse("Recorded by the failover workflows");
        return new Meter.Id(id.getName(), Tags.of(id.getTagsAsIterable()), id.getBaseUnit(), help, id.getType());
      }
    };
  }

  /**
   * Timers named {@code bloodraven_*} get Prometheus buckets at failover scale instead of the
   * percentile histogram Temporal's reporter asks for (about seventy buckets per series, most of
   * them sub-millisecond). A timer that already has its buckets, such as a tally histogram
   * carried over by {@link HistogramReportingStatsReporter}, keeps them.
   */
  static MeterFilter failoverTimersAsHistograms() {
    double[] bucketsNanos = Arrays.stream(FAILOVER_BUCKETS_SECONDS).map(s -> s * 1e9).toArray();
    double[] windowNanos = Arrays.stream(WRITE_WINDOW_BUCKETS_SECONDS).map(s -> s * 1e9).toArray();
    return new MeterFilter() {
      @Override
      public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
        if (id.getType() != Meter.Type.TIMER || !id.getName().startsWith("bloodraven_")
            || config.getServiceLevelObjectiveBoundaries() != null) {
          return config;
        }
        return DistributionStatisticConfig.builder()
            .percentilesHistogram(false)
            .serviceLevelObjectives(
                id.getName().startsWith(Metric.WRITE_WINDOW.meterName()) ? windowNanos : bucketsNanos)
            .build()
            .merge(config);
      }
    };
  }

  PrometheusMeterRegistry registry() {
    return process.registry();
  }

  Scope scope() {
    return scope;
  }

  /** The Prometheus text exposition of everything registered. */
  String scrape() {
    return process.scrape();
  }

  /** Reports the scope one last time, then releases the registry. */
  @Override
  public void close() {
    try {
      scope.close();
    } catch (ScopeCloseException e) {
      log.warn("the last metrics report failed: {}", e.toString());
    }
    process.close();
  }
}
