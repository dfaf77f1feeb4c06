package io.shipstream.failover.testsupport;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.zjsonpatch.JsonPatchException;
import io.fabric8.zjsonpatch.JsonPointerEvaluationException;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.SidecarLiveness;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.regex.Pattern;

/**
 * A fabric8 mock API server in CRUD mode with the {@code MysqlFailoverGroup} CRD registered,
 * plus builders for the objects a failover touches. Copy the approach freely:
 *
 * <pre>{@code
 * try (MockCluster cluster = MockCluster.start()) {
 *   cluster.createGroup("orders",
 *       List.of(MockCluster.site("orders", "iad", "10.0.1.10"), MockCluster.site("orders", "pdx", "10.0.2.10")));
 *   cluster.createPod("mysql-iad-0", MockCluster.podLabels("iad"));
 *   cluster.createNode("node-iad-1", MockCluster.nodeLabels("orders", "iad"));
 *   KubernetesClient client = cluster.client();
 * }
 * }</pre>
 *
 * <p>The CRD (the one the model module generates) is created through the API, exactly as {@code
 * kubectl apply} would, and it declares the status subresource: the mock then keeps writes to
 * the resource from touching the status and writes to {@code /status} from touching anything
 * else, as a real API server does. Without the CRD the mock still serves {@code /status}, but
 * lets a write to the main resource change the status too. The mock does not validate against
 * the schema.
 *
 * <p>Known differences from a real API server that matter here: no server-side apply or
 * strategic merge; a merge patch merges arrays and keeps nulls; set-based and most field
 * selectors are ignored; a JSON patch {@code add} under a missing parent succeeds (a real server
 * answers 422). One difference is corrected, because it would otherwise hide conflict handling:
 * a JSON patch whose {@code test} op fails gets 422, not silence (see
 * {@link RealisticPatchDispatcher}).
 */
public final class MockCluster implements AutoCloseable {
  public static final String NAMESPACE = "shop";
  static final String CRD_RESOURCE = "/META-INF/fabric8/mysqlfailovergroups.shipstream.io-v1.yml";

  // The mock logs every request at INFO through java.util.logging; the reference keeps the level
  // from being lost when the logger is garbage collected.
  private static final java.util.logging.Logger MOCK_LOG =
      java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  static {
    MOCK_LOG.setLevel(Level.WARNING);
  }

  private final KubernetesMockServer server;
  private final KubernetesClient client;
  private final RealisticPatchDispatcher dispatcher;
  private final List<KubernetesClient> extraClients = new CopyOnWriteArrayList<>();

  private MockCluster(KubernetesMockServer server, KubernetesClient client, RealisticPatchDispatcher dispatcher) {
    this.server = server;
    this.client = client;
    this.dispatcher = dispatcher;
  }

  /** Starts a CRUD-mode mock on a free loopback port, with the group CRD in place. */
  public static MockCluster start() {
    RealisticPatchDispatcher dispatcher = new RealisticPatchDispatcher();
    KubernetesMockServer server = new KubernetesMockServer(
        new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
    server.init(InetAddress.getLoopbackAddress(), 0);
    KubernetesClient client = server.createClient();
    client.apiextensions().v1().customResourceDefinitions().resource(groupCrd()).create();
    return new MockCluster(server, client, dispatcher);
  }

  /** Paths of the writes a fault test typically refuses: the group's status subresource. */
  public static Pattern statusPath(GroupRef group) {
    return Pattern.compile(".*/namespaces/" + Pattern.quote(group.namespace()) + "/mysqlfailovergroups/"
        + Pattern.quote(group.name()) + "/status(\\?.*)?");
  }

  /** Every DNSEndpoint in the namespace (create, patch, update). */
  public static Pattern dnsEndpointPath(String namespace) {
    return Pattern.compile(".*/externaldns\\.k8s\\.io/v1alpha1/namespaces/" + Pattern.quote(namespace)
        + "/dnsendpoints.*");
  }

  /**
   * A fault: from now on, for {@code duration}, every write (POST, PUT, PATCH, DELETE) whose path
   * matches {@code path} is answered with {@code code} (503, 500, 429, ...) and a Status body, as
   * an overloaded or failing API server would answer. Reads still work, as they often do while an
   * etcd leader election or an admission webhook outage refuses writes. {@link Refusal#close}
   * ends it early.
   */
  public Refusal refuseWrites(Pattern path, int code, Duration duration) {
    Refusal refusal = new Refusal(path, code, System.nanoTime() + duration.toNanos(), dispatcher.refusals, null);
    dispatcher.refusals.add(refusal);
    return refusal;
  }

  /**
   * As {@link #refuseWrites}, for the next {@code times} matching writes only: a 409 once, say, as
   * when another writer changed the object between a read and its guarded write.
   */
  public Refusal refuseNextWrites(Pattern path, int code, int times) {
    Refusal refusal = new Refusal(path, code, Long.MAX_VALUE, dispatcher.refusals,
        new java.util.concurrent.atomic.AtomicInteger(times));
    dispatcher.refusals.add(refusal);
    return refusal;
  }

  /** A running refusal of writes; counts what it refused. */
  public static final class Refusal implements AutoCloseable {
    private final Pattern path;
    private final int code;
    private final long untilNanos;
    private final List<Refusal> registry;
    private final java.util.concurrent.atomic.AtomicInteger refused = new java.util.concurrent.atomic.AtomicInteger();
    // How many more matching writes are refused; null: all of them until untilNanos.
    private final java.util.concurrent.atomic.AtomicInteger remaining;

    private Refusal(Pattern path, int code, long untilNanos, List<Refusal> registry,
        java.util.concurrent.atomic.AtomicInteger remaining) {
      this.path = path;
      this.code = code;
      this.untilNanos = untilNanos;
      this.registry = registry;
      this.remaining = remaining;
    }

    boolean refuses(RecordedRequest request) {
      if (System.nanoTime() > untilNanos || (remaining != null && remaining.get() <= 0)) {
        registry.remove(this);
        return false;
      }
      boolean matches = !"GET".equals(request.getMethod()) && request.getPath() != null
          && path.matcher(request.getPath()).matches();
      return matches && (remaining == null || remaining.getAndDecrement() > 0);
    }

    /** How many requests were refused so far. */
    public int refused() {
      return refused.get();
    }

    @Override
    public void close() {
      registry.remove(this);
    }
  }

  public KubernetesClient client() {
    return client;
  }

  /** How many requests the API server has answered so far (to show what a call costs). */
  public int requestCount() {
    return server.getRequestCount();
  }

  /**
   * A client for the code under test that lets another writer in at the worst moment: just
   * before its first {@code method} request to a path ending in {@code pathSuffix} leaves, the
   * racing write runs (through the plain client) and completes. This is how a test shows that a
   * guarded read-modify-write neither clobbers the other write nor gives up.
   */
  public KubernetesClient clientRacedBy(String method, String pathSuffix, Consumer<KubernetesClient> racingWrite) {
    AtomicBoolean fired = new AtomicBoolean();
    Interceptor race = new Interceptor() {
      @Override
      public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        if (request.method().equals(method) && request.uri().getPath().endsWith(pathSuffix)
            && fired.compareAndSet(false, true)) {
          racingWrite.accept(client);
        }
      }
    };
    KubernetesClient raced = server.createClient(
        builder -> builder.withHttpClientBuilderConsumer(http -> http.addOrReplaceInterceptor("race", race)));
    extraClients.add(raced);
    return raced;
  }

  /** A site whose pods carry {@code app=mysql,site=<name>} and whose nodes carry the group's site label. */
  public static SiteSpec site(String group, String name, String lbIP) {
    return new SiteSpec(name, SiteSpec.ROLE_PRIMARY_CANDIDATE, "zone-" + name,
        new SiteSpec.Endpoint("mysql-" + name + ".db.internal", 3306),
        podLabels(name), nodeLabels(group, name), lbIP, null, null);
  }

  public static Map<String, String> podLabels(String site) {
    return Map.of("app", "mysql", "site", site);
  }

  /** One label pair per group on each node, as the placement contract asks for shared nodes. */
  public static Map<String, String> nodeLabels(String group, String site) {
    return Map.of("shipstream.io/site-" + group, site);
  }

  public MysqlFailoverGroup createGroup(String name, List<SiteSpec> sites) {
    return createGroup(name, sites, Map.of());
  }

  public MysqlFailoverGroup createGroup(String name, List<SiteSpec> sites, Map<String, String> annotations) {
    MysqlFailoverGroup cr = new MysqlFailoverGroup();
    cr.getMetadata().setName(name);
    cr.getMetadata().setNamespace(NAMESPACE);
    cr.getMetadata().setAnnotations(new HashMap<>(annotations));
    cr.setSpec(new MysqlFailoverGroupSpec(sites, new MysqlFailoverGroupSpec.SecretRef("mysql-credentials"),
        null, null, null, null, null, null, null, new MysqlFailoverGroupSpec.DnsSpec(name + ".db.example.com", 30),
        null, null));
    return client.resources(MysqlFailoverGroup.class).inNamespace(NAMESPACE).resource(cr).create();
  }

  /** Sets the whole status through the status subresource, the only way a real server accepts it. */
  public MysqlFailoverGroup setStatus(GroupRef group, MysqlFailoverGroupStatus status) {
    String patch = client.getKubernetesSerialization().asJson(
        List.of(Map.of("op", "add", "path", "/status", "value", status)));
    return client.resources(MysqlFailoverGroup.class).inNamespace(group.namespace()).withName(group.name())
        .subresource("status").patch(PatchContext.of(PatchType.JSON), patch);
  }

  public MysqlFailoverGroup group(GroupRef group) {
    return client.resources(MysqlFailoverGroup.class).inNamespace(group.namespace()).withName(group.name()).get();
  }

  /**
   * A MySQL pod as the placement contract asks for it: it tolerates every group's read-only taint,
   * so tainting its node never evicts it.
   */
  public Pod createPod(String name, Map<String, String> labels) {
    return createPod(name, labels, true);
  }

  public Pod createPod(String name, Map<String, String> labels, boolean toleratesReadOnlyTaint) {
    PodBuilder builder = new PodBuilder()
        .withNewMetadata().withName(name).withNamespace(NAMESPACE).withLabels(new HashMap<>(labels)).endMetadata()
        .withNewSpec().addNewContainer().withName("mysql").withImage("mariadb:10.11").endContainer()
        .addToContainers(sidecarContainer()).endSpec();
    if (toleratesReadOnlyTaint) {
      builder.editSpec().addNewToleration().withOperator("Exists").withEffect("NoExecute").endToleration().endSpec();
    }
    Pod pod = builder.build();
    return client.pods().inNamespace(NAMESPACE).resource(pod).create();
  }

  /** {@link #createPod(String, Map)} bound to {@code nodeName}, as the scheduler binds it ({@code spec.nodeName}). */
  public Pod createPod(String name, Map<String, String> labels, String nodeName) {
    Pod pod = new PodBuilder()
        .withNewMetadata().withName(name).withNamespace(NAMESPACE).withLabels(new HashMap<>(labels)).endMetadata()
        .withNewSpec().withNodeName(nodeName).addNewContainer().withName("mysql").withImage("mariadb:10.11")
        .endContainer().addToContainers(sidecarContainer())
        .addNewToleration().withOperator("Exists").withEffect("NoExecute").endToleration().endSpec()
        .build();
    return client.pods().inNamespace(NAMESPACE).resource(pod).create();
  }

  /**
   * The failover sidecar next to the server, as the chart README's pod example has it: its port
   * and its startup and liveness probes on {@code /health} with the chart's settings ({@link
   * SidecarLiveness.Probe#CHART}), which the dev stack's kubelet stand-in runs and the failover
   * reads its wait for a hung sidecar from.
   */
  public static Container sidecarContainer() {
    SidecarLiveness.Probe probe = SidecarLiveness.Probe.CHART;
    SidecarLiveness.Probe startup = SidecarLiveness.Probe.CHART_STARTUP;
    return new ContainerBuilder().withName(SidecarLiveness.CONTAINER)
        .withImage("ghcr.io/shipstream/mysql-failover:dev").withArgs("sidecar")
        .addNewPort().withName(SidecarLiveness.PORT_NAME).withContainerPort(SidecarLiveness.DEFAULT_PORT).endPort()
        .withNewLivenessProbe()
        .withNewHttpGet().withPath(SidecarLiveness.HEALTH_PATH).withPort(new IntOrString(SidecarLiveness.PORT_NAME))
        .endHttpGet()
        .withPeriodSeconds((int) probe.period().toSeconds())
        .withTimeoutSeconds((int) probe.timeout().toSeconds())
        .withFailureThreshold(probe.failureThreshold())
        .withTerminationGracePeriodSeconds(probe.terminationGrace().toSeconds())
        .endLivenessProbe()
        .withNewStartupProbe()
        .withNewHttpGet().withPath(SidecarLiveness.HEALTH_PATH).withPort(new IntOrString(SidecarLiveness.PORT_NAME))
        .endHttpGet()
        .withPeriodSeconds((int) startup.period().toSeconds())
        .withTimeoutSeconds((int) startup.timeout().toSeconds())
        .withFailureThreshold(startup.failureThreshold())
        .withTerminationGracePeriodSeconds(startup.terminationGrace().toSeconds())
        .endStartupProbe()
        .build();
  }

  /** {@code kubectl cordon} ({@code true}) or {@code kubectl uncordon}: the node's {@code spec.unschedulable}. */
  public Node cordon(String nodeName, boolean cordoned) {
    String patch = client.getKubernetesSerialization().asJson(Map.of("spec", Map.of("unschedulable", cordoned)));
    return client.nodes().withName(nodeName).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
  }

  public Pod pod(String name) {
    return client.pods().inNamespace(NAMESPACE).withName(name).get();
  }

  public Node createNode(String name, Map<String, String> labels, Taint... taints) {
    Node node = new NodeBuilder()
        .withNewMetadata().withName(name).withLabels(new HashMap<>(labels)).endMetadata()
        .withNewSpec().withTaints(taints).endSpec()
        .build();
    return client.nodes().resource(node).create();
  }

  public Node node(String name) {
    return client.nodes().withName(name).get();
  }

  /**
   * The CRD the model module generates at build time (it is on the classpath with the model
   * classes), so the mock serves exactly the subresources a cluster would.
   */
  public static CustomResourceDefinition groupCrd() {
    try (InputStream yaml = MockCluster.class.getResourceAsStream(CRD_RESOURCE)) {
      if (yaml == null) {
        throw new IllegalStateException(CRD_RESOURCE + " is not on the classpath; build the model module first");
      }
      return new KubernetesSerialization().unmarshal(yaml, CustomResourceDefinition.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    extraClients.forEach(KubernetesClient::close);
    client.close();
    server.destroy();
  }

  /**
   * The stock CRUD dispatcher never answers a JSON patch whose {@code test} op fails or whose
   * path does not exist (the exception escapes and the client times out after ten seconds). A
   * real API server answers 422 Unprocessable Entity; so does this one, so that the conflict
   * handling of the code under test runs here as it would in a cluster.
   */
  static final class RealisticPatchDispatcher extends KubernetesCrudDispatcher {
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    private final List<Refusal> refusals = new CopyOnWriteArrayList<>();

    @Override
    public MockResponse dispatch(RecordedRequest request) {
      for (Refusal refusal : refusals) {
        if (refusal.refuses(request)) {
          refusal.refused.incrementAndGet();
          Status status = new StatusBuilder().withStatus("Failure").withCode(refusal.code)
              .withReason("ServiceUnavailable").withMessage("refused by the test's fault switch").build();
          return new MockResponse().setResponseCode(refusal.code)
              .setHeader("Content-Type", "application/json")
              .setBody(SERIALIZATION.asJson(status));
        }
      }
      return super.dispatch(request);
    }

    @Override
    public MockResponse handlePatch(RecordedRequest request) {
      try {
        return super.handlePatch(request);
      } catch (RuntimeException e) {
        Throwable cause = e;
        while (cause != null && !(cause instanceof JsonPatchException)
            && !(cause instanceof JsonPointerEvaluationException)) {
          cause = cause.getCause();
        }
        if (cause == null) {
          throw e;
        }
        Status status = new StatusBuilder().withStatus("Failure").withCode(422).withReason("Invalid")
            .withMessage("the server rejected our request due to an error in our request: " + cause.getMessage())
            .build();
        return new MockResponse().setResponseCode(422)
            .setHeader("Content-Type", "application/json")
            .setBody(SERIALIZATION.asJson(status));
      }
    }
  }
}
