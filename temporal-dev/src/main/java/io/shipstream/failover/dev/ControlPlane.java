package io.shipstream.failover.dev;

import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.testsupport.FreePorts;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.testsupport.TcpProxy;
import io.shipstream.failover.watcher.WatcherApp;
import io.shipstream.failover.watcher.WatcherConfig;
import io.shipstream.failover.worker.Registrations;
import io.shipstream.failover.workflows.TaskQueues;
import io.temporal.client.WorkflowClient;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The stack's Temporal dev server and the two processes that act on the group through it, the
 * worker and the watcher, each of which a test can kill and start again.
 */
public final class ControlPlane implements AutoCloseable {
  static {
    // Every user of the stack may kill its worker: the playground, the fault suite, the tests.
    KilledWorkerNoise.install();
  }

  private final DevTemporalServer temporal;
  private final MockCluster kube;
  private final WorkflowClient client;
  /** Fixed for the stack's life, so a restarted watcher is found where the sidecars' links point. */
  private final int watcherPort = FreePorts.next();
  private final List<WorkerInterceptor> workerInterceptors = new CopyOnWriteArrayList<>();
  private WorkerFactory worker;
  private WorkflowServiceStubs workerStubs;
  private volatile boolean stickyExecution;
  private WatcherApp watcher;
  /** The watcher's own path to the API server, when a test asked for one it can cut; null: direct. */
  private TcpProxy watcherApiPath;
  /** The client the watcher was started with through {@link #watcherApiPath}, closed with it. */
  private io.fabric8.kubernetes.client.KubernetesClient watcherKube;
  private boolean topologyMonitor;
  /**
   * The watcher runs without its monitor, so nothing adopts the group (Options.adoptionHeld) until
   * {@link #restartWatcherWithTopologyMonitor}.
   */
  private boolean monitorHeld;
  /** The watchers' Lease timings; null: the chart's defaults. */
  private io.shipstream.failover.watcher.LeaderElectionSettings leaseTimings;
  private final List<Replica> replicas = new CopyOnWriteArrayList<>();

  ControlPlane(DevTemporalServer temporal, MockCluster kube, boolean topologyMonitor, boolean monitorHeld) {
    this.temporal = temporal;
    this.kube = kube;
    this.client = WorkflowClient.newInstance(temporal.stubs());
    this.topologyMonitor = topologyMonitor;
    this.monitorHeld = monitorHeld;
  }

  public WorkflowClient client() {
    return client;
  }

  /** The Temporal dev server itself. */
  DevTemporalServer temporalServer() {
    return temporal;
  }

  public String temporalTarget() {
    return temporal.target();
  }

  /** Starts a worker polling the failover task queue, as the worker process does. */
  public synchronized void startWorker() {
    if (worker != null) {
      return;
    }
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
    worker = newWorker(workerStubs, kube.client(), workerInterceptors, null);
  }

  /**
   * A started worker on {@code stubs} whose activities reach the API server with {@code api}: the
   * same workflows and activities the worker process hosts, holding the sidecars' token as the
   * worker's pods do, with a queue of its own for the write window's MySQL steps. {@code identity}
   * is what its polls tell Temporal (a workflow history names it); null: the SDK's pid@host.
   */
  private WorkerFactory newWorker(WorkflowServiceStubs stubs, io.fabric8.kubernetes.client.KubernetesClient api,
      List<WorkerInterceptor> interceptors, String identity) {
    WorkerFactoryOptions.Builder factoryOptions = WorkerFactoryOptions.newBuilder()
        .setWorkerInterceptors(interceptors.toArray(WorkerInterceptor[]::new));
    WorkerOptions.Builder workerOptions = WorkerOptions.newBuilder();
    if (!stickyExecution) {
      factoryOptions.setWorkflowCacheSize(0);
      workerOptions.setStickyQueueScheduleToStartTimeout(Duration.ZERO);
    }
    io.temporal.client.WorkflowClientOptions.Builder clientOptions = io.temporal.client.WorkflowClientOptions
        .newBuilder();
    if (identity != null) {
      clientOptions.setIdentity(identity);
    }
    WorkerFactory factory = WorkerFactory.newInstance(WorkflowClient.newInstance(stubs, clientOptions.build()),
        factoryOptions.build());
    Registrations.register(factory, TaskQueues.FAILOVER, workerOptions.build(), api, Clock.systemUTC(),
        SharedToken.of(FailoverStack.SIDECAR_TOKEN), io.shipstream.failover.runtime.ControlPlaneTls.none(),
        this::watcherReplicas);
    factory.start();
    return factory;
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
      worker.awaitTermination(10, TimeUnit.SECONDS);
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
      worker.awaitTermination(10, TimeUnit.SECONDS);
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
      io.fabric8.kubernetes.client.KubernetesClient api = kube.client();
      if (watcherApiPath != null) {
        watcherKube = apiClientAt(watcherApiPath.httpUrl());
        api = watcherKube;
      }
      watcher = WatcherApp.start(watcherConfig(watcherPort, "watcher-0"), api, client);
    }
  }

  /** A client of the mock API server as the stack's own, but reaching it at {@code url} (a proxy of it). */
  private io.fabric8.kubernetes.client.KubernetesClient apiClientAt(java.net.URI url) {
    return new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(
        new io.fabric8.kubernetes.client.ConfigBuilder(kube.client().getConfiguration())
            .withMasterUrl(url.toString()).build())
        .build();
  }

  /** The watchers' configuration: every replica the same but for its port and its name on the Lease. */
  private WatcherConfig watcherConfig(int port, String identity) {
    WatcherConfig config = WatcherConfig.defaults()
        .withTopologyMonitor(!monitorHeld).withAutomaticFailover(topologyMonitor)
        .withHttpHost(FailoverStack.LOOPBACK).withHttpPort(port)
        .withActiveSiteToken(SharedToken.of(FailoverStack.SIDECAR_TOKEN));
    return leaseTimings == null ? config : config.withLeaderElection(leaseTimings.withIdentity(identity));
  }

  /**
   * The Lease timings of every watcher started from now on (the chart's defaults, 15 s / 10 s /
   * 2 s, until this is called): restart the watcher for it to take effect.
   */
  public synchronized void useLeaseTimings(Duration lease, Duration renewDeadline, Duration retryPeriod) {
    leaseTimings = WatcherConfig.defaults().leaderElection().withTimings(lease, renewDeadline, retryPeriod);
  }

  /** The Lease timings the watchers run with: the chart's defaults unless {@link #useLeaseTimings}. */
  public synchronized io.shipstream.failover.watcher.LeaderElectionSettings leaseTimings() {
    return leaseTimings == null ? WatcherConfig.defaults().leaderElection() : leaseTimings;
  }

  /** Whether the stack's own watcher runs and holds the Lease now. */
  public synchronized boolean watcherLeads() {
    return watcher != null && watcher.isLeader();
  }

  /**
   * A second watcher and a second worker, a replica of the control plane as a second pod of each
   * would be, whose links to Temporal and to the API server are {@code temporalTarget} and {@code
   * apiUrl} (a region's proxies: cutting them cuts this replica off). The watcher campaigns for the
   * same Lease as {@code watcher-<name>} and serves its own port ({@link Replica#httpAddress}; the
   * sidecars ask the stack's watcher unless {@link RegionNetwork#routeWatcher} sends one here); the
   * worker polls the same queue as {@code worker-<name>}, with {@code interceptors} of its own, and
   * is left out when {@code interceptors} is null (a watcher replica alone). Stopped with the stack
   * if not before.
   */
  public synchronized Replica startReplica(String name, String temporalTarget, java.net.URI apiUrl,
      List<WorkerInterceptor> interceptors) {
    Replica replica = new Replica(name, temporalTarget, apiUrl, interceptors);
    replicas.add(replica);
    return replica;
  }

  /** A watcher and (unless left out) a worker beside the stack's own ({@link #startReplica}). */
  public final class Replica implements AutoCloseable {
    private final String name;
    private final WorkflowServiceStubs stubs;
    private final io.fabric8.kubernetes.client.KubernetesClient api;
    /** Null when left out. */
    private final WorkerFactory replicaWorker;
    private final WatcherApp replicaWatcher;

    private Replica(String name, String temporalTarget, java.net.URI apiUrl, List<WorkerInterceptor> interceptors) {
      this.name = name;
      this.stubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
          .setTarget(temporalTarget).build());
      this.api = apiClientAt(apiUrl);
      WorkerFactory startedWorker = null;
      try {
        startedWorker = interceptors == null ? null : newWorker(stubs, api, interceptors, "worker-" + name);
        this.replicaWorker = startedWorker;
        this.replicaWatcher = WatcherApp.start(watcherConfig(FreePorts.next(), "watcher-" + name), api,
            WorkflowClient.newInstance(stubs));
      } catch (RuntimeException e) {
        if (startedWorker != null) {
          startedWorker.shutdownNow();
        }
        stubs.shutdownNow();
        api.close();
        throw e;
      }
    }

    public String name() {
      return name;
    }

    public boolean watcherLeads() {
      return replicaWatcher.isLeader();
    }

    /** Where this watcher serves its probes, /active-site and /answers. */
    public InetSocketAddress httpAddress() {
      return replicaWatcher.httpAddress();
    }

    /**
     * Stops the watcher (releasing the Lease when it can still reach the API server), then the
     * worker, then their connections.
     */
    @Override
    public void close() {
      synchronized (ControlPlane.this) {
        replicas.remove(this);
      }
      replicaWatcher.close();
      if (replicaWorker != null) {
        replicaWorker.shutdownNow();
        replicaWorker.awaitTermination(10, TimeUnit.SECONDS);
      }
      stubs.shutdownNow();
      api.close();
    }
  }

  /**
   * Restarts the watcher with its Kubernetes client (informers, Lease, status writes) behind a
   * {@link TcpProxy} of its own, and returns the proxy: a test cuts the watcher's path to the API
   * server with it (its watch refused) while the worker and the test's own client still reach it.
   */
  public synchronized TcpProxy routeWatcherThroughProxy() {
    if (watcherApiPath == null) {
      killWatcher();
      java.net.URI api = java.net.URI.create(kube.client().getConfiguration().getMasterUrl());
      watcherApiPath = TcpProxy.start(api.getHost(), api.getPort());
      startWatcher();
    }
    return watcherApiPath;
  }

  public synchronized void killWatcher() {
    if (watcher != null) {
      watcher.close();
      watcher = null;
    }
    if (watcherKube != null) {
      watcherKube.close();
      watcherKube = null;
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

  private final java.net.http.HttpClient answersClient = java.net.http.HttpClient.newBuilder()
      .connectTimeout(Duration.ofSeconds(1)).build();

  /**
   * The watchers that run now, the stack's own and every replica, each at its own port: what the
   * worker lists as the chart's worker lists the watcher's pods (WATCHER_POD_SELECTOR). A watcher
   * that was killed is not listed, as a deleted pod is not.
   */
  synchronized io.shipstream.failover.activities.sidecar.WatcherReplicas.Listing watcherReplicas() {
    List<io.shipstream.failover.activities.sidecar.WatcherReplicas.Replica> all = new java.util.ArrayList<>();
    if (watcher != null) {
      all.add(replica("watcher-0", watcher.httpAddress()));
    }
    for (Replica r : replicas) {
      all.add(replica("watcher-" + r.name(), r.httpAddress()));
    }
    return new io.shipstream.failover.activities.sidecar.WatcherReplicas.Listing(all, answersClient);
  }

  private static io.shipstream.failover.activities.sidecar.WatcherReplicas.Replica replica(String name,
      InetSocketAddress address) {
    return new io.shipstream.failover.activities.sidecar.WatcherReplicas.Replica(name,
        "http://" + address.getHostString() + ":" + address.getPort());
  }

  /** Where the watcher's HTTP port listens (its probes and /active-site), while it runs. */
  public synchronized Optional<InetSocketAddress> watcherAddress() {
    return Optional.ofNullable(watcher).map(WatcherApp::httpAddress);
  }

  /** The watcher's port, the same across its restarts. */
  int watcherPort() {
    return watcherPort;
  }

  /** The watcher, then the worker, then the Temporal server. */
  @Override
  public void close() {
    List.copyOf(replicas).forEach(Replica::close);
    killWatcher();
    if (watcherApiPath != null) {
      watcherApiPath.close();
    }
    stopWorker();
    temporal.close();
  }
}
