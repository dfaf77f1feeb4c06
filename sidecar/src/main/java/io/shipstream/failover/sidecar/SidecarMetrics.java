package io.shipstream.failover.sidecar;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.shipstream.failover.model.tls.TlsProblem;
import io.shipstream.failover.runtime.Metric;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The sidecar's Prometheus metrics: {@code bloodraven_sidecar_fences_total{rule}} (boot, rule1,
 * rule2) and {@code bloodraven_sidecar_last_contact_timestamp_seconds{kind,endpoint}} for the
 * watcher and each peer, 0 until the first contact. Endpoints are named host:port only. Every
 * series carries the sidecar's {@code group} (namespace/name, as the watcher's metrics name it)
 * and {@code site}, so an alert on a fence says which server was fenced wherever it is scraped.
 */
final class SidecarMetrics {
  /** The fence rules, and "stop": a hung server whose process the sidecar killed. */
  static final List<String> RULES = List.of("boot", "rule1", "rule2", "stop");

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Map<String, Counter> fences = new ConcurrentHashMap<>();
  private final Map<URI, AtomicReference<Instant>> contacts = new ConcurrentHashMap<>();

  SidecarMetrics(URI watcher, List<URI> peers) {
    this(null, null, watcher, peers);
  }

  /** @param group namespace/name; null (with {@code site}) leaves both labels out */
  SidecarMetrics(String group, String site, URI watcher, List<URI> peers) {
    if (group != null && site != null) {
      registry.config().commonTags("group", group, "site", site);
    }
    for (String rule : RULES) {
      fences.put(rule, Counter.builder(Metric.SIDECAR_FENCES.meterName())
          .description(Metric.SIDECAR_FENCES.help())
          .tag("rule", rule)
          .register(registry));
    }
    contactGauge("watcher", watcher);
    peers.forEach(peer -> contactGauge("peer", peer));
  }

  private void contactGauge(String kind, URI endpoint) {
    AtomicReference<Instant> last = contacts.computeIfAbsent(endpoint, e -> new AtomicReference<>());
    Gauge.builder(Metric.SIDECAR_LAST_CONTACT.meterName(), last,
        ref -> ref.get() == null ? 0 : ref.get().toEpochMilli() / 1000.0)
        .description(Metric.SIDECAR_LAST_CONTACT.help())
        .baseUnit(Metric.SIDECAR_LAST_CONTACT.baseUnit())
        .tag("kind", kind)
        .tag("endpoint", Endpoints.describe(endpoint))
        .register(registry);
  }

  void fenced(String rule) {
    fences.get(rule).increment();
  }

  double fences(String rule) {
    return fences.get(rule).count();
  }

  void contact(URI endpoint, Instant at) {
    AtomicReference<Instant> last = contacts.get(endpoint);
    if (last != null) {
      last.set(at);
    }
  }

  /**
   * A request to the watcher or a peer that failed in TLS ({@code bloodraven_sidecar_tls_errors_total}
   * by endpoint and {@link TlsProblem}): it counts as no contact, like any failed request, and this
   * says why, so that an expired certificate is told apart from a cut link.
   */
  void tlsError(URI endpoint, TlsProblem problem) {
    Counter.builder(Metric.SIDECAR_TLS_ERRORS.meterName())
        .description(Metric.SIDECAR_TLS_ERRORS.help())
        .tag("endpoint", Endpoints.describe(endpoint))
        .tag("reason", problem.name())
        .register(registry)
        .increment();
  }

  double tlsErrors(URI endpoint, TlsProblem problem) {
    Counter counter = registry.find(Metric.SIDECAR_TLS_ERRORS.meterName()).tag("endpoint", Endpoints.describe(endpoint))
        .tag("reason", problem.name()).counter();
    return counter == null ? 0 : counter.count();
  }

  /** The Prometheus text exposition. */
  String scrape() {
    return registry.scrape();
  }
}
