package io.shipstream.failover.dev;

import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.testsupport.TcpProxy;
import io.shipstream.failover.testsupport.TestAuthority;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The whole system on one machine: a Temporal dev server on 127.0.0.1, a mock Kubernetes API
 * server holding a {@code MysqlFailoverGroup} named {@code orders}, one real database server per
 * site of the {@link Options#flavor} ({@code mariadbd} or MySQL 9.7's {@code mysqld}) replicating
 * with GTIDs (the first site is the primary), the worker and the watcher. The
 * integration tests, the playground and the benchmarks all stand on this one class.
 *
 * <p>It holds the servers and the links added to them (sidecars, proxies, a session store); the
 * group as the API shows it is {@link #api}, the waits on its status {@link #waits}, and the
 * Temporal server, worker and watcher {@link #controlPlane}.
 */
public final class FailoverStack implements AutoCloseable {
  public static final String GROUP_NAME = "orders";
  public static final String SECRET = "mysql-credentials";
  /** The only interface the stack listens on: nothing of it is meant to be reached from elsewhere. */
  static final String LOOPBACK = "127.0.0.1";
  /**
   * The shared token the sidecars present to the watcher's /active-site and to each other, and the
   * worker to the sidecars' POST /tick and GET /status.
   */
  public static final String SIDECAR_TOKEN = "playground-sidecar-token";
  /** The Secret of spec.tls.sessions with {@link Options#withTls}: ca.crt, tls.crt, tls.key. */
  public static final String TLS_SECRET = "mysql-tls";

  /** The Secret holding the group's own sidecar credential ({@link #SIDECAR_TOKEN}), which its spec names. */
  public static final String SIDECAR_TOKEN_SECRET = "orders-sidecar-token";

  /** {@code sidecar} (null: the defaults) naming the group's own credential, {@link #SIDECAR_TOKEN_SECRET}. */
  public static MysqlFailoverGroupSpec.SidecarSpec ownCredential(MysqlFailoverGroupSpec.SidecarSpec sidecar) {
    return new MysqlFailoverGroupSpec.SidecarSpec(sidecar == null ? null : sidecar.leaseTimeout(),
        sidecar == null ? null : sidecar.peerCheckInterval(),
        new MysqlFailoverGroupSpec.SecretKeyRef(SIDECAR_TOKEN_SECRET, null));
  }

  private final MockCluster kube;
  private final DatabaseCluster mysql;
  private final Map<String, DatabaseServer> servers;
  private final GroupApi api;
  private final GroupWaits waits;
  private final ControlPlane controlPlane;
  private final List<TcpProxy> controlPlaneProxies = new CopyOnWriteArrayList<>();
  private RedisPair redis;
  private SidecarMesh sidecars;
  /** spec.sidecar before {@link #startSidecars} set the mesh's timing: {@link #stopSidecars} puts it back. */
  private MysqlFailoverGroupSpec.SidecarSpec sidecarSpecBefore;
  private final Path workDir;
  private TestAuthority.DatabaseCertificates certificates;

  /**
   * How the group's spec is set up; tests shorten or lengthen the knobs. {@code pollInterval} and
   * {@code failureThreshold} null mean the spec's defaults. The group is always applied as a user
   * applies it, with no status and its pods with no role label, and the watcher's monitor adopts
   * it (the first site is the writable primary) and sets its routing; {@code topologyMonitor}
   * lets the monitor act too (emergency failovers, fences, recovery), which without it only
   * watches. {@link #start} returns once the group is adopted and routed, unless {@code
   * adopted} is false (the adoption tests watch it happen).
   */
  public record Options(List<String> sites, List<String> drOnlySites, String failoverCooldown, String maxLagWait,
      String pollInterval, Integer failureThreshold, boolean topologyMonitor, boolean adopted, Flavor flavor,
      boolean serversStartReadOnly, boolean tls) {
    public Options {
      flavor = flavor == null ? Flavor.MARIADB : flavor;
    }

    public Options(List<String> sites, List<String> drOnlySites, String failoverCooldown, String maxLagWait,
        String pollInterval, Integer failureThreshold, boolean topologyMonitor, boolean adopted, Flavor flavor,
        boolean serversStartReadOnly) {
      this(sites, drOnlySites, failoverCooldown, maxLagWait, pollInterval, failureThreshold, topologyMonitor, adopted,
          flavor, serversStartReadOnly, false);
    }

    /**
     * These options with TLS everywhere ({@link #TLS_SECRET}): every server has certificates made
     * for the run and requires secure transport, the group's spec.tls asks verify-identity of the
     * sessions (CA and client certificate in a Secret) and of every channel (the CA file as each
     * server sees it), and the stack's own channels are set up so.
     */
    public Options withTls() {
      return new Options(sites, drOnlySites, failoverCooldown, maxLagWait, pollInterval, failureThreshold,
          topologyMonitor, adopted, flavor, serversStartReadOnly, true);
    }

    public Options(List<String> sites, List<String> drOnlySites, String failoverCooldown, String maxLagWait,
        String pollInterval, Integer failureThreshold, boolean topologyMonitor, boolean adopted, Flavor flavor) {
      this(sites, drOnlySites, failoverCooldown, maxLagWait, pollInterval, failureThreshold, topologyMonitor, adopted,
          flavor, false);
    }

    public Options(List<String> sites, List<String> drOnlySites, String failoverCooldown, String maxLagWait,
        String pollInterval, Integer failureThreshold, boolean topologyMonitor, boolean adopted) {
      this(sites, drOnlySites, failoverCooldown, maxLagWait, pollInterval, failureThreshold, topologyMonitor, adopted,
          Flavor.MARIADB);
    }

    public Options(List<String> sites, List<String> drOnlySites, String failoverCooldown, String maxLagWait) {
      this(sites, drOnlySites, failoverCooldown, maxLagWait, null, null, false);
    }

    public Options(List<String> sites, List<String> drOnlySites, String failoverCooldown, String maxLagWait,
        String pollInterval, Integer failureThreshold, boolean topologyMonitor) {
      this(sites, drOnlySites, failoverCooldown, maxLagWait, pollInterval, failureThreshold, topologyMonitor, true);
    }

    /** The emergency stack, returned before the watcher has adopted the group. */
    public static Options adoption() {
      return new Options(List.of("iad", "pdx", "dr"), List.of("dr"), "0s", null, "500ms", 3, true, false);
    }

    /** As {@link #adoption}, with the topology monitor off, so nothing adopts the group until it is turned on. */
    public static Options adoptionHeld() {
      return new Options(List.of("iad", "pdx", "dr"), List.of("dr"), "0s", null, "500ms", 3, false, false);
    }

    /** These options with the servers of {@code flavor} (MariaDB unless said otherwise). */
    public Options withFlavor(Flavor flavor) {
      return new Options(sites, drOnlySites, failoverCooldown, maxLagWait, pollInterval, failureThreshold,
          topologyMonitor, adopted, flavor, serversStartReadOnly, tls);
    }

    /**
     * These options with every server configured to start read-only, as the README asks of
     * production servers ({@link DatabaseCluster#startReadOnly}): adoption and the primary's
     * sidecar make it writable. The integration tests' stacks start writable, which is quicker
     * and what their scenarios were written against.
     */
    public Options withServersStartingReadOnly() {
      return new Options(sites, drOnlySites, failoverCooldown, maxLagWait, pollInterval, failureThreshold,
          topologyMonitor, adopted, flavor, true, tls);
    }

    public static Options twoSites() {
      return new Options(List.of("iad", "pdx"), List.of(), "0s", null);
    }

    /** iad (primary), pdx, and a dr-only site, with no cooldown: failovers back to back. */
    public static Options threeSites() {
      return new Options(List.of("iad", "pdx", "dr"), List.of("dr"), "0s", null);
    }

    /** iad (primary), pdx, and a dr-only site, with the default 5 minute cooldown, TLS on as in the playground. */
    public static Options playground() {
      return new Options(List.of("iad", "pdx", "dr"), List.of("dr"), null, null).withTls();
    }

    /**
     * iad (primary), pdx and a dr-only site watched by the topology monitor every 500ms, a site
     * declared dead after 3 missed polls, and no cooldown: the emergency failover tests.
     */
    public static Options emergency() {
      return new Options(List.of("iad", "pdx", "dr"), List.of("dr"), "0s", null, "500ms", 3, true);
    }
  }

  private FailoverStack(Path workDir, MockCluster kube, DatabaseCluster mysql, Map<String, DatabaseServer> servers,
      GroupApi api, ControlPlane controlPlane) {
    this.workDir = workDir;
    this.kube = kube;
    this.mysql = mysql;
    this.servers = servers;
    this.api = api;
    this.waits = new GroupWaits(api);
    this.controlPlane = controlPlane;
  }

  public static FailoverStack start(Path workDir, Options options) {
    return start(workDir, options, true);
  }

  /**
   * The stack with its Temporal server but neither its worker nor its watcher: a test runs them as
   * processes of its own (another release's, in the upgrade drill), on {@link
   * ControlPlane#watcherPort}, and waits for the adoption itself. The group is applied as always.
   */
  static FailoverStack startWithoutControlPlane(Path workDir, Options options) {
    return start(workDir, options, false);
  }

  private static FailoverStack start(Path workDir, Options options, boolean controlPlaneRuns) {
    MockCluster kube = null;
    DatabaseCluster mysql = null;
    DevTemporalServer temporal = null;
    try {
      kube = MockCluster.start();
      TestAuthority.DatabaseCertificates certificates = options.tls()
          ? TestAuthority.forDatabases(options.flavor(), workDir.resolve("tls")) : null;
      mysql = DatabaseCluster.start(options.flavor(), workDir.resolve("mysql"), options.sites().size(),
          options.serversStartReadOnly(), certificates == null ? List.of()
              : certificates.serverOptions(options.flavor(), true));
      temporal = DevTemporalServer.start(0);
      Map<String, DatabaseServer> servers = new LinkedHashMap<>();
      for (int i = 0; i < options.sites().size(); i++) {
        servers.put(options.sites().get(i), mysql.server(i));
      }
      ControlPlane controlPlane = new ControlPlane(temporal, kube, options.topologyMonitor(),
          !options.adopted() && !options.topologyMonitor());
      FailoverStack stack = new FailoverStack(workDir, kube, mysql, servers,
          GroupApi.create(kube, options, servers, certificates), controlPlane);
      stack.certificates = certificates;
      if (!controlPlaneRuns) {
        return stack;
      }
      controlPlane.startWorker();
      controlPlane.startWatcher();
      if (options.adopted()) {
        stack.waits.adopted(options.sites().get(0));
      }
      return stack;
    } catch (RuntimeException e) {
      closeQuietly(temporal);
      closeQuietly(mysql);
      closeQuietly(kube);
      throw e;
    }
  }

  /** The certificates of {@link Options#withTls}; empty without. */
  public Optional<TestAuthority.DatabaseCertificates> certificates() {
    return Optional.ofNullable(certificates);
  }

  /** The flavor of every server of the stack. */
  public Flavor flavor() {
    return mysql.flavor();
  }

  /** The group as the API server shows it, and kubectl's changes to it. */
  public GroupApi api() {
    return api;
  }

  /** Waits on the group's status. */
  public GroupWaits waits() {
    return waits;
  }

  /** The Temporal server, the worker and the watcher. */
  public ControlPlane controlPlane() {
    return controlPlane;
  }

  public DatabaseServer server(String site) {
    return servers.get(site);
  }

  public Map<String, DatabaseServer> servers() {
    return servers;
  }

  /** The sites whose server answers now and is writable; one that does not answer is not. */
  public List<String> writableSites() {
    List<String> writable = new ArrayList<>();
    servers.forEach((site, s) -> {
      try {
        if (s.isRunning() && !s.isReadOnly()) {
          writable.add(site);
        }
      } catch (RuntimeException e) {
        // Not answering: not writable.
      }
    });
    return writable;
  }

  /**
   * Waits until every other server has applied all of {@code site}'s binlog, and returns the ids
   * of the rows they hold between them: what was acknowledged and replicated, the least that must
   * survive the loss of {@code site}.
   */
  public Set<Long> awaitReplicatedFrom(String site) {
    DatabaseServer source = server(site);
    Set<Long> replicated = new HashSet<>();
    servers.forEach((name, s) -> {
      if (!name.equals(site)) {
        s.awaitCaughtUpWith(source, Duration.ofSeconds(30));
      }
    });
    servers.forEach((name, s) -> {
      if (!name.equals(site)) {
        replicated.addAll(DatabaseCluster.writtenIds(s));
      }
    });
    return replicated;
  }

  /** The JDBC URL an application gets through the primary Service; throws while nothing is routed. */
  public String routedJdbcUrl() {
    String site = api.routedSite().orElseThrow(() -> new IllegalStateException("no pod is labelled primary"));
    return servers.get(site).jdbcUrl();
  }

  /**
   * As {@link #routedJdbcUrl}, but while nothing is routed (for a moment during a failover) a URL
   * nothing listens on: a writer's write then fails and is retried instead of stopping it.
   */
  public String routedJdbcUrlOrNowhere() {
    try {
      return routedJdbcUrl();
    } catch (IllegalStateException e) {
      return (flavor() == Flavor.MYSQL ? "jdbc:mysql" : "jdbc:mariadb") + "://127.0.0.1:1/";
    }
  }

  /**
   * Starts a sidecar per site (see {@link SidecarMesh}), wired to the watcher's /active-site and to
   * each other with {@link #SIDECAR_TOKEN}; returns once all have booted and see each other.
   */
  public synchronized SidecarMesh startSidecars(SidecarMesh.Knobs knobs) {
    return startSidecars(knobs, Set.of());
  }

  /**
   * As {@link #startSidecars(SidecarMesh.Knobs)}, with the sidecars of {@code ownJvm} each a
   * {@link SidecarProcess} of its own (freeze it, hang its loop: {@link SidecarMesh#process}),
   * restarted by the mesh's {@link DevKubelet} when the liveness probe of its pod fails.
   */
  public synchronized SidecarMesh startSidecars(SidecarMesh.Knobs knobs, Set<String> ownJvm) {
    return startSidecars(knobs, ownJvm, null);
  }

  /**
   * As above, the sidecars of {@code ownJvm} on {@code classpath} (null: this JVM's): another
   * release's sidecars, as the upgrade drill runs them.
   */
  synchronized SidecarMesh startSidecars(SidecarMesh.Knobs knobs, Set<String> ownJvm, String classpath) {
    if (sidecars == null) {
      sidecarSpecBefore = api.resource().getSpec().sidecar();
      // The spec's timing first: the sidecars learn it from the watcher's first answer, and would
      // otherwise run with the spec's defaults until their next tick after the edit.
      api.editSpec(spec -> GroupSpecs.withSidecar(spec, ownCredential(new MysqlFailoverGroupSpec.SidecarSpec(
          knobs.leaseTimeout().toMillis() + "ms", knobs.peerCheckInterval().toMillis() + "ms"))));
      sidecars = SidecarMesh.start(servers, api.ref(), controlPlane.watcherPort(), SIDECAR_TOKEN, knobs, ownJvm,
          workDir.resolve("sidecars"), kube.client(), classpath);
      // The emergency failover asks the old primary's sidecar, and waits out its lease, by the spec.
      SidecarMesh mesh = sidecars;
      api.editSpec(spec -> GroupSpecs.withSites(spec, spec.sites().stream().map(s -> GroupSpecs.withEndpoints(s,
          s.mysql(), new SiteSpec.Sidecar(mesh.controlUrl(s.name())), s.dragonfly())).toList()));
    }
    return sidecars;
  }

  /**
   * Stops the sidecars {@link #startSidecars} started and takes them out of the spec again (every
   * site's sidecar URL and spec.sidecar as they were before), so that a harness can run sidecars
   * for one case and go on without them; a no-op when none run.
   */
  public synchronized void stopSidecars() {
    if (sidecars == null) {
      return;
    }
    SidecarMesh mesh = sidecars;
    sidecars = null;
    try {
      // The control plane stops asking them first, then they go.
      api.editSpec(spec -> GroupSpecs.withSidecar(GroupSpecs.withSites(spec, spec.sites().stream()
          .map(s -> GroupSpecs.withEndpoints(s, s.mysql(), null, s.dragonfly())).toList()), sidecarSpecBefore));
    } finally {
      mesh.close();
    }
  }

  /** The sidecars, when {@link #startSidecars} was called. */
  public synchronized Optional<SidecarMesh> sidecars() {
    return Optional.ofNullable(sidecars);
  }

  /**
   * Points the control plane (the watcher's monitor and the worker's activities) at the site's
   * MySQL through a {@link TcpProxy}, returned so that a test can cut the control plane off the
   * server while the application and the replicas still reach it directly. Returns once the
   * monitor has had time to restart its polls on the changed spec.
   */
  public synchronized TcpProxy proxyControlPlaneMysql(String site) {
    DatabaseServer server = server(site);
    TcpProxy proxy = TcpProxy.start(server.host(), server.port());
    controlPlaneProxies.add(proxy);
    api.editSpec(spec -> GroupSpecs.withSites(spec, spec.sites().stream().map(s -> !s.name().equals(site) ? s
        : GroupSpecs.withEndpoints(s, new SiteSpec.Endpoint(proxy.host(), proxy.port()), s.sidecar(), s.dragonfly()))
        .toList()));
    Playground.sleep(2_000);
    return proxy;
  }

  /**
   * Adds a session store: a redis-server per site for the first two sites (the first one's is the
   * master), their store pods, and spec.dragonfly enabled with these knobs.
   */
  public synchronized RedisPair startRedisPair(Path workDir, String maxSyncWait, String onSyncTimeout) {
    if (redis == null) {
      List<String> sites = List.copyOf(servers.keySet());
      redis = RedisPair.start(workDir, kube.client(), api.ref(), sites.get(0), sites.get(1), maxSyncWait,
          onSyncTimeout);
    }
    return redis;
  }

  @Override
  public void close() {
    // What the mock holds now is what the run wrote; the ITs check it against the CRD. A failure to
    // write it is thrown only once every process is stopped, so that no check passes for want of a file.
    RuntimeException dumpFailure = null;
    try {
      StoredGroupDump.write(kube.client(), api.ref());
    } catch (RuntimeException e) {
      dumpFailure = e;
    }
    // The sidecars first: they must not see the watcher go and start counting down their lease.
    closeQuietly(sidecars);
    controlPlaneProxies.forEach(FailoverStack::closeQuietly);
    closeQuietly(controlPlane);
    closeQuietly(redis);
    closeQuietly(mysql);
    closeQuietly(kube);
    if (dumpFailure != null) {
      throw dumpFailure;
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    if (c != null) {
      try {
        c.close();
      } catch (Exception ignored) {
        // Closing is best effort; the processes also die with the JVM.
      }
    }
  }
}
