package io.shipstream.failover.workflows.fakes;

import io.shipstream.failover.model.crd.SiteSpec;
import io.temporal.client.WorkflowClient;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.Map;

/**
 * What a planned and an emergency workflow rig have alike: the MySQL and Kubernetes fakes, the
 * real-time test server with the rig's workflows and fakes registered, and the sites' shape.
 */
public abstract class FailoverRig implements AutoCloseable {
  public final FakeMysql mysql = new FakeMysql();
  public final FakeKubernetes k8s = new FakeKubernetes();
  public final FakeHooks hooks = new FakeHooks();
  public final RealTimeTestServer server;
  public final TestWorkflowEnvironment env;
  public final WorkflowClient client;
  public final MetricsCapture metrics;

  /** {@code extraFake}: the activities the kind adds to the MySQL and Kubernetes fakes. */
  protected FailoverRig(Class<?>[] workflows, Object extraFake) {
    this(false, workflows, extraFake);
  }

  /** As above; {@code timeSkipping} as {@link RealTimeTestServer#RealTimeTestServer(boolean, Class[], Object...)}. */
  protected FailoverRig(boolean timeSkipping, Class<?>[] workflows, Object extraFake) {
    server = new RealTimeTestServer(timeSkipping, workflows, mysql, k8s, extraFake, hooks);
    env = server.env;
    client = server.client;
    metrics = server.metrics;
  }

  /** A site of the test group: endpoint {@code <name>.db:3306}, zone {@code <name>-a}. */
  public static SiteSpec site(String name, String role) {
    return new SiteSpec(name, role, name + "-a", new SiteSpec.Endpoint(name + ".db", 3306),
        Map.of("site", name), Map.of("topology.kubernetes.io/zone", name), "10.0.0." + name.length(), null, null);
  }

  @Override
  public void close() {
    server.close();
  }
}
