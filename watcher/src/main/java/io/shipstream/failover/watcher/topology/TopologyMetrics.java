package io.shipstream.failover.watcher.topology;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.topology.SiteState;
import io.shipstream.failover.runtime.Metric;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The monitor's meters: {@code bloodraven_site_state{group,site,state}} (1 for the site's current
 * debounced state, 0 for the others, so an alert can match {@code state="UNREACHABLE"} directly),
 * {@code bloodraven_poll_latency_seconds{group,site}} and
 * {@code bloodraven_replication_lag_seconds{group,site}} (NaN while the site does not replicate) and
 * {@code bloodraven_server_starts_read_only{group,site}} (1 or 0 as the site's sidecar last said, NaN
 * while unknown, so that an alert on {@code == 0} never fires for a site without a sidecar); the
 * group label keeps two groups with a site of the same name apart; the group-level gauges are
 * {@link GroupStateMetrics}'. A group's meters are removed when it stops being watched. For all
 * sites, {@code bloodraven_poll_start_delay_seconds} (how late polls start: waiting for a thread)
 * and {@code bloodraven_poll_threads}.
 */
public final class TopologyMetrics {
  private final MeterRegistry registry;

  private record SiteKey(GroupRef group, String site) {}

  private static final class SiteMeters {
    final AtomicReference<SiteState> state = new AtomicReference<>(SiteState.UNKNOWN);
    final AtomicReference<Double> lag = new AtomicReference<>(Double.NaN);
    final AtomicReference<Double> startsReadOnly = new AtomicReference<>(Double.NaN);
    final List<Meter> meters = new ArrayList<>();
    Timer latency;
  }

  private final Map<SiteKey, SiteMeters> sites = new ConcurrentHashMap<>();
  private final GroupStateMetrics state;

  private final Timer pollStartDelay;
  private final Map<String, io.micrometer.core.instrument.Counter> passFailures = new ConcurrentHashMap<>();
  private final AtomicReference<java.util.function.Supplier<Number>> pollThreads = new AtomicReference<>(() -> 0);

  public TopologyMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.state = new GroupStateMetrics(registry);
    this.pollStartDelay = Timer.builder(Metric.POLL_START_DELAY.meterName())
        .description(Metric.POLL_START_DELAY.help())
        .register(registry);
    Gauge.builder(Metric.POLL_THREADS.meterName(), pollThreads, r -> r.get().get().doubleValue())
        .description(Metric.POLL_THREADS.help()).register(registry);
  }

  /** The group-level gauges (conditions, verdict, blocked causes, manual recovery); see {@link GroupStateMetrics}. */
  public GroupStateMetrics state() {
    return state;
  }

  /** Counts a Warning Event the watcher wrote about the group. */
  public void warning(GroupRef group, String reason) {
    state.warning(group, reason);
  }

  private SiteMeters meters(GroupRef group, String site) {
    return sites.computeIfAbsent(new SiteKey(group, site), k -> {
      SiteMeters m = new SiteMeters();
      GroupStateMetrics.oneHot(registry, m.meters, Metric.SITE_STATE.meterName(),
          Metric.SITE_STATE.help(), m.state,
          List.of(SiteState.values()), "state", "group", group.toString(), "site", site);
      m.meters.add(Gauge.builder(Metric.REPLICATION_LAG.meterName(), m.lag, AtomicReference::get)
          .description(Metric.REPLICATION_LAG.help())
          .tags("group", group.toString(), "site", site)
          .register(registry));
      m.meters.add(Gauge.builder(Metric.SERVER_STARTS_READ_ONLY.meterName(), m.startsReadOnly, AtomicReference::get)
          .description(Metric.SERVER_STARTS_READ_ONLY.help())
          .tags("group", group.toString(), "site", site)
          .register(registry));
      m.latency = Timer.builder(Metric.POLL_LATENCY.meterName())
          .description(Metric.POLL_LATENCY.help())
          .tags("group", group.toString(), "site", site)
          .register(registry);
      m.meters.add(m.latency);
      return m;
    });
  }

  public void polled(GroupRef group, String site, Duration took, SiteState state, Long lagSeconds) {
    SiteMeters m = meters(group, site);
    m.latency.record(took);
    m.state.set(state);
    m.lag.set(lagSeconds == null ? Double.NaN : lagSeconds.doubleValue());
  }

  /** Records a sidecar's {@code startsReadOnly}; null while it does not know. */
  void startsReadOnly(GroupRef group, String site, Boolean startsReadOnly) {
    meters(group, site).startsReadOnly.set(startsReadOnly == null ? Double.NaN : startsReadOnly ? 1.0 : 0.0);
  }

  /**
   * Counts one read of a site's sidecar that failed for a control-plane reason
   * ({@code bloodraven_sidecar_control_plane_errors_total{group,site,reason}}: SidecarTlsError,
   * SidecarCredentialProblem), so that an expired certificate shows before anything depends on it.
   */
  void controlPlaneError(GroupRef group, String site, String reason) {
    io.micrometer.core.instrument.Counter.builder(Metric.SIDECAR_CONTROL_PLANE_ERRORS.meterName())
        .description(Metric.SIDECAR_CONTROL_PLANE_ERRORS.help())
        .tags("group", group.toString(), "site", site, "reason", reason).register(registry).increment();
  }

  /**
   * Counts one poll of a site's server that failed in the TLS handshake
   * ({@code bloodraven_mysql_tls_errors_total{group,site,reason}}, reason a TlsProblem name such as
   * CertificateExpired, or TlsSettingsUnavailable): such a site is up, and is not counted as lost.
   */
  public void tlsError(GroupRef group, String site, String reason) {
    io.micrometer.core.instrument.Counter.builder(Metric.MYSQL_TLS_ERRORS.meterName())
        .description(Metric.MYSQL_TLS_ERRORS.help())
        .tags("group", group.toString(), "site", site, "reason", reason).register(registry).increment();
  }

  /** Counts the repairs of a group's routing: one per object set right between failovers. */
  void repaired(GroupRef group, int repairs) {
    state.repaired(group, repairs);
  }

  /**
   * Counts one pass that failed for one group ({@code stage}: a site's poll, the group's evaluation,
   * its routing repair): the pass is given up, logged, and the next one runs as usual, for this group
   * and every other. {@code bloodraven_topology_pass_failures_total{stage}}; by stage only, since a
   * group's meters go with it and a failure is worth counting after that too.
   */
  public void passFailed(GroupRef group, String stage) {
    passFailures.computeIfAbsent(stage, s -> io.micrometer.core.instrument.Counter
        .builder(Metric.TOPOLOGY_PASS_FAILURES.meterName())
        .description(Metric.TOPOLOGY_PASS_FAILURES.help())
        .tag("stage", s).register(registry)).increment();
  }

  /** How late a poll started after it fell due: above a few milliseconds, polls wait for a thread. */
  public void pollStarted(Duration late) {
    pollStartDelay.record(late);
  }

  /** Where the poll threads alive now are counted: the running monitor's pool. */
  public void pollThreads(java.util.function.Supplier<Number> threads) {
    pollThreads.set(threads);
  }

  public void forget(GroupRef group) {
    state.forget(group);
    sites.entrySet().removeIf(e -> {
      if (!e.getKey().group().equals(group)) {
        return false;
      }
      e.getValue().meters.forEach(registry::remove);
      return true;
    });
  }
}
