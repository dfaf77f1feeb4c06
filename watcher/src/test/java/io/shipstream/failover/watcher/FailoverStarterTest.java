package io.shipstream.failover.watcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.workflows.EmergencyFailoverWorkflow;
import io.shipstream.failover.workflows.SearchAttributes;
import io.shipstream.failover.workflows.TaskQueues;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.client.WorkflowStub;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.workflow.Workflow;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The emergency start as the worker receives it: the typed {@link EmergencyFailoverWorkflow}
 * with the monitor's request intact, the search attributes the namespace has, and a second start
 * refused while the first holds the group's id.
 */
class FailoverStarterTest {
  private static final GroupRef ORDERS = new GroupRef(MockCluster.NAMESPACE, "orders");
  /** What the stand-in was started with; the tests of one JVM run one after another. */
  static final List<EmergencyFailoverWorkflow.Request> RUNS = new CopyOnWriteArrayList<>();

  /** Stands in for the emergency failover under its own interface: records, then waits to be cancelled. */
  public static class RecordingEmergency implements EmergencyFailoverWorkflow {
    private boolean cancelled;

    @Override
    public EmergencyFailoverStatus run(Request request) {
      RUNS.add(request);
      Workflow.await(() -> cancelled);
      return null;
    }

    @Override
    public void cancel(String reason) {
      cancelled = true;
    }

    @Override
    public EmergencyFailoverStatus status() {
      return null;
    }
  }

  private TestWorkflowEnvironment temporal;

  @BeforeEach
  void start() {
    RUNS.clear();
    temporal = TestWorkflowEnvironment.newInstance();
    for (var key : List.of(SearchAttributes.GROUP, SearchAttributes.TARGET, SearchAttributes.PHASE)) {
      temporal.registerSearchAttribute(key.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    }
    RecordingPlannedFailover.clear();
    temporal.newWorker(TaskQueues.FAILOVER).registerWorkflowImplementationTypes(RecordingEmergency.class,
        RecordingPlannedFailover.class);
    temporal.start();
  }

  @AfterEach
  void stop() {
    temporal.close();
  }

  @Test
  void startsTheTypedEmergencyFailoverWithTheMonitorsRequestAndSearchAttributes() throws InterruptedException {
    // A namespace with all three: Temporal's Java test server cannot list them (see below).
    FailoverStarter starter = new FailoverStarter(temporal.getWorkflowClient(), TaskQueues.FAILOVER,
        () -> Set.of("FailoverGroup", "FailoverTarget", "FailoverPhase"));

    var outcome = starter.startEmergency(ORDERS, "iad", "pdx", "0-1-42", "iad unreachable for 3 polls",
        Map.of("iad", "0-1-42", "pdx", "0-1-41", "dr", "0-1-42"));

    assertThat(outcome).isInstanceOf(FailoverStarter.Started.class);
    WorkflowStub run = temporal.getWorkflowClient().newUntypedWorkflowStub(ORDERS.workflowId());
    var info = temporal.getWorkflowClient().fetchHistory(ORDERS.workflowId()).getEvents().get(0)
        .getWorkflowExecutionStartedEventAttributes();
    assertThat(info.getWorkflowType().getName()).isEqualTo("EmergencyFailover");
    var attributes = info.getSearchAttributes().getIndexedFieldsMap();
    assertThat(DefaultDataConverter.STANDARD_INSTANCE.fromPayload(attributes.get(SearchAttributes.GROUP.getName()),
        String.class, String.class)).isEqualTo(ORDERS.toString());
    assertThat(DefaultDataConverter.STANDARD_INSTANCE.fromPayload(attributes.get(SearchAttributes.TARGET.getName()),
        String.class, String.class)).isEqualTo("pdx");
    waitForRun();
    assertThat(RUNS).containsExactly(
        new EmergencyFailoverWorkflow.Request(ORDERS, "iad", "pdx", "0-1-42", "iad unreachable for 3 polls",
            Map.of("iad", "0-1-42", "pdx", "0-1-41", "dr", "0-1-42")));
    assertThat(starter.runs().running(ORDERS)).isTrue();

    assertThat(starter.startEmergency(ORDERS, "iad", "pdx", "0-1-42", "again", Map.of()))
        .isEqualTo(new FailoverStarter.AlreadyRunning("EmergencyFailover"));
    run.signal("cancel", "test over");
  }

  /**
   * The lock the lease-fence lift and the DBA's unfence take: their action runs only while no
   * failover's workflow exists for the group, and a start waits for an action that runs.
   */
  @Test
  void anActionWhileNoFailoverRunsOnlyWithoutOneAndHoldsTheStartsMeanwhile() throws Exception {
    FailoverStarter starter = new FailoverStarter(temporal.getWorkflowClient(), TaskQueues.FAILOVER, Set::of);
    java.util.List<String> done = new CopyOnWriteArrayList<>();

    java.util.concurrent.CountDownLatch inside = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    Thread lift = new Thread(() -> {
      try {
        starter.whileNoFailover(ORDERS, () -> {
          inside.countDown();
          release.await();
          done.add("lifted");
        });
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    lift.start();
    inside.await();
    Thread start = new Thread(() -> {
      starter.startEmergency(ORDERS, "iad", "pdx", "0-1-42", "iad unreachable", Map.of());
      done.add("started");
    });
    start.start();
    Thread.sleep(300);
    assertThat(done).as("the start waits for the action").isEmpty();
    release.countDown();
    lift.join();
    start.join();
    assertThat(done).containsExactly("lifted", "started");
    waitForRun();

    assertThat(starter.whileNoFailover(ORDERS, () -> done.add("lifted again"))).as("a failover runs").isFalse();
    assertThat(done).containsExactly("lifted", "started");
    temporal.getWorkflowClient().newUntypedWorkflowStub(ORDERS.workflowId()).signal("cancel", "test over");
  }

  @Test
  void startsWithOnlyTheAttributesTheNamespaceHas() throws InterruptedException {
    FailoverStarter starter = new FailoverStarter(temporal.getWorkflowClient(), TaskQueues.FAILOVER,
        () -> Set.of(SearchAttributes.GROUP.getName()));
    assertThat(starter.startEmergency(ORDERS, "iad", "pdx", "0-1-42", "iad unreachable", Map.of()))
        .isInstanceOf(FailoverStarter.Started.class);
    var started = temporal.getWorkflowClient().fetchHistory(ORDERS.workflowId()).getEvents().get(0);
    assertThat(started.getWorkflowExecutionStartedEventAttributes().getSearchAttributes().getIndexedFieldsMap())
        .containsOnlyKeys(SearchAttributes.GROUP.getName());
    assertThat(DefaultDataConverter.STANDARD_INSTANCE.fromPayload(started.getUserMetadata().getSummary(),
        String.class, String.class)).isEqualTo("emergency failover " + ORDERS + ": iad → pdx");
    waitForRun();
    temporal.getWorkflowClient().newUntypedWorkflowStub(ORDERS.workflowId()).signal("cancel", "test over");
  }

  @Test
  void anEmergencyStartsWithNoneRegistered() throws InterruptedException {
    FailoverStarter starter = new FailoverStarter(temporal.getWorkflowClient(), TaskQueues.FAILOVER, Set::of);
    startsTheEmergencyWithoutSearchAttributes(starter);
  }

  /**
   * The real detection against Temporal's Java test server, which has no ListSearchAttributes
   * (UNIMPLEMENTED): one warning, and the emergency failover starts without the attributes.
   */
  @Test
  void aServerThatCannotListThemStillGetsTheEmergencyStarted() throws InterruptedException {
    FailoverStarter starter = new FailoverStarter(temporal.getWorkflowClient(), TaskQueues.FAILOVER);
    startsTheEmergencyWithoutSearchAttributes(starter);
  }

  /**
   * What the groups' SearchAttributesRegistered condition gets from the same server: Unknown (it
   * cannot list them), never False, so the tests on this server see no Missing condition or Event.
   */
  @Test
  void aServerThatCannotListThemLeavesTheConditionUnknown() {
    var check = RegisteredSearchAttributes.of(temporal.getWorkflowClient()).check();
    assertThat(check.missing()).isNull();
    assertThat(check.why()).contains("UNIMPLEMENTED");
  }

  /**
   * A planned failover that only waits is asked to stop for an emergency one, which then starts;
   * a running emergency failover is never asked anything.
   */
  @Test
  void aWaitingPlannedFailoverIsCancelledForTheEmergencyOneAndAnEmergencyOneIsLeftAlone() throws Exception {
    FailoverStarter starter = new FailoverStarter(temporal.getWorkflowClient(), TaskQueues.FAILOVER);
    assertThat(starter.startPlanned(ORDERS, "hold-pdx", java.util.Optional.of("pdx")))
        .isInstanceOf(FailoverStarter.Started.class);
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (RecordingPlannedFailover.RUNS.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(starter.startEmergency(ORDERS, "iad", "pdx", "0-1-42", "iad unreachable", Map.of()))
        .isEqualTo(new FailoverStarter.AlreadyRunning("PlannedFailover"));

    assertThat(starter.preemptPlanned(ORDERS, "pre-empted by an emergency failover")).isTrue();
    temporal.getWorkflowClient().newUntypedWorkflowStub(ORDERS.workflowId()).getResult(Object.class);
    assertThat(RecordingPlannedFailover.CANCELS).containsExactly("pre-empted by an emergency failover");
    assertThat(starter.startEmergency(ORDERS, "iad", "pdx", "0-1-42", "iad unreachable", Map.of()))
        .isInstanceOf(FailoverStarter.Started.class);
    waitForRun();

    assertThat(starter.preemptPlanned(ORDERS, "again")).as("an emergency failover is not pre-empted").isFalse();
    assertThat(RUNS).hasSize(1);
    temporal.getWorkflowClient().newUntypedWorkflowStub(ORDERS.workflowId()).signal("cancel", "test over");
  }

  /** iad's emergency failover to pdx starts, with no search attribute, and runs; then it is cancelled. */
  private void startsTheEmergencyWithoutSearchAttributes(FailoverStarter starter) throws InterruptedException {
    assertThat(starter.startEmergency(ORDERS, "iad", "pdx", "0-1-42", "iad unreachable", Map.of()))
        .isInstanceOf(FailoverStarter.Started.class);
    assertThat(temporal.getWorkflowClient().fetchHistory(ORDERS.workflowId()).getEvents().get(0)
        .getWorkflowExecutionStartedEventAttributes().getSearchAttributes().getIndexedFieldsMap()).isEmpty();
    waitForRun();
    temporal.getWorkflowClient().newUntypedWorkflowStub(ORDERS.workflowId()).signal("cancel", "test over");
  }

  private static void waitForRun() throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (RUNS.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
  }
}
