package io.shipstream.failover.watcher;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.shipstream.failover.runtime.Metric;
import io.shipstream.failover.runtime.ProcessMetrics;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The watcher's meters, on the process registry {@code /metrics} serves: whether this replica is
 * the leader, and what became of the planned-failover requests it handled.
 */
public final class WatcherMetrics implements AutoCloseable {
  /** What became of one planned-failover request; the {@code outcome} label is the lower-case name. */
  public enum RequestOutcome {
    /** A workflow was started for it. */
    STARTED,
    /** Another planned failover holds the group; the request waits for it to end (counted once). */
    ALREADY_RUNNING,
    /** Refused without a workflow: another kind of failover holds the group. */
    REJECTED,
    /**
     * The annotation was removed or changed, or the resource went away, while the failover ran,
     * and it got the cancel signal. The workflow removing the annotation itself when it ends is
     * not counted.
     */
    CANCELLED;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final ProcessMetrics process;
  private final AtomicInteger leader = new AtomicInteger();
  private final Map<RequestOutcome, Counter> requests = new EnumMap<>(RequestOutcome.class);
  private final Counter informerRestarts;

  private WatcherMetrics(ProcessMetrics process) {
    this.process = process;
    Gauge.builder(Metric.WATCHER_IS_LEADER.meterName(), leader, AtomicInteger::get)
        .description(Metric.WATCHER_IS_LEADER.help())
        .register(process.registry());
    for (RequestOutcome outcome : RequestOutcome.values()) {
      // Registered up front so every outcome shows 0 before the first request, which rate() needs.
      requests.put(outcome, Counter.builder(Metric.PLANNED_FAILOVER_REQUESTS.meterName())
          .description(Metric.PLANNED_FAILOVER_REQUESTS.help())
          .tag("outcome", outcome.label())
          .register(process.registry()));
    }
    informerRestarts = Counter.builder(Metric.WATCHER_INFORMER_RESTARTS.meterName())
        .description(Metric.WATCHER_INFORMER_RESTARTS.help())
        .register(process.registry());
  }

  /** The gauge {@code bloodraven_watcher_watching}: 1 while every group informer has listed and watches. */
  void watching(java.util.function.BooleanSupplier watching) {
    Gauge.builder(Metric.WATCHER_WATCHING.meterName(), () -> watching.getAsBoolean() ? 1 : 0)
        .description(Metric.WATCHER_WATCHING.help())
        .register(process.registry());
  }

  /**
   * A planned request the watcher refused itself before any workflow started (paused group, a
   * schedule out of range, another kind of failover running): counted in {@code
   * bloodraven_planned_failovers_total} as {@code rejected}, as the workflow counts the refusals it
   * makes, so that the counter holds every request that ended without promoting (model {@code
   * Reason}'s table). Same name and labels as the worker's counter; {@code sum by (target_site,
   * result)} adds the two processes up.
   */
  void plannedRejected(String targetSite) {
    Counter.builder(Metric.PLANNED_FAILOVERS.meterName())
        .description(Metric.PLANNED_FAILOVERS.help())
        .tag("target_site", targetSite == null ? "" : targetSite)
        .tag("result", "rejected")
        .register(process.registry()).increment();
  }

  void informerRestarted() {
    informerRestarts.increment();
  }

  public static WatcherMetrics create() {
    return new WatcherMetrics(ProcessMetrics.create());
  }

  void leader(boolean isLeader) {
    leader.set(isLeader ? 1 : 0);
  }

  void request(RequestOutcome outcome) {
    requests.get(outcome).increment();
  }

  /** The process registry, for the meters of other parts of the watcher (the topology monitor). */
  public io.micrometer.core.instrument.MeterRegistry registry() {
    return process.registry();
  }

  /** The Prometheus text exposition, JVM metrics included. */
  public String scrape() {
    return process.scrape();
  }

  @Override
  public void close() {
    process.close();
  }
}
