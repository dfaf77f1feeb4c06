package io.shipstream.failover.worker;

import com.uber.m3.tally.Buckets;
import com.uber.m3.util.Duration;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.temporal.common.reporter.MicrometerClientStatsReporter;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Temporal's Micrometer reporter, plus the tally histograms it silently drops. The workflows
 * record their durations with {@code Scope.histogram} (see the workflows module's
 * FailoverMetrics), and the stock reporter's histogram methods do nothing, so without this class
 * {@code bloodraven_planned_failover_duration_seconds} would never reach Prometheus.
 *
 * <p>Tally reports a histogram as "n samples fell in bucket [lower, upper)" once per interval.
 * Each becomes a Micrometer timer (or summary) whose buckets are exactly tally's, fed n samples
 * of a value inside the bucket (its midpoint; just above the last bound for the overflow bucket).
 * Counts and buckets are therefore exact, apart from a sample lying exactly on a bound, which
 * tally counts in the bucket above and Prometheus ({@code le} is inclusive) would have counted in
 * the one below. {@code _sum} and {@code _max} are estimates built from those midpoints; a
 * workflow that records with {@code Scope.timer} instead gets exact ones (and the buckets of
 * {@link WorkerMetrics#failoverTimersAsHistograms}).
 */
final class HistogramReportingStatsReporter extends MicrometerClientStatsReporter {
  private final MeterRegistry registry;

  HistogramReportingStatsReporter(MeterRegistry registry) {
    super(registry);
    this.registry = registry;
  }

  @Override
  public void reportHistogramDurationSamples(String name, Map<String, String> tags, Buckets buckets,
      Duration lower, Duration upper, long samples) {
    java.time.Duration[] bounds = Arrays.stream(buckets.asDurations())
        .map(d -> java.time.Duration.ofNanos(d.getNanos()))
        .toArray(java.time.Duration[]::new);
    Timer timer = Timer.builder(name).tags(tags(tags)).serviceLevelObjectives(bounds).register(registry);
    long nanos = representative(lower.getNanos(), upper.getNanos(), Duration.MIN_VALUE.getNanos(),
        Duration.MAX_VALUE.getNanos());
    for (long i = 0; i < samples; i++) {
      timer.record(java.time.Duration.ofNanos(nanos));
    }
  }

  @Override
  public void reportHistogramValueSamples(String name, Map<String, String> tags, Buckets buckets,
      double lower, double upper, long samples) {
    double[] bounds = Arrays.stream(buckets.asValues()).mapToDouble(Double::doubleValue).toArray();
    DistributionSummary summary = DistributionSummary.builder(name).tags(tags(tags))
        .serviceLevelObjectives(bounds).register(registry);
    double value = representative(lower, upper);
    for (long i = 0; i < samples; i++) {
      summary.record(value);
    }
  }

  /** A value tally would have put in [lower, upper) and Prometheus puts in the bucket {@code le=upper}. */
  static long representative(long lower, long upper, long min, long max) {
    if (upper == max) {
      return lower + 1;
    }
    if (lower == min) {
      // The first bucket starts at minus infinity; durations start at zero.
      return Math.max(0, upper / 2);
    }
    return lower + (upper - lower) / 2;
  }

  static double representative(double lower, double upper) {
    if (Double.isInfinite(upper) || upper == Double.MAX_VALUE) {
      return Math.nextUp(lower);
    }
    // Tally starts the first value bucket at Double.MIN_VALUE (the smallest positive double).
    if (Double.isInfinite(lower) || lower == -Double.MAX_VALUE || lower == Double.MIN_VALUE) {
      return upper > 0 ? upper / 2 : Math.nextDown(upper);
    }
    return lower + (upper - lower) / 2;
  }

  private static List<Tag> tags(Map<String, String> tags) {
    if (tags == null) {
      // The root scope reports no tags at all rather than an empty map.
      return List.of();
    }
    return tags.entrySet().stream().map(e -> Tag.of(e.getKey(), e.getValue())).toList();
  }
}
