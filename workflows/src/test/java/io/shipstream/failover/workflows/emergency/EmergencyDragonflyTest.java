package io.shipstream.failover.workflows.emergency;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.DragonflySpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.workflows.EmergencyFailoverWorkflow;
import io.shipstream.failover.workflows.fakes.FakeDragonfly;
import io.shipstream.failover.workflows.fakes.FakeKubernetes;
import io.shipstream.failover.workflows.fakes.FakeMysql;
import io.shipstream.failover.workflows.fakes.RealTimeTestServer;
import io.shipstream.failover.workflows.fakes.WorkflowWaits;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.WorkflowReplayer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The session store in an emergency failover: its master died with iad, so the freshest
 * reachable replica is promoted on its own along with MySQL, and a store that cannot be promoted
 * costs a warning, never the failover.
 */
class EmergencyDragonflyTest {
  RealTimeTestServer server;
  WorkflowClient client;
  FakeMysql mysql = new FakeMysql();
  FakeKubernetes k8s = new FakeKubernetes();
  FakeDragonfly stores = new FakeDragonfly();

  @BeforeEach
  void setUp() {
    server = new RealTimeTestServer(new Class<?>[] {EmergencyFailoverWorkflowImpl.class}, mysql, k8s, stores);
    client = server.client;
    k8s.spec = new MysqlFailoverGroupSpec(List.of(site("iad", "primary-candidate", true),
        site("pdx", "primary-candidate", true), site("dr", "dr-only", true)),
        new MysqlFailoverGroupSpec.SecretRef("orders-mysql"), null, null, null, null, null, null, null,
        new MysqlFailoverGroupSpec.DnsSpec("orders-db.example.com", 30), null, new DragonflySpec(true, "redis", null));
    k8s.status = MysqlFailoverGroupStatus.empty().withActiveSite("iad");
    mysql.add("iad", true, 100).reachable = false;
    mysql.add("pdx", false, 100);
    mysql.add("dr", false, 95);
    stores.flavor = "redis";
    stores.add("iad", null, 5000).reachable = false;
    stores.add("pdx", "iad", 4900);
    stores.add("dr", "iad", 4800);
  }

  @AfterEach
  void tearDown() {
    server.close();
  }

  static SiteSpec site(String name, String role, boolean store) {
    return new SiteSpec(name, role, name + "-a", new SiteSpec.Endpoint(name + ".db", 3306), Map.of("site", name),
        Map.of("topology.kubernetes.io/zone", name), "10.0.0." + name.length(), null,
        store ? new SiteSpec.Endpoint(name + ".store", 6379) : null);
  }

  EmergencyFailoverStatus run() {
    EmergencyFailoverWorkflow wf = client.newWorkflowStub(EmergencyFailoverWorkflow.class, EmergencyRig.options());
    WorkflowClient.start(wf::run, EmergencyRig.request("pdx", "0-1-100"));
    return WorkflowWaits.result(client, EmergencyRig.GROUP.workflowId(), WorkflowStub.fromTyped(wf),
        EmergencyFailoverStatus.class);
  }

  @Test
  void theFreshestStoreReplicaIsPromotedAlongWithMysql() throws Exception {
    EmergencyFailoverStatus result = run();

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(mysql.server("pdx").readOnly).isFalse();
    assertThat(stores.store("pdx").role).isEqualTo("master");
    assertThat(stores.calls).contains("promoteAlone pdx", "replicate dr from pdx");
    assertThat(k8s.storeRoles).containsEntry("pdx", "master").containsEntry("dr", "replica");
    assertThat(k8s.activeStores()).containsExactly("pdx");
    assertThat(k8s.eventReasons()).contains("DragonflyPromotionCompleted");
    WorkflowExecutionHistory history = client.fetchHistory(EmergencyRig.GROUP.workflowId());
    WorkflowReplayer.replayWorkflowExecution(history, EmergencyFailoverWorkflowImpl.class);
  }

  @Test
  void aStoreThatCannotBePromotedIsAWarningNotAFailure() {
    stores.store("pdx").reachable = false;
    stores.store("dr").reachable = false;

    EmergencyFailoverStatus result = run();

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(mysql.server("pdx").readOnly).isFalse();
    assertThat(k8s.events).anySatisfy(e -> {
      assertThat(e.type()).isEqualTo("Warning");
      assertThat(e.reason()).isEqualTo("DragonflyPromotionFailed");
    });
  }
}
