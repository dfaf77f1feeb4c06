package io.shipstream.failover.dev;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.testsupport.MariaDbServer;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.watcher.WatcherApp;
import io.shipstream.failover.watcher.WatcherConfig;
import io.shipstream.failover.worker.Registrations;
import io.shipstream.failover.workflows.TaskQueues;
import io.temporal.client.WorkflowClient;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Many groups on one control plane: one Temporal dev server, one mock API server, one worker and
 * one watcher, and G {@code MysqlFailoverGroup}s in namespace {@code shop}, each with its own pair
 * of real {@code mariadbd} (iad primary, pdx replica; {@link MariaDbServer#SMALL_FOOTPRINT}), its
 * own pods, nodes, Service and DNSEndpoint. What the scale benchmark fails over all at once.
 */
final class ScaleStack implements AutoCloseable {
  static final List<String> SITES = List.of("iad", "pdx");

  private final MockCluster kube;
  private final DevTemporalServer temporal;
  private final List<Group> groups = new ArrayList<>();
  private WorkerFactory worker;
  private WatcherApp watcher;

  /** One group and its two servers. */
  record Group(GroupRef ref, Map<String, MariaDbServer> servers) {}

  private ScaleStack(MockCluster kube, DevTemporalServer temporal) {
    this.kube = kube;
    this.temporal = temporal;
  }

  /** Requests the mock API server has answered so far (everyone's: worker, watcher, benchmark). */
  int apiRequests() {
    return kube.requestCount();
  }

  static ScaleStack start(Path workDir, int groupCount) {
    ScaleStack stack = new ScaleStack(MockCluster.start(), DevTemporalServer.start(0));
    try {
      GroupApi.createCredentialsSecret(stack.kube.client(), MockCluster.NAMESPACE);
      // Two groups boot at a time: startup is disk and CPU bound, and the machine is small.
      ExecutorService starter = Executors.newFixedThreadPool(2);
      List<CompletableFuture<Group>> starting = new ArrayList<>();
      for (int i = 1; i <= groupCount; i++) {
        String name = String.format("orders-%02d", i);
        starting.add(CompletableFuture.supplyAsync(() -> startGroup(stack.kube, workDir.resolve(name), name),
            starter));
      }
      try {
        starting.forEach(f -> stack.groups.add(f.join()));
      } finally {
        starter.shutdown();
      }
      stack.startWorker();
      // The monitor adopts every group as it would in a cluster, but starts no failover of its own.
      stack.watcher = WatcherApp.start(WatcherConfig.defaults().withTopologyMonitor(true)
          .withAutomaticFailover(false).withHttpHost(FailoverStack.LOOPBACK),
          stack.kube.client(), WorkflowClient.newInstance(stack.temporal.stubs()));
      stack.awaitAdopted();
      return stack;
    } catch (RuntimeException e) {
      stack.close();
      throw e;
    }
  }

  /**
   * A group {@code name} beside any other in the mock's namespace {@code shop}: two real {@code
   * mariadbd} (iad primary, pdx replicating, read-only), its pods and nodes, and the group applied
   * with no status and no cooldown, for a watcher to adopt. The Secret {@link FailoverStack#SECRET}
   * must exist in the namespace.
   */
  static Group startGroup(MockCluster kube, Path dir, String name) {
    Map<String, MariaDbServer> servers = new java.util.LinkedHashMap<>();
    try {
      for (String site : SITES) {
        servers.put(site, MariaDbServer.start(dir, name + "-" + site, MariaDbServer.SMALL_FOOTPRINT));
      }
      MariaDbServer primary = servers.get("iad");
      primary.execute("CREATE DATABASE appdb",
          "CREATE TABLE appdb.writes (id BIGINT PRIMARY KEY, at TIMESTAMP(6) NOT NULL)");
      MariaDbServer replica = servers.get("pdx");
      replica.setReadOnly(true);
      replica.replicateFrom(primary);
      replica.awaitCaughtUpWith(primary, Duration.ofSeconds(60));
    } catch (RuntimeException e) {
      servers.values().forEach(MariaDbServer::close);
      throw e;
    }
    GroupRef ref = new GroupRef(MockCluster.NAMESPACE, name);
    createResources(kube, ref, servers);
    return new Group(ref, servers);
  }

  private static void createResources(MockCluster kube, GroupRef ref, Map<String, MariaDbServer> servers) {
    KubernetesClient k = kube.client();
    List<SiteSpec> sites = new ArrayList<>();
    int i = 0;
    for (Map.Entry<String, MariaDbServer> e : servers.entrySet()) {
      String site = e.getKey();
      MariaDbServer server = e.getValue();
      // Each group's pods are told apart by their own label: the groups share the namespace (and
      // FailoverStack's group selects app=mysql).
      Map<String, String> selector = Map.of("app", "mysql-" + ref.name(), "site", site);
      sites.add(new SiteSpec(site, SiteSpec.ROLE_PRIMARY_CANDIDATE, "zone-" + site,
          new SiteSpec.Endpoint(server.host(), server.port()), selector, MockCluster.nodeLabels(ref.name(), site),
          "10.0." + (++i) + ".10", null, null));
      kube.createPod("mysql-" + ref.name() + "-" + site + "-0", selector);
      kube.createNode("node-" + ref.name() + "-" + site, MockCluster.nodeLabels(ref.name(), site));
    }
    MysqlFailoverGroup cr = new MysqlFailoverGroup();
    cr.getMetadata().setName(ref.name());
    cr.getMetadata().setNamespace(ref.namespace());
    cr.setSpec(new MysqlFailoverGroupSpec(sites, new MysqlFailoverGroupSpec.SecretRef(FailoverStack.SECRET),
        null, null, null, "0s", null, null, null,
        new MysqlFailoverGroupSpec.DnsSpec(ref.name() + ".db.example.com", 30), null, null));
    k.resources(MysqlFailoverGroup.class).inNamespace(ref.namespace()).resource(cr).create();
  }

  /** Every group adopted by the watcher with iad active, as the rounds expect. */
  private void awaitAdopted() {
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    for (Group g : groups) {
      while (true) {
        MysqlFailoverGroupStatus status = kube.group(g.ref()).getStatus();
        if (status != null && "iad".equals(status.activeSite())) {
          break;
        }
        if (System.nanoTime() > until) {
          throw new IllegalStateException(g.ref() + " was not adopted within 60 s: " + status);
        }
        Playground.sleep(20);
      }
    }
  }

  /**
   * The worker as the worker process runs it: the SDK's defaults (sticky execution, a workflow
   * cache) and the real registrations. Nothing here kills it, so the dev stack's no-sticky
   * workaround (see ControlPlane.startWorker) is not needed.
   */
  private void startWorker() {
    WorkerFactory factory = WorkerFactory.newInstance(WorkflowClient.newInstance(temporal.stubs()),
        WorkerFactoryOptions.newBuilder().build());
    Registrations.register(factory, TaskQueues.FAILOVER, WorkerOptions.newBuilder().build(), kube.client(),
        Clock.systemUTC(), SharedToken.of(FailoverStack.SIDECAR_TOKEN));
    factory.start();
    worker = factory;
  }

  List<Group> groups() {
    return groups;
  }

  WorkflowClient temporalClient() {
    return WorkflowClient.newInstance(temporal.stubs());
  }

  KubernetesClient kubernetes() {
    return kube.client();
  }

  void annotate(GroupRef ref, String value) {
    GroupApi.annotate(kube.client(), ref, value);
  }

  /** Every group's resource, read in one list call. */
  Map<String, MysqlFailoverGroup> resources() {
    Map<String, MysqlFailoverGroup> all = new HashMap<>();
    kube.client().resources(MysqlFailoverGroup.class).inNamespace(MockCluster.NAMESPACE).list().getItems()
        .forEach(g -> all.put(g.getMetadata().getName(), g));
    return all;
  }

  static Optional<PlannedFailoverStatus> planned(MysqlFailoverGroup g) {
    return Optional.ofNullable(g.getStatus()).map(MysqlFailoverGroupStatus::plannedFailover);
  }

  @Override
  public void close() {
    if (watcher != null) {
      watcher.close();
    }
    if (worker != null) {
      worker.shutdownNow();
      worker.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
    }
    for (Group g : groups) {
      g.servers().values().forEach(MariaDbServer::close);
    }
    temporal.close();
    kube.close();
  }
}
