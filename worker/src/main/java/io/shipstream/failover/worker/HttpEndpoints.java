package io.shipstream.failover.worker;

import io.shipstream.failover.runtime.ProbeServer;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The worker's own HTTP port, on the runtime module's {@link ProbeServer}: {@code /healthz} (the
 * process answers: liveness), {@code /readyz} (polling Temporal over a healthy connection:
 * readiness) and {@code /metrics} (Prometheus). It serves probes and one scraper, so two threads
 * are plenty.
 */
final class HttpEndpoints {
  static final String PROMETHEUS_TEXT = ProbeServer.PROMETHEUS_TEXT;

  private HttpEndpoints() {}

  static ProbeServer start(int port, BooleanSupplier ready, Supplier<String> metrics) {
    return ProbeServer.on(port)
        .readiness(ready, "the worker is not polling Temporal over a healthy connection")
        .metrics(metrics)
        .threads(2)
        .start();
  }
}
