package io.shipstream.failover.runtime;

import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The one Prometheus registry of a process, with the JVM's and the process's own metrics bound,
 * which {@code /metrics} serves. Each process registers its meters on {@link #registry()}.
 */
public final class ProcessMetrics implements AutoCloseable {
  private final PrometheusMeterRegistry registry;
  private final JvmGcMetrics gcMetrics;

  private ProcessMetrics(PrometheusMeterRegistry registry, JvmGcMetrics gcMetrics) {
    this.registry = registry;
    this.gcMetrics = gcMetrics;
  }

  /**
   * @param filters applied before any meter is registered, as Micrometer requires for them to
   *     affect every meter
   */
  public static ProcessMetrics create(MeterFilter... filters) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    for (MeterFilter filter : filters) {
      registry.config().meterFilter(filter);
    }
    new ClassLoaderMetrics().bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
    // The GC binder listens to JMX notifications until closed, so it is kept to be closed.
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    return new ProcessMetrics(registry, gc);
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** The Prometheus text exposition of everything registered. */
  public String scrape() {
    return registry.scrape();
  }

  @Override
  public void close() {
    gcMetrics.close();
    registry.close();
  }
}
