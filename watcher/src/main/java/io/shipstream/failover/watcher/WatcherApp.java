package io.shipstream.failover.watcher;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.shipstream.failover.kube.SidecarCredentials;
import io.shipstream.failover.kube.Tombstones;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.runtime.Closeables;
import io.shipstream.failover.runtime.Logging;
import io.shipstream.failover.runtime.ProbeServer;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.temporal.TemporalStubs;
import io.shipstream.failover.watcher.activesite.ActiveSiteHandler;
import io.shipstream.failover.watcher.topology.TopologyMetrics;
import io.shipstream.failover.workflows.PayloadConverter;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The watcher process: informers on {@code MysqlFailoverGroup} on every replica (they feed
 * {@code /active-site} and the probes), and, on the replica that holds the Lease only, the
 * handling that turns annotations into failover workflows. Wired by hand in {@link #start}, so
 * tests and the playground run the very same code with their own clients, which {@link #close}
 * leaves open: whoever built a client closes it.
 */
public final class WatcherApp implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WatcherApp.class);

  private final WatcherConfig config;
  private final GroupCache cache;
  private final WatcherMetrics metrics;
  /** What this replica does while it holds the Lease. */
  private final LeaderDuties duties;
  private ProbeServer http;
  private LeaderElection election;
  private KubernetesClient kube;
  /** Each group's sidecar credential, read from the Secret its spec names. */
  private SidecarCredentials credentials;
  private boolean closed;

  private WatcherApp(WatcherConfig config, GroupCache cache, WatcherMetrics metrics, LeaderDuties duties) {
    this.config = config;
    this.cache = cache;
    this.metrics = metrics;
    this.duties = duties;
  }

  /**
   * Starts the informers and returns once they have synced, the HTTP port is open and, with leader
   * election on, the campaign for the Lease has begun (leading may come a moment later).
   */
  public static WatcherApp start(WatcherConfig config, KubernetesClient kube, WorkflowClient temporal) {
    log.info("starting watcher: {}", config);
    List<AutoCloseable> started = new ArrayList<>();
    try {
      WatcherMetrics metrics = WatcherMetrics.create();
      started.add(metrics);
      GroupCache cache = GroupCache.start(kube, config.watchNamespaces(), metrics::informerRestarted);
      started.add(cache);
      metrics.watching(cache::watching);
      // One look-up for both: the starts carry the attributes it finds, the conditions say which lack.
      RegisteredSearchAttributes searchAttributes = RegisteredSearchAttributes.of(temporal);
      SidecarCredentials credentials = new SidecarCredentials(kube, Clock.systemUTC());
      WatcherApp app = new WatcherApp(config, cache, metrics, new LeaderDuties(config, cache, metrics, kube,
          new FailoverStarter(temporal, config.taskQueue(), searchAttributes),
          new RequestRejections(kube, Clock.systemUTC()), credentials, new TopologyMetrics(metrics.registry()),
          searchAttributes));
      app.kube = kube;
      app.credentials = credentials;
      // From here the app owns the metrics and the cache, and its close releases them.
      started.clear();
      started.add(app);
      app.http = app.probes();
      log.info("watching MysqlFailoverGroups in {}; HTTP on {}:{}{}{}", config.watchNamespaces().isEmpty()
          ? "all namespaces" : config.watchNamespaces(), config.httpHost(), app.http.port(),
          app.http.httpsPort() < 0 ? "" : ", HTTPS (/active-site) on " + app.http.httpsPort(),
          config.activeSiteToken() == null ? " (no token: /active-site is not served)" : "");
      LeaderElectionSettings election = config.leaderElection();
      if (election.enabled()) {
        LeaderElection.Listener handling = new LeaderElection.Listener() {
          @Override
          public void startLeading() {
            app.startHandling();
          }

          @Override
          public void stopLeading() {
            app.duties.stop();
          }
        };
        app.election = LeaderElection.start(kube, election, leaseNamespace(election, kube), handling);
      } else {
        log.warn("leader election is off: run one replica only, or two would both start failovers");
        app.startHandling();
      }
      return app;
    } catch (RuntimeException e) {
      Collections.reverse(started);
      Closeables.closeAll(started);
      throw e;
    }
  }

  private ProbeServer probes() {
    ProbeServer.Builder server = ProbeServer.on(config.httpHost(), config.httpPort())
        .readiness(this::isReady, "not watching the MysqlFailoverGroups (not yet listed, or the watch is being "
            + "re-established): the view of the groups may be stale")
        .metrics(metrics::scrape)
        // Every sidecar of every group asks /active-site every few seconds.
        .threads(4)
        // With a certificate, /active-site moves to HTTPS; the probes and /metrics stay on plain HTTP.
        .tls(config.tls(), config.httpsPort());
    if (config.activeSiteToken() != null) {
      // Only a view the informer keeps current is served: a stale one after a failover would name the
      // old primary, and the new primary's sidecar would fence it. A 503 is no answer to a sidecar.
      // A sidecar that finds its server writable under a view naming another site asks for a view
      // read from the API server (the cache can lag the failover record a promotion follows), and
      // the leader looks at that sidecar's fence soon, for its Event.
      ActiveSiteHandler activeSite = new ActiveSiteHandler(this::group, cache::watching,
          config.activeSiteToken(), Clock.systemUTC()).withCredentials(credentials).withFreshReads(
              ref -> Optional.ofNullable(kube.resources(MysqlFailoverGroup.class).inNamespace(ref.namespace())
                  .withName(ref.name()).get()),
              duties::checkSoon)
          // Each answer from the cache says how long since the cache was confirmed against the API
          // server: a replica cut off from it stops keeping the sidecars' leases within a check.
          .withStaleness(cache::staleness)
          // A group gone from the cache is reported deleted only on its finalizer's tombstone, read
          // where this watcher watches (elsewhere a 404 is all it can say).
          .withTombstones(
              ref -> config.watchNamespaces().isEmpty() || config.watchNamespaces().contains(ref.namespace())
                  ? new Tombstones(kube).read(ref) : Optional.empty());
      server.securedHandler(ActiveSiteHandler.PATH, activeSite);
      // What it answered each site's sidecar, for an emergency failover that asks when the old
      // primary's lease was last renewed here: the same handler, its logs and its credentials.
      server.securedHandler(ActiveSiteHandler.ANSWERS_PATH, activeSite);
    }
    return server.start();
  }

  private static String leaseNamespace(LeaderElectionSettings election, KubernetesClient kube) {
    if (election.leaseNamespace() != null) {
      return election.leaseNamespace();
    }
    return kube.getNamespace() != null ? kube.getNamespace() : "default";
  }

  /** On becoming leader, unless closed: the term's duties start. */
  private synchronized void startHandling() {
    if (!closed) {
      duties.start();
    }
  }

  /** The port of the probes, {@code /metrics} and {@code /active-site}; the real one when configured as 0. */
  public int httpPort() {
    return http.port();
  }

  /** The HTTPS port of {@code /active-site} with a certificate mounted; -1 otherwise. */
  public int httpsPort() {
    return http.httpsPort();
  }

  /** The address that port listens on: every interface, or the one of {@link WatcherConfig#httpHost}. */
  public java.net.InetSocketAddress httpAddress() {
    return http.address();
  }

  /**
   * What {@code /readyz} answers: every informer has listed and is watching now, so that the cache
   * is current. Leadership does not matter, a standby serves too. A replica that is not watching
   * drops out of the Service's endpoints, and the sidecars ask a replica that is.
   */
  public boolean isReady() {
    synchronized (this) {
      if (closed) {
        return false;
      }
    }
    return cache.watching();
  }

  /** Whether this replica acts on annotations right now. */
  public boolean isLeader() {
    return duties.leading();
  }

  /** The cached resource, for the HTTP endpoints. */
  public Optional<MysqlFailoverGroup> group(GroupRef ref) {
    return cache.get(ref);
  }

  /** Visible for tests: the current term's request handling, or null when not leading. */
  PlannedFailoverRequests requests() {
    return duties.requests();
  }

  /**
   * Stops acting on annotations and releases the Lease (a standby takes over within one retry
   * period), then stops the informers, the HTTP port and the metrics. Safe to call twice.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    List<AutoCloseable> resources = new ArrayList<>();
    if (election != null) {
      resources.add(election);
    }
    resources.add(duties::stop);
    resources.add(cache);
    if (http != null) {
      resources.add(http);
    }
    resources.add(metrics);
    Closeables.closeAll(resources);
    log.info("watcher stopped");
  }

  /**
   * Runs the watcher until SIGTERM. Exit status 2 is a configuration error (the message says
   * which setting); 1 is a failure to start.
   */
  public static void main(String[] args) throws InterruptedException {
    Logging.routeJulToSlf4j();
    if (Arrays.asList(args).contains("--help")) {
      System.out.print("usage: watcher [--flag=value ...]\n" + WatcherConfig.usage());
      return;
    }
    WatcherConfig config;
    try {
      config = WatcherConfig.from(System.getenv(), args);
      if (config.activeSiteToken() == null) {
        throw new IllegalArgumentException("invalid watcher configuration:\n  - " + SharedToken.required(
            "the sidecars authenticate GET /active-site with the group's shared token"));
      }
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.print(WatcherConfig.usage());
      System.exit(2);
      return;
    }
    KubernetesClient kube = new KubernetesClientBuilder().build();
    WorkflowServiceStubs stubs;
    WatcherApp app;
    try {
      stubs = TemporalStubs.connect(config.temporal());
    } catch (RuntimeException e) {
      log.error("cannot connect to Temporal at {}: {}", config.temporal().address(), e.getMessage());
      kube.close();
      System.exit(1);
      return;
    }
    try {
      WorkflowClient temporal = WorkflowClient.newInstance(stubs,
          PayloadConverter.clientOptions(config.temporal().namespace()).build());
      app = start(config, kube, temporal);
    } catch (RuntimeException e) {
      log.error("watcher failed to start", e);
      stubs.shutdownNow();
      kube.close();
      System.exit(1);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      app.close();
      Closeables.closeAll(List.of(() -> {
        stubs.shutdown();
        stubs.awaitTermination(5, TimeUnit.SECONDS);
      }, kube));
      stopped.countDown();
    }, "watcher-shutdown"));
    stopped.await();
  }
}
