package io.shipstream.failover.workflows.fakes;

import com.uber.m3.tally.Buckets;
import com.uber.m3.tally.Capabilities;
import com.uber.m3.tally.CapableOf;
import com.uber.m3.tally.StatsReporter;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** What a Prometheus scrape of the worker would count: counter totals per name and tags. */
public final class MetricsCapture implements StatsReporter {
  private final Map<String, Long> counters = new ConcurrentHashMap<>();
  private final Map<String, Long> timers = new ConcurrentHashMap<>();

  /** The total of the counter over every series whose tags include the given ones. */
  public long counter(String name, Map<String, String> tags) {
    return sum(counters, name, tags);
  }

  /**
   * Waits up to five seconds for the counter to reach one, and asserts it did: counters reach the
   * reporter on the scope's next report, a few milliseconds after the workflow counted.
   */
  public void awaitCounter(String name, Map<String, String> tags) {
    long until = System.nanoTime() + 5_000_000_000L;
    while (counter(name, tags) == 0 && System.nanoTime() < until) {
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    if (counter(name, tags) != 1) {
      throw new AssertionError("[" + name + tags + "] expected 1 but was " + counter(name, tags));
    }
  }

  public long timerRecordings(String name, Map<String, String> tags) {
    return sum(timers, name, tags);
  }

  private static long sum(Map<String, Long> series, String name, Map<String, String> tags) {
    return series.entrySet().stream()
        .filter(e -> e.getKey().startsWith(name + "{"))
        .filter(e -> tags.entrySet().stream().allMatch(t -> e.getKey().contains(t.getKey() + "=" + t.getValue())))
        .mapToLong(Map.Entry::getValue).sum();
  }

  private static String key(String name, Map<String, String> tags) {
    return name + new java.util.TreeMap<>(tags);
  }

  @Override
  public void reportCounter(String name, Map<String, String> tags, long value) {
    counters.merge(key(name, tags), value, Long::sum);
  }

  @Override
  public void reportTimer(String name, Map<String, String> tags, com.uber.m3.util.Duration interval) {
    timers.merge(key(name, tags), 1L, Long::sum);
  }

  @Override
  public void reportGauge(String name, Map<String, String> tags, double value) {}

  @Override
  public void reportHistogramValueSamples(String name, Map<String, String> tags, Buckets buckets,
      double bucketLowerBound, double bucketUpperBound, long samples) {}

  @Override
  public void reportHistogramDurationSamples(String name, Map<String, String> tags, Buckets buckets,
      com.uber.m3.util.Duration bucketLowerBound, com.uber.m3.util.Duration bucketUpperBound, long samples) {}

  @Override
  public Capabilities capabilities() {
    return CapableOf.REPORTING_TAGGING;
  }

  @Override
  public void flush() {}

  @Override
  public void close() {}
}
