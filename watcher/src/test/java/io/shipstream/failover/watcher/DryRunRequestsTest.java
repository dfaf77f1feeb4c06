package io.shipstream.failover.watcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.DryRunStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.topology.DryRunAnnotation;
import io.shipstream.failover.model.topology.PauseAnnotation;
import io.shipstream.failover.workflows.DryRunWorkflow;
import io.shipstream.failover.workflows.PlannedFailoverWorkflow;
import io.shipstream.failover.workflows.TaskQueues;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the watcher does with the dry-run annotation: one dry run per appearance of a value, under
 * an id of its own while the group's failover workflow runs, told what only the watcher knows (the
 * group paused, the failover holding the group's id). A stand-in dry run records its request.
 */
class DryRunRequestsTest {
  private static final GroupRef ORDERS = new GroupRef("shop", "orders");
  private static final Duration WAIT = Duration.ofSeconds(10);

  /** Stands in for the dry-run workflow: records what it was started with, under which id, and ends. */
  public static class RecordingDryRun implements DryRunWorkflow {
    static final List<Request> RUNS = new CopyOnWriteArrayList<>();
    static final List<String> IDS = new CopyOnWriteArrayList<>();

    @Override
    public DryRunStatus run(Request request) {
      RUNS.add(request);
      IDS.add(io.temporal.workflow.Workflow.getInfo().getWorkflowId());
      return null;
    }
  }

  private final AtomicReference<MysqlFailoverGroup> cached = new AtomicReference<>();
  private TestWorkflowEnvironment temporal;
  private DryRunRequests requests;

  @BeforeEach
  void start() {
    RecordingDryRun.RUNS.clear();
    RecordingDryRun.IDS.clear();
    RecordingPlannedFailover.clear();
    temporal = TestWorkflowEnvironment.newInstance();
    temporal.newWorker(TaskQueues.FAILOVER).registerWorkflowImplementationTypes(RecordingDryRun.class,
        RecordingPlannedFailover.class);
    temporal.start();
    FailoverStarter starter = new FailoverStarter(temporal.getWorkflowClient(), TaskQueues.FAILOVER, java.util.Set::of);
    requests = new DryRunRequests(starter, ref -> Optional.ofNullable(cached.get()), Clock.systemUTC());
  }

  @AfterEach
  void stop() {
    requests.close();
    temporal.close();
  }

  @Test
  void aValueStartsOneDryRunHoweverOftenItIsRedeliveredAndAgainOnceItCameBack() throws Exception {
    annotate("pdx", Map.of());
    requests.handle(ORDERS);
    requests.handle(ORDERS);
    Http.await("the dry run ran", WAIT, () -> RecordingDryRun.RUNS.size() == 1);
    assertThat(RecordingDryRun.RUNS.get(0)).isEqualTo(new DryRunWorkflow.Request(ORDERS, "pdx", false, false, null));
    assertThat(RecordingDryRun.IDS.get(0)).startsWith(ORDERS.workflowId() + "-dry-run-");

    annotate(null, Map.of());
    annotate("emergency", Map.of(PauseAnnotation.ANNOTATION, "true"));
    Http.await("the second dry run ran", WAIT, () -> RecordingDryRun.RUNS.size() == 2);
    assertThat(RecordingDryRun.RUNS.get(1)).isEqualTo(new DryRunWorkflow.Request(ORDERS, "emergency", true, false,
        null));
  }

  /** A planned failover holds the group's id: the dry run runs beside it, told so, and the failover runs on. */
  @Test
  void aDryRunNeverTakesTheGroupsWorkflowId() throws Exception {
    PlannedFailoverWorkflow planned = temporal.getWorkflowClient().newWorkflowStub(PlannedFailoverWorkflow.class,
        WorkflowOptions.newBuilder().setWorkflowId(ORDERS.workflowId()).setTaskQueue(TaskQueues.FAILOVER).build());
    WorkflowClient.start(planned::run,
        new PlannedFailoverWorkflow.Request(ORDERS, RecordingPlannedFailover.HOLD + "-pdx"));
    Http.await("the planned failover runs", WAIT, () -> RecordingPlannedFailover.RUNS.size() == 1);

    annotate("pdx", Map.of());

    Http.await("the dry run ran", WAIT, () -> RecordingDryRun.RUNS.size() == 1);
    assertThat(RecordingDryRun.RUNS.get(0).runningWorkflowType()).isEqualTo("PlannedFailover");
    assertThat(RecordingDryRun.IDS.get(0)).isNotEqualTo(ORDERS.workflowId());
    assertThat(RecordingPlannedFailover.CANCELS).as("the failover is not disturbed").isEmpty();
  }

  private void annotate(String dryRun, Map<String, String> others) throws InterruptedException {
    MysqlFailoverGroup group = new MysqlFailoverGroup();
    group.getMetadata().setNamespace(ORDERS.namespace());
    group.getMetadata().setName(ORDERS.name());
    Map<String, String> annotations = new HashMap<>(others);
    if (dryRun != null) {
      annotations.put(DryRunAnnotation.ANNOTATION, dryRun);
    }
    group.getMetadata().setAnnotations(annotations);
    cached.set(group);
    requests.changed(ORDERS);
    requests.awaitQueued();
  }
}
