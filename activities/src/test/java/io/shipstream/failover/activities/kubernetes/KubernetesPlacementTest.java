package io.shipstream.failover.activities.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.shipstream.failover.kube.DnsRecords;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.testsupport.MockCluster;
import io.temporal.failure.ApplicationFailure;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Where the writes go and where the applications may run: pod labels, Service, DNS, taints. */
class KubernetesPlacementTest {
  private static final GroupRef ORDERS = new GroupRef(MockCluster.NAMESPACE, "orders");
  private static final String TAINT_KEY = "shipstream.io/db-readonly-orders";
  private static final SiteSpec IAD = MockCluster.site("orders", "iad", "10.0.1.10");
  private static final SiteSpec PDX = MockCluster.site("orders", "pdx", "10.0.2.10");
  private static final Taint UNREACHABLE = new TaintBuilder().withKey("node.kubernetes.io/unreachable")
      .withEffect("NoExecute").withTimeAdded("2025-03-01T11:00:00Z").build();
  private static final Taint GPU = new TaintBuilder().withKey("gpu").withValue("true").withEffect("NoSchedule").build();

  private MockCluster cluster;
  private KubernetesActivitiesImpl activities;

  @BeforeEach
  void start() {
    cluster = MockCluster.start();
    activities = new KubernetesActivitiesImpl(cluster.client(),
        Clock.fixed(Instant.parse("2025-03-01T12:00:00Z"), ZoneOffset.UTC));
    cluster.createGroup("orders", List.of(IAD, PDX));
    cluster.createPod("mysql-iad-0", MockCluster.podLabels("iad"));
    cluster.createPod("mysql-iad-1", MockCluster.podLabels("iad"));
    cluster.createPod("mysql-pdx-0", MockCluster.podLabels("pdx"));
    cluster.createPod("web-0", Map.of("app", "web", "site", "iad"));
    cluster.createNode("node-iad-1", MockCluster.nodeLabels("orders", "iad"));
    cluster.createNode("node-iad-2", MockCluster.nodeLabels("orders", "iad"), GPU);
    cluster.createNode("node-pdx-1", MockCluster.nodeLabels("orders", "pdx"), UNREACHABLE);
    cluster.createNode("node-other", Map.of("shipstream.io/site-inventory", "pdx"));
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  @Test
  void setSiteRoleLabelsExactlyTheSitesPodsAndCreatesThePrimaryService() {
    activities.setSiteRole(ORDERS, PDX, "primary");
    activities.setSiteRole(ORDERS, IAD, "replica");

    assertThat(cluster.pod("mysql-pdx-0").getMetadata().getLabels())
        .containsEntry("shipstream.io/role", "primary").containsEntry("shipstream.io/group", "orders")
        .containsEntry("site", "pdx");
    assertThat(cluster.pod("mysql-iad-0").getMetadata().getLabels()).containsEntry("shipstream.io/role", "replica");
    assertThat(cluster.pod("mysql-iad-1").getMetadata().getLabels()).containsEntry("shipstream.io/role", "replica");
    assertThat(cluster.pod("web-0").getMetadata().getLabels()).doesNotContainKey("shipstream.io/role");

    Service service =
        cluster.client().services().inNamespace(ORDERS.namespace()).withName("mysql-orders-primary").get();
    assertThat(service.getSpec().getSelector())
        .containsExactlyInAnyOrderEntriesOf(Map.of("shipstream.io/role", "primary", "shipstream.io/group", "orders"));
    assertThat(service.getSpec().getPorts()).singleElement().satisfies(p -> {
      assertThat(p.getPort()).isEqualTo(3306);
      assertThat(p.getTargetPort().getIntVal()).isEqualTo(3306);
    });
    assertThat(service.getMetadata().getOwnerReferences()).singleElement()
        .satisfies(o -> assertThat(o.getUid()).isEqualTo(cluster.group(ORDERS).getMetadata().getUid()));
  }

  @Test
  void movingThePrimaryRelabelsAndLeavesAnExistingServiceAsTheAdminTunedIt() {
    Service tuned = new ServiceBuilder()
        .withNewMetadata().withName("mysql-orders-primary").withNamespace(ORDERS.namespace())
        .addToAnnotations("service.beta.kubernetes.io/aws-load-balancer-internal", "true").endMetadata()
        .withNewSpec().addToSelector("shipstream.io/role", "primary").addToSelector("shipstream.io/group", "orders")
        .addNewPort().withName("mysql").withPort(3306).endPort().endSpec()
        .build();
    cluster.client().services().inNamespace(ORDERS.namespace()).resource(tuned).create();
    activities.setSiteRole(ORDERS, IAD, "primary");
    String podVersion = cluster.pod("mysql-iad-0").getMetadata().getResourceVersion();

    activities.setSiteRole(ORDERS, IAD, "primary");
    assertThat(cluster.pod("mysql-iad-0").getMetadata().getResourceVersion())
        .as("labels already right: no write").isEqualTo(podVersion);

    activities.setSiteRole(ORDERS, IAD, "replica");
    activities.setSiteRole(ORDERS, PDX, "primary");
    assertThat(cluster.pod("mysql-iad-0").getMetadata().getLabels()).containsEntry("shipstream.io/role", "replica");
    assertThat(cluster.pod("mysql-pdx-0").getMetadata().getLabels()).containsEntry("shipstream.io/role", "primary");
    assertThat(cluster.client().services().inNamespace(ORDERS.namespace()).withName("mysql-orders-primary").get()
        .getMetadata().getAnnotations()).containsKey("service.beta.kubernetes.io/aws-load-balancer-internal");
  }

  @Test
  void aSiteWithoutPodSelectorChangesNothing() {
    SiteSpec bare = new SiteSpec("dr", SiteSpec.ROLE_DR_ONLY, null, IAD.mysql(), null, Map.of("x", "y"),
        null, null, null);

    activities.setSiteRole(ORDERS, bare, "primary");

    assertThat(cluster.client().pods().inNamespace(ORDERS.namespace()).list().getItems())
        .allSatisfy(p -> assertThat(p.getMetadata().getLabels()).doesNotContainKey("shipstream.io/role"));
    assertThat(cluster.client().services().inNamespace(ORDERS.namespace()).list().getItems()).isEmpty();
  }

  @Test
  void updateDnsCreatesThenRepointsTheDnsEndpoint() {
    activities.updateDns(ORDERS, "orders.db.example.com", "10.0.1.10", 30);
    assertThat(endpoints()).containsExactly(
        Map.of("dnsName", "orders.db.example.com", "recordType", "A", "targets", List.of("10.0.1.10"), "recordTTL",
            30));

    activities.updateDns(ORDERS, "orders.db.example.com", "10.0.2.10", 30);
    assertThat(endpoints()).containsExactly(
        Map.of("dnsName", "orders.db.example.com", "recordType", "A", "targets", List.of("10.0.2.10"), "recordTTL",
            30));

    String version = dnsEndpoint().getMetadata().getResourceVersion();
    activities.updateDns(ORDERS, "orders.db.example.com", "10.0.2.10", 30);
    assertThat(dnsEndpoint().getMetadata().getResourceVersion()).as("unchanged: no write").isEqualTo(version);
    assertThat(dnsEndpoint().getApiVersion()).isEqualTo("externaldns.k8s.io/v1alpha1");
  }

  @Test
  void updateDnsWithoutHostnameOrIpDoesNothing() {
    activities.updateDns(ORDERS, null, "10.0.1.10", 60);
    activities.updateDns(ORDERS, "orders.db.example.com", null, 60);

    assertThat(dnsEndpoint()).isNull();
  }

  @Test
  void applyTaintsTaintsEveryNodeButTheActiveSitesAndKeepsOtherTaints() {
    activities.applyTaints(ORDERS, List.of(IAD, PDX), "iad");

    assertThat(taints("node-pdx-1")).containsExactlyInAnyOrder(UNREACHABLE, ours());
    assertThat(taints("node-iad-1")).isEmpty();
    assertThat(taints("node-iad-2")).containsExactly(GPU);
    assertThat(taints("node-other")).isEmpty();
  }

  @Test
  void applyTaintsIsIdempotentAndMovesWithTheActiveSite() {
    activities.applyTaints(ORDERS, List.of(IAD, PDX), "iad");
    Map<String, String> versions = versions();

    activities.applyTaints(ORDERS, List.of(IAD, PDX), "iad");
    assertThat(versions()).as("nothing to change: no write").isEqualTo(versions);
    assertThat(taints("node-pdx-1")).containsOnlyOnce(ours());

    activities.applyTaints(ORDERS, List.of(IAD, PDX), "pdx");
    assertThat(taints("node-pdx-1")).containsExactly(UNREACHABLE);
    assertThat(taints("node-iad-1")).containsExactly(ours());
    assertThat(taints("node-iad-2")).containsExactlyInAnyOrder(GPU, ours());
    assertThat(taints("node-other")).isEmpty();
  }

  @Test
  void applyTaintsRepairsDuplicatesAndKeepsTheSameKeyWithAnotherEffect() {
    Taint noSchedule = new TaintBuilder().withKey(TAINT_KEY).withValue("true").withEffect("NoSchedule").build();
    Taint wrongValue = new TaintBuilder().withKey(TAINT_KEY).withValue("false").withEffect("NoExecute").build();
    cluster.createNode("node-pdx-2", MockCluster.nodeLabels("orders", "pdx"), noSchedule, ours(), ours(), wrongValue);

    activities.applyTaints(ORDERS, List.of(IAD, PDX), "iad");

    assertThat(taints("node-pdx-2")).containsExactly(noSchedule, ours());
  }

  @Test
  void aTaintAddedConcurrentlyByTheNodeControllerSurvives() {
    Taint notReady = new TaintBuilder().withKey("node.kubernetes.io/not-ready").withEffect("NoExecute").build();
    var raced = new KubernetesActivitiesImpl(cluster.clientRacedBy("PATCH", "/nodes/node-pdx-1",
        c -> c.nodes().withName("node-pdx-1").patch(PatchContext.of(PatchType.JSON),
            "[{\"op\":\"add\",\"path\":\"/spec/taints/-\",\"value\":{\"key\":\"node.kubernetes.io/not-ready\","
                + "\"effect\":\"NoExecute\"}}]")),
        Clock.systemUTC());

    raced.applyTaints(ORDERS, List.of(IAD, PDX), "iad");

    assertThat(taints("node-pdx-1")).containsExactlyInAnyOrder(UNREACHABLE, notReady, ours());
  }

  @Test
  void aNodeSelectedByTheActiveSiteIsNeverTainted() {
    Map<String, String> both = new HashMap<>(MockCluster.nodeLabels("orders", "iad"));
    both.put("pool", "shared");
    cluster.createNode("node-shared", both);
    SiteSpec pdxWithShared = new SiteSpec("pdx", null, null, PDX.mysql(), PDX.podSelector(), Map.of("pool", "shared"),
        PDX.lbIP(), null, null);

    activities.applyTaints(ORDERS, List.of(IAD, pdxWithShared), "iad");

    assertThat(taints("node-shared")).isEmpty();
  }

  /**
   * A switchover to iad right after which pdx's MySQL pod (the demoted old primary) would be
   * evicted by the taint: no node is tainted, the active site's taint still goes, and the pod is
   * named in a RoutingIncomplete Warning (the watcher's rule, {@code NodeTaints}).
   */
  @Test
  void applyTaintsTaintsNoNodeWhileOneOfTheGroupsOwnPodsWouldNotTolerateIt() {
    activities.applyTaints(ORDERS, List.of(IAD, PDX), "pdx");
    assertThat(taints("node-iad-1")).containsExactly(ours());
    cluster.client().pods().inNamespace(MockCluster.NAMESPACE).withName("mysql-pdx-0").delete();
    cluster.createPod("mysql-pdx-0", MockCluster.podLabels("pdx"), false);

    activities.applyTaints(ORDERS, List.of(IAD, PDX), "iad");

    assertThat(taints("node-pdx-1")).as("would evict mysql-pdx-0").containsExactly(UNREACHABLE);
    assertThat(taints("node-iad-1")).as("the active site's taint goes all the same").isEmpty();
    assertThat(taints("node-iad-2")).containsExactly(GPU);
    assertThat(cluster.client().v1().events().inNamespace(MockCluster.NAMESPACE).list().getItems())
        .filteredOn(e -> "RoutingIncomplete".equals(e.getReason())).singleElement()
        .satisfies(e -> assertThat(e.getMessage()).contains("mysql-pdx-0").contains("do not tolerate"));
  }

  @Test
  void anUnknownActiveSiteTaintsNothing() {
    assertThatThrownBy(() -> activities.applyTaints(ORDERS, List.of(IAD, PDX), "sfo"))
        .isInstanceOfSatisfying(ApplicationFailure.class, f -> {
          assertThat(f.getType()).isEqualTo("UnknownSite");
          assertThat(f.isNonRetryable()).isTrue();
        });
    assertThat(taints("node-iad-1")).isEmpty();
    assertThat(taints("node-pdx-1")).containsExactly(UNREACHABLE);
  }

  private static Taint ours() {
    return new TaintBuilder().withKey(TAINT_KEY).withValue("true").withEffect("NoExecute").build();
  }

  private List<Taint> taints(String node) {
    Node n = cluster.node(node);
    return n.getSpec() == null || n.getSpec().getTaints() == null ? List.of() : n.getSpec().getTaints();
  }

  private Map<String, String> versions() {
    Map<String, String> versions = new HashMap<>();
    cluster.client().nodes().list().getItems()
        .forEach(n -> versions.put(n.getMetadata().getName(), n.getMetadata().getResourceVersion()));
    return versions;
  }

  private GenericKubernetesResource dnsEndpoint() {
    return cluster.client().genericKubernetesResources(DnsRecords.CONTEXT)
        .inNamespace(ORDERS.namespace()).withName("orders-primary").get();
  }

  @SuppressWarnings("unchecked")
  private List<Map<String, Object>> endpoints() {
    Map<String, Object> spec = (Map<String, Object>) dnsEndpoint().getAdditionalProperties().get("spec");
    return (List<Map<String, Object>>) spec.get("endpoints");
  }
}
