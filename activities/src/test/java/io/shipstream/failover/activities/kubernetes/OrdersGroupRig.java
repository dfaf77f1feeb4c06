package io.shipstream.failover.activities.kubernetes;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.testsupport.MockCluster;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The mock API server holding the group {@code orders} (sites iad and pdx, no status), and the
 * Kubernetes activities over it with the clock stopped at {@link #NOW}. Registered as an
 * extension, it closes the server after each test.
 */
final class OrdersGroupRig implements AfterEachCallback {
  static final Instant NOW = Instant.parse("2025-03-01T12:00:00Z");
  static final GroupRef ORDERS = new GroupRef(MockCluster.NAMESPACE, "orders");

  final MockCluster cluster = MockCluster.start();
  final KubernetesActivitiesImpl activities =
      new KubernetesActivitiesImpl(cluster.client(), Clock.fixed(NOW, ZoneOffset.UTC));

  /** The group with these annotations. */
  OrdersGroupRig(Map<String, String> annotations) {
    cluster.createGroup(ORDERS.name(), List.of(
        MockCluster.site("orders", "iad", "10.0.1.10"), MockCluster.site("orders", "pdx", "10.0.2.10")), annotations);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    cluster.close();
  }
}
