package io.shipstream.failover.watcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.shipstream.failover.kube.DnsRecords;
import io.shipstream.failover.kube.NodeTaints;
import io.shipstream.failover.kube.Owners;
import io.shipstream.failover.kube.SiteRoles;
import io.shipstream.failover.kube.Tombstones;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.topology.GroupDeletion;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.testsupport.MockCluster;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The finalizer against the mock API server and an in-process Temporal with no failover running:
 * the group gets it, and its deletion removes the taint from the nodes, leaves the routing in place
 * without the group as owner, writes the tombstone /active-site then answers with, and lets the
 * group go, also when the watcher was down when the deletion was asked for.
 */
class GroupFinalizerTest {
  private static final String TOKEN = "sidecar-token-9d1e";
  private static final GroupRef ORDERS = new GroupRef(MockCluster.NAMESPACE, "orders");

  @RegisterExtension
  final WatcherRig rig = new WatcherRig();
  private final MockCluster cluster = rig.cluster;

  @Test
  void deletingTheGroupRemovesItsTaintsKeepsItsRoutingAndLeavesATombstone() throws Exception {
    MysqlFailoverGroup group = routedGroup();
    WatcherApp app = rig.start(config());
    awaitFinalizer();

    cluster.client().resources(MysqlFailoverGroup.class).inNamespace(ORDERS.namespace()).withName(ORDERS.name())
        .delete();
    Http.await("the group deleted", Duration.ofSeconds(15), () -> cluster.group(ORDERS) == null);

    assertDeletedAsPromised(group);
    String path = "/active-site?namespace=" + ORDERS.namespace() + "&group=" + ORDERS.name();
    Http.await("the watcher's cache without the group", Duration.ofSeconds(10), () -> {
      try {
        return Http.get(app.httpPort(), path, "Authorization", "Bearer " + TOKEN).statusCode() != 503;
      } catch (Exception e) {
        return false;
      }
    });
    HttpResponse<String> answer = Http.get(app.httpPort(), path, "Authorization", "Bearer " + TOKEN);
    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.body()).contains("\"groupDeleted\":true").contains("\"activeSite\":null");
  }

  @Test
  void aWatcherDownWhenTheGroupWasDeletedFinalizesItWhenItStarts() throws Exception {
    MysqlFailoverGroup group = routedGroup();
    WatcherApp first = rig.start(config());
    awaitFinalizer();
    first.close();
    // Half done before: the tombstone of this very deletion is already there.
    new Tombstones(cluster.client()).write(ORDERS, group.getMetadata().getUid(), Instant.now());

    cluster.client().resources(MysqlFailoverGroup.class).inNamespace(ORDERS.namespace()).withName(ORDERS.name())
        .delete();
    Thread.sleep(500);
    assertThat(cluster.group(ORDERS)).as("held by the finalizer while no watcher runs").isNotNull();
    assertThat(cluster.group(ORDERS).getMetadata().getDeletionTimestamp()).isNotNull();

    rig.start(config());
    Http.await("the group deleted", Duration.ofSeconds(30), () -> cluster.group(ORDERS) == null);
    assertDeletedAsPromised(group);
  }

  @Test
  void aGroupCreatedAgainUnderTheSameNameIsNotSpokenForByTheOldTombstone() throws Exception {
    new Tombstones(cluster.client()).write(ORDERS, "an-earlier-uid", Instant.parse("2025-03-01T10:00:00Z"));
    routedGroup();
    rig.start(config());
    awaitFinalizer();

    Http.await("the old tombstone removed", Duration.ofSeconds(10),
        () -> new Tombstones(cluster.client()).read(ORDERS).isEmpty());
  }

  private void assertDeletedAsPromised(MysqlFailoverGroup group) {
    String key = NodeTaints.taintKey(ORDERS);
    for (String node : List.of("node-iad-1", "node-pdx-1", "node-moved-1")) {
      assertThat(cluster.node(node).getSpec().getTaints()).as("taints of %s", node)
          .noneMatch(t -> key.equals(t.getKey()));
    }
    assertThat(cluster.node("node-moved-1").getSpec().getTaints()).as("someone else's taint stays")
        .anyMatch(t -> "dedicated".equals(t.getKey()));
    Service primary = cluster.client().services().inNamespace(ORDERS.namespace())
        .withName(SiteRoles.serviceName(ORDERS)).get();
    assertThat(primary).as("the primary Service stays").isNotNull();
    assertThat(primary.getMetadata().getOwnerReferences()).as("without the group as owner").isNullOrEmpty();
    GenericKubernetesResource record = cluster.client().genericKubernetesResources(DnsRecords.CONTEXT)
        .inNamespace(ORDERS.namespace()).withName(DnsRecords.endpointName(ORDERS)).get();
    assertThat(record).as("the DNSEndpoint stays").isNotNull();
    assertThat(record.getMetadata().getOwnerReferences()).extracting(OwnerReference::getKind)
        .as("another owner of it stays, the group's goes").containsExactly("ConfigMap");
    Tombstones.Tombstone tombstone = new Tombstones(cluster.client()).read(ORDERS).orElseThrow();
    assertThat(tombstone.uid()).isEqualTo(group.getMetadata().getUid());
    assertThat(cluster.client().v1().events().inNamespace(ORDERS.namespace()).list().getItems())
        .anyMatch(e -> "GroupFinalized".equals(e.getReason()) && e.getMessage().contains("node-moved-1"));
  }

  /**
   * The group with its routing as a failover leaves it: pdx's node tainted, a node tainted while a
   * site's selector named it (edited since), the primary Service and the DNSEndpoint owned by it.
   */
  private MysqlFailoverGroup routedGroup() {
    MysqlFailoverGroup group =
        cluster.createGroup(ORDERS.name(), List.of(MockCluster.site("orders", "iad", "10.0.1.10"),
            MockCluster.site("orders", "pdx", "10.0.2.10")));
    cluster.setStatus(ORDERS, MysqlFailoverGroupStatus.empty().withActiveSite("iad"));
    var ours = new TaintBuilder().withKey(NodeTaints.taintKey(ORDERS)).withValue(NodeTaints.VALUE)
        .withEffect(NodeTaints.EFFECT).build();
    cluster.createNode("node-iad-1", MockCluster.nodeLabels("orders", "iad"));
    cluster.createNode("node-pdx-1", MockCluster.nodeLabels("orders", "pdx"), ours);
    cluster.createNode("node-moved-1", Map.of(), ours,
        new TaintBuilder().withKey("dedicated").withValue("db").withEffect("NoSchedule").build());
    OwnerReference owner = Owners.reference(group);
    cluster.client().services().inNamespace(ORDERS.namespace()).resource(new ServiceBuilder().withNewMetadata()
        .withName(SiteRoles.serviceName(ORDERS)).addToLabels(SiteRoles.GROUP_LABEL, ORDERS.name())
        .withOwnerReferences(owner).endMetadata().withNewSpec().addToSelector(SiteRoles.ROLE_LABEL, "primary")
        .endSpec().build()).create();
    OwnerReference other = new OwnerReferenceBuilder().withApiVersion("v1").withKind("ConfigMap").withName("keep")
        .withUid("uid-keep").build();
    cluster.client().genericKubernetesResources(DnsRecords.CONTEXT).inNamespace(ORDERS.namespace()).resource(
        new GenericKubernetesResourceBuilder().withApiVersion(DnsRecords.API_VERSION).withKind(DnsRecords.KIND)
            .withNewMetadata().withName(DnsRecords.endpointName(ORDERS)).withNamespace(ORDERS.namespace())
            .addToLabels(SiteRoles.GROUP_LABEL, ORDERS.name()).withOwnerReferences(owner, other).endMetadata()
            .addToAdditionalProperties("spec", Map.of("endpoints", List.of())).build())
        .create();
    return cluster.group(ORDERS);
  }

  private void awaitFinalizer() throws InterruptedException {
    Http.await("the finalizer added", Duration.ofSeconds(10),
        () -> GroupDeletion.hasFinalizer(cluster.group(ORDERS)));
  }

  private static WatcherConfig config() {
    return WatcherConfig.defaults().withTopologyMonitor(false).withHttpHost("127.0.0.1").withHttpPort(0)
        .withActiveSiteToken(SharedToken.of(TOKEN))
        .withLeaderElection(WatcherConfig.defaults().leaderElection().withIdentity("watcher-0")
            .withTimings(Duration.ofSeconds(2), Duration.ofMillis(1500), Duration.ofMillis(200)));
  }
}
