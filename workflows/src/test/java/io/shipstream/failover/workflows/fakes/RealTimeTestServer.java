package io.shipstream.failover.workflows.fakes;

import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
import io.shipstream.failover.workflows.TaskQueues;
import io.temporal.client.WorkflowClient;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;

/**
 * Temporal's test server in real time with one worker on the failover task queue, hosting the
 * given workflows and activities, and the metrics they report. Real time, not time skipping:
 * skipping jumps over the timeouts of activities a busy machine has not picked up yet, which made
 * the workflow tests flaky under load.
 */
public final class RealTimeTestServer implements AutoCloseable {
  public final TestWorkflowEnvironment env;
  public final WorkflowClient client;
  public final MetricsCapture metrics = new MetricsCapture();
  private final Scope scope;

  public RealTimeTestServer(Class<?>[] workflows, Object... activities) {
    this(false, workflows, activities);
  }

  /**
   * With {@code timeSkipping}, for a test that waits out a long durable timer: time still runs in
   * real time while the test polls (the SDK skips only inside {@code env.sleep} and a blocking
   * {@code getResult}), so such a test sleeps to the timer and then polls the fakes.
   */
  public RealTimeTestServer(boolean timeSkipping, Class<?>[] workflows, Object... activities) {
    scope = new RootScopeBuilder().reporter(metrics).reportEvery(com.uber.m3.util.Duration.ofMillis(10));
    env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
        .setUseTimeskipping(timeSkipping).setMetricsScope(scope).build());
    Worker worker = env.newWorker(TaskQueues.FAILOVER);
    worker.registerWorkflowImplementationTypes(workflows);
    worker.registerActivitiesImplementations(activities);
    // The worker's own queue, polled with the same MySQL fake, as the worker process does.
    for (Object activity : activities) {
      if (activity instanceof FakeMysql mysql) {
        env.newWorker(FakeMysql.OWN_QUEUE).registerActivitiesImplementations(mysql);
      }
    }
    env.start();
    client = env.getWorkflowClient();
  }

  @Override
  public void close() {
    env.close();
    try {
      scope.close();
    } catch (com.uber.m3.tally.ScopeCloseException e) {
      throw new IllegalStateException(e);
    }
  }
}
