package io.shipstream.failover.activities.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Service;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.testsupport.MockCluster;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The session store's role and traffic labels and its active Service, on the mock API server. */
class StoreRolesTest {
  private static final GroupRef ORDERS = new GroupRef(MockCluster.NAMESPACE, "orders");
  private static final SiteSpec IAD = MockCluster.site("orders", "iad", "10.0.1.10");
  private static final SiteSpec PDX = MockCluster.site("orders", "pdx", "10.0.2.10");

  private MockCluster cluster;
  private KubernetesActivitiesImpl activities;

  @BeforeEach
  void start() {
    cluster = MockCluster.start();
    cluster.createGroup("orders", java.util.List.of(IAD, PDX));
    cluster.createPod("mysql-iad-0", MockCluster.podLabels("iad"));
    cluster.createPod("dragonfly-iad-0", storeLabels("orders", "iad"));
    cluster.createPod("dragonfly-pdx-0", storeLabels("orders", "pdx"));
    cluster.createPod("dragonfly-other-pdx-0", storeLabels("invoices", "pdx"));
    activities = new KubernetesActivitiesImpl(cluster.client(), Clock.systemUTC());
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  static Map<String, String> storeLabels(String group, String site) {
    Map<String, String> labels = new HashMap<>();
    labels.put("app", "dragonfly");
    labels.put("shipstream.io/group", group);
    labels.put("shipstream.io/store-site", site);
    return labels;
  }

  @Test
  void movingTheMasterRelabelsOnlyThisGroupsStorePodsAndCreatesTheActiveService() {
    activities.setStoreRole(ORDERS, IAD, "master", true);
    activities.setStoreRole(ORDERS, PDX, "replica", false);
    // The hand-over: the source leaves the Service first, keeping its role, then the roles swap.
    activities.setStoreRole(ORDERS, IAD, null, false);
    assertThat(labels("dragonfly-iad-0")).containsEntry("shipstream.io/store-role", "master")
        .containsEntry("shipstream.io/traffic", "standby");
    activities.setStoreRole(ORDERS, PDX, "master", true);
    activities.setStoreRole(ORDERS, IAD, "replica", false);

    assertThat(labels("dragonfly-pdx-0")).containsEntry("shipstream.io/store-role", "master")
        .containsEntry("shipstream.io/traffic", "active");
    assertThat(labels("dragonfly-iad-0")).containsEntry("shipstream.io/store-role", "replica")
        .containsEntry("shipstream.io/traffic", "standby");
    assertThat(labels("dragonfly-other-pdx-0")).as("another group's store").doesNotContainKey("shipstream.io/traffic");
    assertThat(labels("mysql-iad-0")).as("MySQL pods are not store pods").doesNotContainKey("shipstream.io/traffic");
    Service service = cluster.client().services().inNamespace(MockCluster.NAMESPACE)
        .withName("dragonfly-orders-active").get();
    assertThat(service.getSpec().getSelector()).containsExactlyInAnyOrderEntriesOf(
        Map.of("shipstream.io/traffic", "active", "shipstream.io/group", "orders"));
    assertThat(service.getSpec().getPorts().get(0).getPort()).isEqualTo(6379);
  }

  @Test
  void aSiteWithoutStorePodsChangesNoPod() {
    SiteSpec dr = MockCluster.site("orders", "dr", "10.0.3.10");
    activities.setStoreRole(ORDERS, dr, "master", true);
    assertThat(labels("dragonfly-iad-0")).doesNotContainKey("shipstream.io/traffic");
    assertThat(labels("dragonfly-pdx-0")).doesNotContainKey("shipstream.io/traffic");
  }

  private Map<String, String> labels(String pod) {
    return cluster.pod(pod).getMetadata().getLabels();
  }
}
