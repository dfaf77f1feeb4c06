package io.shipstream.failover.watcher.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SemiSyncStatus;
import io.shipstream.failover.testsupport.MockCluster;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code status.semiSync} against the API server: written, then removed when semi-sync was switched
 * off on every site (null), with the rest of the status kept; removing it when it is not there is
 * no request at all.
 */
class KubeEffectsSemiSyncStatusTest {
  private static final GroupRef ORDERS = new GroupRef(MockCluster.NAMESPACE, "orders");
  private final MockCluster cluster = MockCluster.start();
  private final KubeEffects effects = new KubeEffects(cluster.client(), null, null,
      g -> Optional.ofNullable(cluster.group(g)), Clock.systemUTC());

  @AfterEach
  void close() {
    cluster.close();
  }

  @Test
  void nullRemovesTheStatusAndKeepsTheRest() {
    cluster.createGroup(ORDERS.name(), List.of(MockCluster.site("orders", "iad", "10.0.0.1"),
        MockCluster.site("orders", "pdx", "10.0.0.2")));
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
