package io.shipstream.failover.watcher;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.shipstream.failover.kube.SecretCredentialsProvider;
import io.shipstream.failover.kube.SidecarCredentials;
import io.shipstream.failover.kube.SidecarProbes;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.watcher.monitor.TopologyMonitor;
import io.shipstream.failover.watcher.topology.DrainWatch;
import io.shipstream.failover.watcher.topology.GroupUpkeep;
import io.shipstream.failover.watcher.topology.JdbcRejoin;
import io.shipstream.failover.watcher.topology.KubeDrainView;
import io.shipstream.failover.watcher.topology.LeaseFenceLifts;
import io.shipstream.failover.watcher.topology.OldPrimaryRecovery;
import io.shipstream.failover.watcher.topology.SiteProber;
import io.shipstream.failover.watcher.topology.StartupChecks;
import io.shipstream.failover.watcher.topology.TopologyMetrics;
import io.shipstream.failover.watcher.topology.VerdictReactions;
import java.time.Clock;
import java.util.Optional;

/**
 * What only the replica holding the Lease does, one term at a time: the handlers that turn
 * annotations into workflows ({@link PlannedFailoverRequests}, {@link DryRunRequests}), the
 * {@link GroupFinalizer} and, when configured, the {@link TopologyMonitor}. {@link WatcherApp}
 * starts them when the replica begins leading (the informers then hand each one every cached
 * group) and stops them when it stops, dropping whatever they still meant to retry.
 */
final class LeaderDuties {
  private final WatcherConfig config;
  private final GroupCache cache;
  private final WatcherMetrics metrics;
  private final KubernetesClient kube;
  private final FailoverStarter starter;
  private final RequestRejections rejections;
  /** Each group's sidecar credential, read from the Secret its spec names. */
  private final SidecarCredentials credentials;
  private final TopologyMetrics topologyMetrics;
  private final RegisteredSearchAttributes searchAttributes;
  // The current term's request handling: set while this replica leads, null otherwise.
  private PlannedFailoverRequests requests;
  private DryRunRequests dryRuns;
  // The current term's topology monitor: set while this replica leads with the monitor on.
  private TopologyMonitor monitor;
  // The current term's finalizer of deleted groups: set while this replica leads, null otherwise.
  private GroupFinalizer finalizer;
  /** The leader's sidecar checks, for the fence Events a fresh /active-site request asks for; null when not leading. */
  private volatile StartupChecks startupChecks;

  LeaderDuties(WatcherConfig config, GroupCache cache, WatcherMetrics metrics, KubernetesClient kube,
      FailoverStarter starter, RequestRejections rejections, SidecarCredentials credentials,
      TopologyMetrics topologyMetrics, RegisteredSearchAttributes searchAttributes) {
    this.config = config;
    this.cache = cache;
    this.metrics = metrics;
    this.kube = kube;
    this.starter = starter;
    this.rejections = rejections;
    this.credentials = credentials;
    this.topologyMetrics = topologyMetrics;
    this.searchAttributes = searchAttributes;
  }

  /** On becoming leader: a fresh handler, which the informers hand every cached group at once. */
  synchronized void start() {
    if (requests != null) {
      return;
    }
    requests = new PlannedFailoverRequests(starter, rejections, this::group, metrics);
    cache.addHandler(requests);
    dryRuns = new DryRunRequests(starter, this::group, Clock.systemUTC());
    cache.addHandler(dryRuns);
    // With or without the monitor: a deleted group's taints and routing are this watcher's to settle.
    finalizer = new GroupFinalizer(kube, starter, this::group, cache::refs, Clock.systemUTC());
    cache.addHandler(finalizer);
    if (config.topologyMonitor()) {
      Clock clock = Clock.systemUTC();
      SecretCredentialsProvider logins = new SecretCredentialsProvider(kube, clock);
      SiteProber prober = new SiteProber(logins, clock);
      KubeEffects effects = new KubeEffects(kube, starter, prober, this::group, clock)
          .countingWarnings(topologyMetrics);
      OldPrimaryRecovery recovery = new OldPrimaryRecovery(prober, new JdbcRejoin(logins), effects::event,
          effects::recordLostTransactions, clock);
      // Each group's sidecars are asked with the credential the watcher checks on their /active-site.
      StartupChecks startup = StartupChecks.every30s(this::sidecarToken, config.tls(), new SidecarProbes(kube),
          effects::event, topologyMetrics);
      startupChecks = startup;
      monitor =
          new TopologyMonitor(prober, new VerdictReactions(effects), effects::writeSites, topologyMetrics, this::group,
              clock, recovery, startup,
              GroupUpkeep.of(effects, effects::writeConditions, clock, kube, this::group, topologyMetrics)
                  .searchAttributes(searchAttributes::check).semiSync(prober, effects::writeSemiSync))
              .acting(config.automaticFailover())
              .drainWatch(new DrainWatch(new KubeDrainView(kube), effects))
              .leaseFenceLifts(LeaseFenceLifts.of(effects, this::sidecarToken, config.tls(), clock));
      effects.acceptedSpecs(monitor::acceptedSpec);
      cache.addHandler(monitor);
    }
    metrics.leader(true);
  }

  /** On losing leadership: no further starts or polls from this replica, and nothing left to retry. */
  synchronized void stop() {
    metrics.leader(false);
    if (requests != null) {
      cache.removeHandler(requests);
      requests.close();
      requests = null;
    }
    if (dryRuns != null) {
      cache.removeHandler(dryRuns);
      dryRuns.close();
      dryRuns = null;
    }
    startupChecks = null;
    if (finalizer != null) {
      cache.removeHandler(finalizer);
      finalizer.close();
      finalizer = null;
    }
    if (monitor != null) {
      cache.removeHandler(monitor);
      monitor.close();
      monitor = null;
    }
  }

  /** Whether a term runs: this replica acts on annotations right now. */
  synchronized boolean leading() {
    return requests != null;
  }

  /** The current term's request handling, or null when not leading. */
  synchronized PlannedFailoverRequests requests() {
    return requests;
  }

  /**
   * A sidecar found its server writable under a view naming another site: the leader's sidecar
   * checks look at that site's fence soon, for its Event. Nothing when this replica does not lead.
   */
  void checkSoon(GroupRef ref, String site) {
    StartupChecks checks = startupChecks;
    if (checks != null) {
      checks.checkSoon(ref, site);
    }
  }

  /**
   * The credential this watcher presents to {@code ref}'s sidecars: the group's own, or the shared
   * token for a group that names none; a credential named but unreadable is an error the start-up
   * checks report on the group.
   */
  private SharedToken sidecarToken(GroupRef ref) {
    SidecarCredentials.Credential credential = credentials.of(ref,
        ref == null ? null : group(ref).map(MysqlFailoverGroup::getSpec).orElse(null));
    if (credential instanceof SidecarCredentials.Own own) {
      return SharedToken.of(own.value());
    }
    if (credential instanceof SidecarCredentials.Unavailable missing) {
      throw new SidecarCredentials.UnavailableException(missing.reason());
    }
    return config.activeSiteToken();
  }

  private Optional<MysqlFailoverGroup> group(GroupRef ref) {
    return cache.get(ref);
  }
}
