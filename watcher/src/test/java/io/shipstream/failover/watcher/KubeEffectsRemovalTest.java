package io.shipstream.failover.watcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SemiSyncStatus;
import io.shipstream.failover.model.topology.PromoteAnywayAnnotation;
import io.shipstream.failover.testsupport.MockCluster;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the watcher removes from the resource, against the mock API server: the promote-anyway
 * request once spent (removed when it still holds the value acted on, left alone when the user
 * changed it meanwhile), and {@code status.semiSync} once semi-sync is off on every site (the rest
 * of the status kept; no request when it is not there).
 */
class KubeEffectsRemovalTest {
  private static final GroupRef ORDERS = new GroupRef(MockCluster.NAMESPACE, "orders");
  private static final String KEY = PromoteAnywayAnnotation.ANNOTATION;
  private final MockCluster cluster = MockCluster.start();
  private final KubeEffects effects = new KubeEffects(cluster.client(), null, null,
      g -> Optional.ofNullable(cluster.group(g)), Clock.systemUTC());

  @AfterEach
  void close() {
    cluster.close();
  }

  private void createWith(String value) {
    cluster.createGroup(ORDERS.name(), List.of(MockCluster.site("orders", "iad", "10.0.0.1"),
        MockCluster.site("orders", "pdx", "10.0.0.2")), Map.of(KEY, value, "other", "kept"));
  }

  @Test
  void theRequestActedOnIsRemovedAndNothingElse() {
    createWith("pdx");

    effects.removeAnnotation(ORDERS, KEY, "pdx");

    assertThat(cluster.group(ORDERS).getMetadata().getAnnotations()).doesNotContainKey(KEY).containsEntry("other",
        "kept");
  }

  @Test
  void aValueChangedMeanwhileIsTheUsersAndStays() {
    createWith("iad");

    effects.removeAnnotation(ORDERS, KEY, "pdx");

    assertThat(cluster.group(ORDERS).getMetadata().getAnnotations()).containsEntry(KEY, "iad");
  }

  @Test
  void semiSyncStatusNullRemovesItAndKeepsTheRest() {
    createWith("pdx");
    cluster.setStatus(ORDERS, MysqlFailoverGroupStatus.empty().withActiveSite("pdx"));
    SemiSyncStatus on = new SemiSyncStatus("pdx", "required", true, 1, 1, false, "every commit waits");

    effects.writeSemiSync(ORDERS, on);
    assertThat(cluster.group(ORDERS).getStatus().semiSync()).isEqualTo(on);

    effects.writeSemiSync(ORDERS, null);
    MysqlFailoverGroupStatus after = cluster.group(ORDERS).getStatus();
    assertThat(after.semiSync()).isNull();
    assertThat(after.activeSite()).isEqualTo("pdx");

    effects.writeSemiSync(ORDERS, null);
    assertThat(cluster.group(ORDERS).getStatus().activeSite()).as("nothing to remove: left as it is").isEqualTo("pdx");
  }
}
