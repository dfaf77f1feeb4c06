package io.shipstream.failover.dev;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.testsupport.FreePorts;
import io.shipstream.failover.testsupport.MariaDbCluster;
import io.shipstream.failover.testsupport.MariaDbServer;
import io.shipstream.failover.testsupport.TcpProxy;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.watcher.WatcherApp;
import io.shipstream.failover.worker.Registrations;
import io.shipstream.failover.watcher.WatcherConfig;
import io.shipstream.failover.workflows.TaskQueues;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import io.temporal.common.interceptors.WorkerInterceptor;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The whole system on one machine: a Temporal dev server on 127.0.0.1, a mock Kubernetes API
 * server holding a {@code MysqlFailoverGroup} named {@code orders}, one real {@code mariadbd} per
 * site replicating with GTIDs (the first site is the primary), the worker and the watcher. The
 * integration tests, the playground and the benchmarks all stand on this one class.
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

  static {
    // Every user of the stack may kill its worker: the playground, the fault suite, the tests.
    KilledWorkerNoise.install();
  }

  private final MockCluster kube;
  private final MariaDbCluster mysql;
  private final DevTemporalServer temporal;
  private final WorkflowClient client;
  private final Map<String, MariaDbServer> servers = new LinkedHashMap<>();
  private final GroupRef group = new GroupRef(MockCluster.NAMESPACE, GROUP_NAME);
  private WorkerFactory worker;
  private WorkflowServiceStubs workerStubs;
  private WatcherApp watcher;
  private boolean topologyMonitor;
  /**
   * The watcher runs without its monitor, so nothing adopts the group (Options.adoptionHeld) until
   * {@link #restartWatcherWithTopologyMonitor}.
   */
  private boolean monitorHeld;
  private RedisPair redis;
  /** Fixed for the stack's life, so a restarted watcher is found where the sidecars' links point. */
  private final int watcherPort = FreePorts.next();
  private SidecarMesh sidecars;
  private final List<TcpProxy> controlPlaneProxies = new java.util.concurrent.CopyOnWriteArrayList<>();
  private volatile boolean stickyExecution;
  private final List<WorkerInterceptor> workerInterceptors = new java.util.concurrent.CopyOnWriteArrayList<>();

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
      String pollInterval, Integer failureThreshold, boolean topologyMonitor, boolean adopted) {
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

    public static Options twoSites() {
      return new Options(List.of("iad", "pdx"), List.of(), "0s", null);
    }

    /** iad (primary), pdx, and a dr-only site, with no cooldown: failovers back to back. */
    public static Options threeSites() {
      return new Options(List.of("iad", "pdx", "dr"), List.of("dr"), "0s", null);
    }

    /** iad (primary), pdx, and a dr-only site, with the default 5 minute cooldown. */
    public static Options playground() {
      return new Options(List.of("iad", "pdx", "dr"), List.of("dr"), null, null);
    }

    /**
     * iad (primary), pdx and a dr-only site watched by the topology monitor every 500ms, a site
     * declared dead after 3 missed polls, and no cooldown: the emergency failover tests.
     */
    public static Options emergency() {
      return new Options(List.of("iad", "pdx", "dr"), List.of("dr"), "0s", null, "500ms", 3, true);
    }
  }

  private FailoverStack(MockCluster kube, MariaDbCluster mysql, DevTemporalServer temporal) {
    this.kube = kube;
    this.mysql = mysql;
    this.temporal = temporal;
    this.client = WorkflowClient.newInstance(temporal.stubs());
  }

  public static FailoverStack start(Path workDir, Options options) {
    MockCluster kube = null;
    MariaDbCluster mysql = null;
    DevTemporalServer temporal = null;
    try {
      kube = MockCluster.start();
      mysql = MariaDbCluster.start(workDir.resolve("mysql"), options.sites().size());
      temporal = DevTemporalServer.start(0);
      FailoverStack stack = new FailoverStack(kube, mysql, temporal);
      stack.topologyMonitor = options.topologyMonitor();
      stack.monitorHeld = !options.adopted() && !options.topologyMonitor();
      stack.createResources(options);
      stack.startWorker();
      stack.startWatcher();
      if (options.adopted()) {
        stack.awaitAdopted(options.sites().get(0));
      }
      return stack;
    } catch (RuntimeException e) {
      closeQuietly(temporal);
      closeQuietly(mysql);
      closeQuietly(kube);
      throw e;
    }
  }

  private void createResources(Options options) {
    KubernetesClient k = kube.client();
    k.secrets().inNamespace(group.namespace()).resource(new SecretBuilder()
        .withNewMetadata().withName(SECRET).withNamespace(group.namespace()).endMetadata()
        .addToStringData("username", MariaDbServer.ADMIN.user())
        .addToStringData("password", MariaDbServer.ADMIN.password())
        .addToStringData("replicationUsername", MariaDbServer.REPLICATION.user())
        .addToStringData("replicationPassword", MariaDbServer.REPLICATION.password())
        .build()).create();
    List<SiteSpec> sites = new java.util.ArrayList<>();
    for (int i = 0; i < options.sites().size(); i++) {
      String name = options.sites().get(i);
      MariaDbServer server = mysql.server(i);
      servers.put(name, server);
      SiteSpec template = MockCluster.site(GROUP_NAME, name, "10.0." + (i + 1) + ".10");
      String role = options.drOnlySites().contains(name) ? SiteSpec.ROLE_DR_ONLY : template.role();
      sites.add(new SiteSpec(name, role, template.zone(),
          new SiteSpec.Endpoint(server.host(), server.port()), template.podSelector(), template.taintNodeSelector(),
          template.lbIP(), null, null));
      Map<String, String> labels = new HashMap<>(MockCluster.podLabels(name));

      kube.createPod("mysql-" + name + "-0", labels);
      kube.createNode("node-" + name + "-1", MockCluster.nodeLabels(GROUP_NAME, name));
    }
    MysqlFailoverGroup cr = new MysqlFailoverGroup();
    cr.getMetadata().setName(GROUP_NAME);
    cr.getMetadata().setNamespace(group.namespace());
    cr.setSpec(new MysqlFailoverGroupSpec(sites, new MysqlFailoverGroupSpec.SecretRef(SECRET),
        options.pollInterval(), options.failureThreshold(), null, options.failoverCooldown(), null,
        new MysqlFailoverGroupSpec.PlannedFailoverSpec(options.maxLagWait(), null, null), null,
        new MysqlFailoverGroupSpec.DnsSpec(GROUP_NAME + ".db.example.com", 30), null, null));
    k.resources(MysqlFailoverGroup.class).inNamespace(group.namespace()).resource(cr).create();

  }

  /** Starts a worker polling the failover task queue, as the worker process does. */
  public synchronized void startWorker() {
    if (worker != null) {
      return;
    }
    KubernetesClient k = kube.client();
    // Sticky execution is off. With it on, a worker that completes a workflow task asks the server
    // to send the workflow's next tasks to its own sticky queue (the SDK does so whatever the cache
    // size, so a cache of 0 alone does not turn it off). Temporal's Java test server honours that
    // request but never lets go of it: it ignores the sticky schedule-to-start timeout, does not
    // implement ResetStickyTaskQueue (it answers UNIMPLEMENTED) and clears the sticky queue only
    // when a started workflow task fails or times out. A task scheduled after the worker died
    // therefore waits forever on the dead worker's sticky queue, never started. A real server
    // moves it back to the shared queue after the schedule-to-start timeout; a zero timeout makes
    // the SDK send no sticky attributes at all, which is correct on both: every workflow task goes
    // to the shared queue with the full (short) history, and no cache is kept that would be unused.
    // Each worker has its own connection, as a worker process does; a kill closes it.
    workerStubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
        .setTarget(temporal.target()).build());
    WorkerFactoryOptions.Builder factoryOptions = WorkerFactoryOptions.newBuilder()
        .setWorkerInterceptors(workerInterceptors.toArray(WorkerInterceptor[]::new));
    WorkerOptions.Builder workerOptions = WorkerOptions.newBuilder();
    if (!stickyExecution) {
      factoryOptions.setWorkflowCacheSize(0);
      workerOptions.setStickyQueueScheduleToStartTimeout(Duration.ZERO);
    }
    WorkerFactory factory = WorkerFactory.newInstance(WorkflowClient.newInstance(workerStubs), factoryOptions.build());
    var w = factory.newWorker(TaskQueues.FAILOVER, workerOptions.build());
    // The same workflows and activities the worker process hosts, holding the sidecars' token as
    // the worker's pods do.
    Registrations.register(w, k, Clock.systemUTC(), SharedToken.of(SIDECAR_TOKEN));
    factory.start();
    worker = factory;
  }

  /**
   * Kills the worker the way a crashed pod would: polls and running activities stop at once. Its
   * connection goes first, so that nothing it was doing can still be reported, as with a pod that
   * died; its pollers then log the closed channel, which is the point.
   */
  public synchronized void killWorker() {
    if (worker != null) {
      workerStubs.shutdownNow();
      worker.shutdownNow();
      worker.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
      worker = null;
      workerStubs = null;
    }
  }

  /**
   * Stops the worker for good, at the end of the stack's life: the worker first, so that its
   * pollers know they are stopping and stay quiet, then its connection.
   */
  private synchronized void stopWorker() {
    if (worker != null) {
      worker.shutdownNow();
      worker.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
      workerStubs.shutdownNow();
      worker = null;
      workerStubs = null;
    }
  }

  /**
   * Restarts the worker with the SDK's defaults, as the worker process runs: sticky execution and
   * a workflow cache, so a workflow task carries only the new events instead of replaying the
   * whole history. Only for stacks whose worker is never killed (the benchmarks): the test server
   * never moves a dead worker's sticky queue back to the shared one (see startWorker).
   */
  public synchronized void useProductionWorkerCache() {
    stickyExecution = true;
    killWorker();
    startWorker();
  }

  /**
   * Installs an interceptor in every worker started from now on (the fault suite's hook for
   * killing the worker at an activity boundary); restart the worker for it to take effect.
   */
  public void addWorkerInterceptor(WorkerInterceptor interceptor) {
    workerInterceptors.add(interceptor);
  }

  public synchronized void startWatcher() {
    if (watcher == null) {
      // Loopback only, like everything else of the dev stack: the sidecars are in this JVM.
      watcher = WatcherApp.start(WatcherConfig.defaults().withSearchAttributes(true)
          .withTopologyMonitor(!monitorHeld).withAutomaticFailover(topologyMonitor).withHttpHost(LOOPBACK)
          .withHttpPort(watcherPort)
          .withActiveSiteToken(SharedToken.of(SIDECAR_TOKEN)), kube.client(), client);
    }
  }

  /**
   * Waits until the watcher has adopted the group with {@code site} as the active site and its
   * routing holds: the primary Service's selector picks that site's pod.
   */
  private void awaitAdopted(String site) {
    long until = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
    while (true) {
      MysqlFailoverGroupStatus status = resource().getStatus();
      boolean adopted = status != null && site.equals(status.activeSite());
      boolean routed = adopted && kube.client().pods().inNamespace(group.namespace())
          .withLabel("shipstream.io/role", "primary").withLabel("shipstream.io/group", GROUP_NAME).list().getItems()
          .stream().anyMatch(p -> p.getMetadata().getName().equals("mysql-" + site + "-0"));
      if (routed) {
        return;
      }
      if (System.nanoTime() > until) {
        throw new IllegalStateException("the watcher did not adopt " + GROUP_NAME + " with " + site
            + " active within 30 s; status " + status + ", events " + eventReasons());
      }
      Playground.sleep(20);
    }
  }

  /**
   * Restarts the watcher with its topology monitor on, which adopts a group applied with no
   * status: a test can hold the group never-active while something else (the sidecars) starts.
   */
  public synchronized void restartWatcherWithTopologyMonitor() {
    killWatcher();
    monitorHeld = false;
    topologyMonitor = true;
    startWatcher();
  }

  /** Where the watcher's HTTP port listens (its probes and /active-site), while it runs. */
  public synchronized Optional<java.net.InetSocketAddress> watcherAddress() {
    return Optional.ofNullable(watcher).map(WatcherApp::httpAddress);
  }

  public synchronized void killWatcher() {
    if (watcher != null) {
      watcher.close();
      watcher = null;
    }
  }

  /**
   * Starts a sidecar per site (see {@link SidecarMesh}), wired to the watcher's /active-site and to
   * each other with {@link #SIDECAR_TOKEN}; returns once all have booted and see each other.
   */
  public synchronized SidecarMesh startSidecars(SidecarMesh.Knobs knobs) {
    if (sidecars == null) {
      // The spec's timing first: the sidecars learn it from the watcher's first answer, and would
      // otherwise run with the spec's defaults until their next tick after the edit.
      editSpec(spec -> new MysqlFailoverGroupSpec(spec.sites(), spec.credentialsSecretRef(),
          spec.pollInterval(), spec.failureThreshold(), spec.recoveryThreshold(), spec.failoverCooldown(),
          spec.connectionDrainTimeout(), spec.plannedFailover(), spec.splitBrainPolicy(), spec.dns(),
          new MysqlFailoverGroupSpec.SidecarSpec(knobs.leaseTimeout().toMillis() + "ms",
              knobs.peerCheckInterval().toMillis() + "ms"), spec.dragonfly()));
      sidecars = SidecarMesh.start(servers, group, watcherPort, SIDECAR_TOKEN, knobs);
      // The emergency failover asks the old primary's sidecar, and waits out its lease, by the spec.
      SidecarMesh mesh = sidecars;
      editSpec(spec -> new MysqlFailoverGroupSpec(spec.sites().stream().map(s -> withSite(s, s.mysql(),
              new SiteSpec.Sidecar(mesh.controlUrl(s.name())))).toList(), spec.credentialsSecretRef(),
          spec.pollInterval(), spec.failureThreshold(), spec.recoveryThreshold(), spec.failoverCooldown(),
          spec.connectionDrainTimeout(), spec.plannedFailover(), spec.splitBrainPolicy(), spec.dns(),
          spec.sidecar(), spec.dragonfly()));
    }
    return sidecars;
  }

  /**
   * Points the control plane (the watcher's monitor and the worker's activities) at the site's
   * MySQL through a {@link TcpProxy}, returned so that a test can cut the control plane off the
   * server while the application and the replicas still reach it directly. Returns once the
   * monitor has had time to restart its polls on the changed spec.
   */
  public synchronized TcpProxy proxyControlPlaneMysql(String site) {
    MariaDbServer server = server(site);
    TcpProxy proxy = TcpProxy.start(server.host(), server.port());
    controlPlaneProxies.add(proxy);
    editSpec(spec -> new MysqlFailoverGroupSpec(spec.sites().stream().map(s -> !s.name().equals(site) ? s
            : withSite(s, new SiteSpec.Endpoint(proxy.host(), proxy.port()), s.sidecar())).toList(),
        spec.credentialsSecretRef(), spec.pollInterval(), spec.failureThreshold(), spec.recoveryThreshold(),
        spec.failoverCooldown(), spec.connectionDrainTimeout(), spec.plannedFailover(), spec.splitBrainPolicy(),
        spec.dns(), spec.sidecar(), spec.dragonfly()));
    sleep(2_000);
    return proxy;
  }

  /**
   * Changes the spec as {@code kubectl edit} would, reading again when the watcher's monitor wrote
   * the status in between (the edit is sent with the resourceVersion it read, so it gets 409).
   */
  private void editSpec(java.util.function.UnaryOperator<MysqlFailoverGroupSpec> change) {
    for (int attempt = 1; ; attempt++) {
      try {
        kube.client().resources(MysqlFailoverGroup.class).inNamespace(group.namespace()).withName(GROUP_NAME)
            .edit(cr -> {
              cr.setSpec(change.apply(cr.getSpec()));
              return cr;
            });
        return;
      } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 5) {
          throw e;
        }
        sleep(20L * attempt);
      }
    }
  }

  private static SiteSpec withSite(SiteSpec s, SiteSpec.Endpoint mysql, SiteSpec.Sidecar sidecar) {
    return new SiteSpec(s.name(), s.role(), s.zone(), mysql, s.podSelector(), s.taintNodeSelector(), s.lbIP(),
        sidecar, s.dragonfly());
  }

  /** The sidecars, when {@link #startSidecars} was called. */
  public synchronized Optional<SidecarMesh> sidecars() {
    return Optional.ofNullable(sidecars);
  }

  /**
   * Adds a session store: a redis-server per site for the first two sites (the first one's is the
   * master), their store pods, and spec.dragonfly enabled with these knobs.
   */
  public synchronized RedisPair startRedisPair(Path workDir, String maxSyncWait, String onSyncTimeout) {
    if (redis == null) {
      List<String> sites = List.copyOf(servers.keySet());
      redis = RedisPair.start(workDir, kube.client(), group, sites.get(0), sites.get(1), maxSyncWait, onSyncTimeout);
    }
    return redis;
  }

  public GroupRef group() {
    return group;
  }

  public MariaDbServer server(String site) {
    return servers.get(site);
  }

  public Map<String, MariaDbServer> servers() {
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

  /** The mock API server itself, for faults such as refused writes. */
  public MockCluster mockCluster() {
    return kube;
  }

  public KubernetesClient kubernetes() {
    return kube.client();
  }

  public WorkflowClient temporalClient() {
    return client;
  }

  public String temporalTarget() {
    return temporal.target();
  }

  public MysqlFailoverGroup resource() {
    return kube.group(group);
  }

  /** {@code kubectl annotate mysqlfailovergroup orders bloodraven.shipstream.io/planned-failover=<value> --overwrite}. */
  public void annotate(String value) {
    annotate(kube.client(), group, value);
  }

  /**
   * Sets the planned-failover annotation of a group, as kubectl annotate --overwrite does: a merge
   * patch that names no resourceVersion. The watcher writes the group all the time, so an edit (a
   * read, then a patch bound to the version read) fails whenever one of its writes lands between.
   */
  static void annotate(KubernetesClient client, GroupRef ref, String value) {
    String patch = client.getKubernetesSerialization().asJson(
        Map.of("metadata", Map.of("annotations", Map.of(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION, value))));
    client.resources(MysqlFailoverGroup.class).inNamespace(ref.namespace()).withName(ref.name())
        .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
  }

  public void removeAnnotation() {
    kube.client().resources(MysqlFailoverGroup.class).inNamespace(group.namespace()).withName(group.name())
        .edit(g -> {
          if (g.getMetadata().getAnnotations() != null) {
            Map<String, String> annotations = new HashMap<>(g.getMetadata().getAnnotations());
            annotations.remove(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION);
            g.getMetadata().setAnnotations(annotations);
          }
          return g;
        });
  }

  public Optional<PlannedFailoverStatus> plannedStatus() {
    MysqlFailoverGroup g = resource();
    return Optional.ofNullable(g.getStatus()).map(MysqlFailoverGroupStatus::plannedFailover);
  }

  /** Waits until status.plannedFailover satisfies the condition; returns it. */
  public PlannedFailoverStatus awaitPlanned(Predicate<PlannedFailoverStatus> condition, Duration timeout) {
    long until = System.nanoTime() + timeout.toNanos();
    while (true) {
      Optional<PlannedFailoverStatus> s = plannedStatus();
      if (s.isPresent() && condition.test(s.get())) {
        return s.get();
      }
      if (System.nanoTime() > until) {
        throw new IllegalStateException("status.plannedFailover did not get there within " + timeout + ": " + s);
      }
      sleep(10);
    }
  }

  /** Waits for the end of the planned failover started by the annotation, and for the annotation to go. */
  public PlannedFailoverStatus awaitPlannedEnd(String startedAfter, Duration timeout) {
    PlannedFailoverStatus s = awaitPlanned(p -> p.phase() != null
        && (p.phase().equals("Succeeded") || p.phase().equals("Failed"))
        && p.startTime() != null && (startedAfter == null || p.startTime().compareTo(startedAfter) >= 0), timeout);
    long until = System.nanoTime() + timeout.toNanos();
    while (annotation().isPresent() && System.nanoTime() < until) {
      sleep(10);
    }
    return s;
  }

  public Optional<String> annotation() {
    var annotations = resource().getMetadata().getAnnotations();
    return Optional.ofNullable(annotations == null ? null : annotations.get(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION));
  }

  /**
   * The site the {@code mysql-orders-primary} Service routes to right now: the one whose pod
   * carries role=primary, as kube-proxy would see it; empty while no pod does.
   */
  public Optional<String> routedSite() {
    List<Pod> pods = kube.client().pods().inNamespace(group.namespace())
        .withLabel("shipstream.io/group", GROUP_NAME).withLabel("shipstream.io/role", "primary").list().getItems();
    return pods.stream().map(p -> p.getMetadata().getLabels().get("site")).findFirst();
  }

  /** The JDBC URL an application gets through the primary Service; throws while nothing is routed. */
  public String routedJdbcUrl() {
    String site = routedSite().orElseThrow(() -> new IllegalStateException("no pod is labelled primary"));
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
      return "jdbc:mariadb://127.0.0.1:1/";
    }
  }

  /** status.emergencyFailover.phase, or null while there is none. */
  public String emergencyPhase() {
    MysqlFailoverGroupStatus s = resource().getStatus();
    return s == null || s.emergencyFailover() == null ? null : s.emergencyFailover().phase();
  }

  /** The Events in the group's namespace, oldest first. */
  public List<Event> events() {
    return kube.client().v1().events().inNamespace(group.namespace()).list().getItems();
  }

  public List<String> eventReasons() {
    return events().stream().map(Event::getReason).toList();
  }

  /** The messages of the Events with this reason, oldest first. */
  public List<String> eventMessages(String reason) {
    return events().stream().filter(e -> reason.equals(e.getReason())).map(Event::getMessage).toList();
  }

  @Override
  public void close() {
    // What the mock holds now is what the run wrote; the ITs check it against the CRD. A failure to
    // write it is thrown only once every process is stopped, so that no check passes for want of a file.
    RuntimeException dumpFailure = null;
    try {
      StoredGroupDump.write(kube.client(), group);
    } catch (RuntimeException e) {
      dumpFailure = e;
    }
    // The sidecars first: they must not see the watcher go and start counting down their lease.
    closeQuietly(sidecars);
    controlPlaneProxies.forEach(FailoverStack::closeQuietly);
    killWatcher();
    stopWorker();
    closeQuietly(redis);
    closeQuietly(temporal);
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

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
