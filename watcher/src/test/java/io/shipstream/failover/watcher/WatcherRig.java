package io.shipstream.failover.watcher;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.workflows.TaskQueues;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What a test of the watcher process runs it against: the mock API server and an in-process
 * Temporal whose worker hosts the given stand-in workflows. Registered as an extension, it closes
 * the watchers it started, then Temporal and the API server, after each test.
 */
final class WatcherRig implements AfterEachCallback {
  final MockCluster cluster = MockCluster.start();
  final TestWorkflowEnvironment temporal = TestWorkflowEnvironment.newInstance();
  private final List<WatcherApp> apps = new ArrayList<>();

  WatcherRig(Class<?>... workflowTypes) {
    temporal.newWorker(TaskQueues.FAILOVER).registerWorkflowImplementationTypes(workflowTypes);
    temporal.start();
  }

  WatcherApp start(WatcherConfig config) {
    return start(config, cluster.client());
  }

  /** A watcher that reaches the API server with {@code kube} (a path a test can cut). */
  WatcherApp start(WatcherConfig config, io.fabric8.kubernetes.client.KubernetesClient kube) {
    WatcherApp app = WatcherApp.start(config, kube, temporal.getWorkflowClient());
    apps.add(app);
    return app;
  }

  /** The group {@code ref} with sites iad and pdx, annotated to ask for a planned failover to {@code target}. */
  MysqlFailoverGroup createGroupRequesting(GroupRef ref, String target) {
    return cluster.createGroup(ref.name(), List.of(MockCluster.site(ref.name(), "iad", "10.0.1.10"),
        MockCluster.site(ref.name(), "pdx", "10.0.2.10")),
        Map.of(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION, target));
  }

  @Override
  public void afterEach(ExtensionContext context) {
    apps.forEach(WatcherApp::close);
    temporal.close();
    cluster.close();
  }
}
