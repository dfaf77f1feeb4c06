package io.shipstream.failover.dev;

import static io.shipstream.failover.dev.HelmChartTest.deployment;
import static io.shipstream.failover.dev.HelmChartTest.permissions;
import static io.shipstream.failover.dev.HelmChartTest.podEnv;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.shipstream.failover.activities.kubernetes.KubernetesActivitiesImpl;
import io.shipstream.failover.kube.SecretCredentialsProvider;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.watcher.RequestRejections;
import io.shipstream.failover.watcher.WatcherApp;
import io.shipstream.failover.watcher.WatcherConfig;
import io.shipstream.failover.watcher.topology.KubeDrainView;
import io.shipstream.failover.watcher.topology.RoutingRepair;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's RBAC against the code it is for: the worker's activities and the watcher process,
 * configured from the rendered environment, run against a mock API server through a client that
 * records every request. Each request must be allowed by the rendered Roles and bindings (a
 * missing verb is a 403 in production), and each grant must be used by some request (a stale
 * one is privilege nobody needs).
 */
class HelmRbacCoverageTest {
  static final GroupRef ORDERS = new GroupRef(MockCluster.NAMESPACE, "orders");

  @Test
  void everyRequestOfTheCodeIsAllowedAndEveryGrantIsUsed(@TempDir Path pod) throws Exception {
    for (List<HasMetadata> rendering : List.of(HelmChartTest.render(pod, false), HelmChartTest.render(pod, true))) {
      Map<String, String> watcherEnv = podEnv(deployment(rendering, "watcher"), pod);
      try (MockCluster cluster = MockCluster.start()) {
        List<Request> worker = record(cluster, client -> workerCalls(cluster, client));
        List<Request> watcher = record(cluster, client -> watcherCalls(cluster, client, watcherEnv));
        assertGrantsUsedExactly(rendering, "worker", worker);
        assertGrantsUsedExactly(rendering, "watcher", watcher);
      }
    }
  }

  /**
   * One request as the API server's authorizer sees it: the permission it needs ("group/resource
   * verb", core group "core", subresources as "resource/sub"), in a namespace (null: cluster
   * scope), on a named object or none.
   */
  record Request(String method, URI uri, String permission, String namespace, String name) {
    static Request of(String method, URI uri) {
      List<String> path = List.of(uri.getPath().substring(1).split("/"));
      boolean core = path.get(0).equals("api");
      String group = core ? "core" : path.get(1);
      List<String> rest = path.subList(core ? 2 : 3, path.size());
      String namespace = null;
      if (rest.get(0).equals("namespaces") && rest.size() > 2) {
        namespace = rest.get(1);
        rest = rest.subList(2, rest.size());
      }
      String resource = rest.get(0) + (rest.size() > 2 ? "/" + rest.get(2) : "");
      String name = rest.size() > 1 ? rest.get(1) : null;
      boolean watch = uri.getQuery() != null && uri.getQuery().matches("(.*&)?watch=(true|1)(&.*)?");
      String verb = switch (method) {
        case "GET" -> name != null ? "get" : watch ? "watch" : "list";
        case "POST" -> "create";
        case "PATCH" -> "patch";
        case "PUT" -> "update";
        case "DELETE" -> name != null ? "delete" : "deletecollection";
        default -> throw new AssertionError("unexpected method " + method + " " + uri);
      };
      return new Request(method, uri, group + "/" + resource + " " + verb, namespace, name);
    }
  }

  /** Each request matched to the grant that allows it; the grants matched must be all the grants. */
  static void assertGrantsUsedExactly(List<HasMetadata> rendering, String component, List<Request> requests) {
    Map<String, Set<String>> granted = permissions(rendering, component);
    Set<String> used = new TreeSet<>();
    for (Request r : requests) {
      Set<String> here = new TreeSet<>(granted.getOrDefault("*", Set.of()));
      if (r.namespace() != null) {
        here.addAll(granted.getOrDefault(r.namespace(), Set.of()));
      }
      String byName = r.permission() + " name=" + r.name();
      String grant = here.contains(r.permission()) ? r.permission() : here.contains(byName) ? byName : null;
      assertThat(grant).as("%s %s needs %s in %s; the %s has %s", r.method(), r.uri(), r.permission(),
          r.namespace() == null ? "cluster scope" : r.namespace(), component, granted).isNotNull();
      used.add(grant);
    }
    Set<String> all = new TreeSet<>();
    granted.values().forEach(all::addAll);
    assertThat(used).as("the %s's grants, each used by some request", component).isEqualTo(all);
  }

  interface Scenario {
    void run(KubernetesClient client) throws Exception;
  }

  /** The requests the scenario sends through a client of its own to the cluster's mock API server. */
  static List<Request> record(MockCluster cluster, Scenario scenario) throws Exception {
    List<Request> requests = new CopyOnWriteArrayList<>();
    Interceptor recorder = new Interceptor() {
      @Override
      public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        requests.add(Request.of(request.method(), request.uri()));
      }
    };
    try (KubernetesClient client = new KubernetesClientBuilder()
        .withConfig(new ConfigBuilder(cluster.client().getConfiguration()).build())
        .withHttpClientBuilderConsumer(http -> http.addOrReplaceInterceptor("record", recorder)).build()) {
      scenario.run(client);
    }
    return List.copyOf(requests);
  }

  /** Every Kubernetes call of a failover, through the worker's activities and credentials provider. */
  static void workerCalls(MockCluster cluster, KubernetesClient client) {
    List<SiteSpec> sites = List.of(MockCluster.site("orders", "iad", "10.0.1.10"),
        MockCluster.site("orders", "pdx", "10.0.2.10"));
    cluster.createGroup("orders", sites, Map.of(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION, "pdx"));
    cluster.createPod("mysql-pdx-0", MockCluster.podLabels("pdx"));
    cluster.createNode("node-iad-1", MockCluster.nodeLabels("orders", "iad"));
    cluster.createNode("node-pdx-1", MockCluster.nodeLabels("orders", "pdx"));
    cluster.client().secrets().inNamespace(MockCluster.NAMESPACE).resource(new SecretBuilder()
        .withNewMetadata().withName("mysql-credentials").endMetadata()
        .addToStringData("username", "failover").addToStringData("password", "secret").build()).create();
    var activities = new KubernetesActivitiesImpl(client, Clock.systemUTC());
    activities.loadGroup(ORDERS);
    activities.writePlannedFailoverStatus(ORDERS, new PlannedFailoverStatus("Pending", "pdx", null, null, null,
        null, null, null, null, null, null, null, null), null);
    // The second one is a repeat: its count is bumped.
    activities.emitEvents(ORDERS,
        List.of(new KubernetesActivities.EventNote("Normal", "PlannedFailoverStarted", "to pdx")));
    activities.emitEvents(ORDERS,
        List.of(new KubernetesActivities.EventNote("Normal", "PlannedFailoverStarted", "to pdx")));
    activities.setSiteRole(ORDERS, sites.get(1), "primary");
    // The session store's pods are found by their own labels and follow Service dragonfly-orders-active.
    cluster.createPod("dragonfly-pdx-0", Map.of("shipstream.io/group", "orders", "shipstream.io/store-site", "pdx"));
    activities.setStoreRole(ORDERS, sites.get(1), "master", true);
    activities.recordFailover(ORDERS, "pdx", null, "0-1-42");
    // Created, then repointed.
    activities.updateDns(ORDERS, "orders.db.example.com", "10.0.1.10", 30);
    activities.updateDns(ORDERS, "orders.db.example.com", "10.0.2.10", 30);
    // A node is patched first as it was listed; a conflict (another writer changed it) reads it again.
    try (var conflict = cluster.refuseNextWrites(java.util.regex.Pattern.compile("/api/v1/nodes/node-iad-1(\\?.*)?"),
        409, 1)) {
      activities.applyTaints(ORDERS, sites, "pdx");
    }
    activities.clearAnnotation(ORDERS, "pdx");
    new SecretCredentialsProvider(client, Clock.systemUTC()).credentials(ORDERS, "mysql-credentials");
  }

  /**
   * A refused request, then the watcher process itself as the chart configures it: informers, the
   * Lease, the topology monitor's polls of the group's sites (the Secret read for their login, then
   * status.sites), and the release of the Lease on close. No request is pending and no site answers,
   * so nothing is started: the Temporal client points nowhere, and the monitor outlives its failed
   * "is a failover running?" until every site counts as dead and the verdict is TotalLoss.
   */
  static void watcherCalls(MockCluster cluster, KubernetesClient client, Map<String, String> env)
      throws InterruptedException {
    cluster.client().resources(MysqlFailoverGroup.class).inNamespace(ORDERS.namespace()).withName(ORDERS.name())
        .edit(g -> {
          g.getMetadata().getAnnotations().put(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION, "iad");
          return g;
        });
    new RequestRejections(client, Clock.systemUTC()).reject(ORDERS, "iad", "iad", "ConcurrentOperation",
        "an emergency failover holds the group");
    WatcherConfig config = WatcherConfig.from(env, new String[0]).withHttpPort(0);
    WorkflowServiceStubs nowhere = WorkflowServiceStubs.newServiceStubs(
        WorkflowServiceStubsOptions.newBuilder().setTarget("127.0.0.1:1").build());
    try (WatcherApp watcher = WatcherApp.start(config, client, WorkflowClient.newInstance(nowhere))) {
      long deadline = System.nanoTime() + 20_000_000_000L;
      while (!(watcher.isLeader() && watcher.isReady()) && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertThat(watcher.isLeader()).as("the only watcher takes the Lease").isTrue();
      // Each poll reads the login from the Secret first; status.sites is written once a verdict
      // needs no Temporal call, after failureThreshold polls of each site.
      long polled = System.nanoTime() + 30_000_000_000L;
      while (cluster.group(ORDERS).getStatus().sites() == null && System.nanoTime() < polled) {
        Thread.sleep(50);
      }
      assertThat(cluster.group(ORDERS).getStatus().sites()).as("the monitor's first round of polls")
          .extracting(s -> s.name()).containsExactlyInAnyOrder("iad", "pdx");
      // The informers open their watches right after their lists; give them a moment.
      Thread.sleep(500);
    } finally {
      nowhere.shutdownNow();
    }
    // The monitor's routing pass, which this watcher cannot reach (no Temporal to say that no
    // failover runs): the same calls, made as the watcher's service account.
    MysqlFailoverGroup group = cluster.group(ORDERS);
    // The worker's calls above created the DNSEndpoint; the watcher creates one that is missing too.
    cluster.client().genericKubernetesResources(io.shipstream.failover.kube.DnsRecords.CONTEXT)
        .inNamespace(ORDERS.namespace()).withName(ORDERS.name() + "-primary").delete();
    // Twice: the record is created when missing, then pointed at the other site.
    RoutingRepair routing = new RoutingRepair(client, ref -> Optional.of(group));
    io.shipstream.failover.model.GroupConfig groupConfig =
        io.shipstream.failover.model.GroupConfig.resolve(group.getSpec());
    routing.repair(ORDERS, groupConfig, "iad", Map.of());
    routing.repair(ORDERS, groupConfig, "pdx", Map.of());
    // The drain watch (spec.plannedFailover.onActiveNodeDrain): the active site's pods, each one's
    // node, and the request, sent against a copy without the annotation (then read afresh on 422).
    cluster.createPod("mysql-iad-0", MockCluster.podLabels("iad"), "node-iad-1");
    cluster.cordon("node-iad-1", true);
    KubeDrainView drains = new KubeDrainView(client);
    assertThat(drains.cordonedNodes(ORDERS, groupConfig.site("iad").orElseThrow())).containsExactly("node-iad-1");
    MysqlFailoverGroup seen = cluster.group(ORDERS);
    seen.getMetadata().setAnnotations(null);
    drains.requestPlanned(ORDERS, seen, "pdx");
    // The finalizer's clean-up of a deleted group, which this watcher reached only as far as adding
    // its finalizer (no Temporal to say that no failover runs): the same calls, as its account.
    // The taint the worker's applyTaints set goes, the routing is released from the group, the
    // tombstone is written (then over itself, as after a restart half-way), /active-site reads it,
    // and it goes when a group of that name is created again.
    assertThat(cluster.group(ORDERS).getMetadata().getFinalizers()).as("the leader's finalizer")
        .contains(io.shipstream.failover.model.topology.GroupDeletion.FINALIZER);
    assertThat(new io.shipstream.failover.kube.NodeTaints(client).removeEverywhere(ORDERS)).isNotEmpty();
    assertThat(new io.shipstream.failover.kube.RoutingOrphans(client).release(ORDERS, group.getMetadata().getUid()))
        .isNotEmpty();
    io.shipstream.failover.kube.Tombstones tombstones = new io.shipstream.failover.kube.Tombstones(client);
    tombstones.write(ORDERS, group.getMetadata().getUid(), java.time.Instant.now());
    tombstones.write(ORDERS, group.getMetadata().getUid(), java.time.Instant.now());
    assertThat(tombstones.read(ORDERS)).isPresent();
    assertThat(tombstones.forget(ORDERS)).isTrue();
  }
}
