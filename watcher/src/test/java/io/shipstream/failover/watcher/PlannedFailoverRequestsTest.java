package io.shipstream.failover.watcher;

import static io.shipstream.failover.watcher.Http.sample;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.topology.PauseAnnotation;
import io.shipstream.failover.workflows.TaskQueues;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the watcher does with a planned-failover annotation that is removed or changed while its
 * failover runs: the request is withdrawn, so that run (and only that run) gets the cancel signal
 * saying why, and a new value becomes a new failover once the old one has ended. The handler runs
 * against an in-process Temporal with a stand-in workflow and a cached group held in memory.
 */
class PlannedFailoverRequestsTest {
  private static final GroupRef ORDERS = new GroupRef("shop", "orders");
  private static final String CANCELLED = "bloodraven_planned_failover_requests_total{outcome=\"cancelled\"}";
  /** A refusal by the watcher, in the counter the workflows count theirs in. */
  private static final String REJECTED_HOLD_PDX =
      "bloodraven_planned_failovers_total{result=\"rejected\",target_site=\"hold-pdx\"}";
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final AtomicReference<MysqlFailoverGroup> cached = new AtomicReference<>();
  private TestWorkflowEnvironment temporal;
  private FailoverStarter starter;
  private WatcherMetrics metrics;
  private PlannedFailoverRequests requests;

  @BeforeEach
  void start() {
    RecordingPlannedFailover.clear();
    temporal = TestWorkflowEnvironment.newInstance();
    temporal.newWorker(TaskQueues.FAILOVER).registerWorkflowImplementationTypes(RecordingPlannedFailover.class,
        FailoverStarterTest.RecordingEmergency.class);
    temporal.start();
    starter = new FailoverStarter(temporal.getWorkflowClient(), TaskQueues.FAILOVER, java.util.Set::of);
    metrics = WatcherMetrics.create();
    // No request here meets another kind of failover, so nothing is ever refused: no rejections.
    requests = new PlannedFailoverRequests(starter, null, ref -> Optional.ofNullable(cached.get()), metrics);
  }

  @AfterEach
  void stop() {
    requests.close();
    metrics.close();
    temporal.close();
  }

  @Test
  void aChangedValueCancelsTheRunningFailoverSayingWhatReplacedItThenStartsTheNewOne() throws Exception {
    annotate("hold-pdx");
    Http.await("the first failover runs", WAIT, () -> RecordingPlannedFailover.RUNS.size() == 1);

    annotate("hold-iad");

    Http.await("the new value runs once the cancelled one has ended", WAIT,
        () -> RecordingPlannedFailover.RUNS.size() == 2);
    assertThat(RecordingPlannedFailover.CANCELS)
        .containsExactly("request replaced by a new annotation value 'hold-iad'");
    assertThat(RecordingPlannedFailover.RUNS.get(1).annotation()).isEqualTo("hold-iad");
    assertThat(latestRun().getStatus()).as("the new failover is not cancelled")
        .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);
    assertThat(sample(metrics.scrape(), CANCELLED)).isEqualTo(1.0);
  }

  @Test
  void aRunPastPromotingIsAskedOnceAndTheNewValueStartsWhenItHasFinished() throws Exception {
    annotate(RecordingPlannedFailover.PAST_PROMOTING + "-pdx");
    Http.await("the first failover runs", WAIT, () -> RecordingPlannedFailover.RUNS.size() == 1);

    annotate("hold-iad");
    // Informers re-deliver while the new value waits: the old run is still asked only once.
    for (int i = 0; i < 3; i++) {
      redeliver();
    }

    Http.await("the new value runs after the first one finished", WAIT,
        () -> RecordingPlannedFailover.RUNS.size() == 2);
    assertThat(RecordingPlannedFailover.CANCELS)
        .containsExactly("request replaced by a new annotation value 'hold-iad'");
    assertThat(RecordingPlannedFailover.RUNS.get(1).annotation()).isEqualTo("hold-iad");
  }

  @Test
  void aRemovedValueStillCancelsAsAnnotationRemovedAndStartsNothing() throws Exception {
    annotate("hold-pdx");
    Http.await("the failover runs", WAIT, () -> RecordingPlannedFailover.RUNS.size() == 1);

    annotate(null);

    Http.await("the failover got the cancel", WAIT, () -> !RecordingPlannedFailover.CANCELS.isEmpty());
    assertThat(RecordingPlannedFailover.CANCELS).containsExactly("annotation removed");
    redeliver();
    assertThat(RecordingPlannedFailover.RUNS).hasSize(1);
    assertThat(sample(metrics.scrape(), CANCELLED)).isEqualTo(1.0);
  }

  @Test
  void aWithdrawalNeverCancelsAnotherFailoverThatTookTheGroupsIdMeanwhile() throws Exception {
    annotate("hold-pdx");
    Http.await("the planned failover runs", WAIT, () -> RecordingPlannedFailover.RUNS.size() == 1);
    // The planned run ends without the watcher seeing its status, and an emergency failover
    // takes the group's id before the watcher sees the annotation go.
    temporal.getWorkflowClient().newUntypedWorkflowStub(ORDERS.workflowId()).signal("cancel", "ended by the test");
    Http.await("the planned failover ended", WAIT,
        () -> latestRun().getStatus()
        == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED);
    assertThat(starter.startEmergency(ORDERS, "iad", "pdx", "0-1-1", "iad unreachable", Map.of()))
        .isInstanceOf(FailoverStarter.Started.class);

    annotate(null);

    // The server records a signal before it answers, so the history already shows any that came.
    assertThat(latestRun().getType().getName()).isEqualTo("EmergencyFailover");
    assertThat(temporal.getWorkflowClient().fetchHistory(ORDERS.workflowId()).getEvents())
        .as("the emergency failover got no signal")
        .noneMatch(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);
    assertThat(sample(metrics.scrape(), CANCELLED)).as("the ended run could not be signalled").isZero();
    temporal.getWorkflowClient().newUntypedWorkflowStub(ORDERS.workflowId()).signal("cancel", "test over");
  }

  @Test
  void aPausedGroupRefusesAPlannedFailoverWithReasonPausedAndStartsNothing() throws Exception {
    java.util.List<String> refused = new java.util.concurrent.CopyOnWriteArrayList<>();
    requests.close();
    requests = new PlannedFailoverRequests(starter, new RequestRejections(null, java.time.Clock.systemUTC()) {
      @Override
      public void reject(GroupRef ref, String annotation, String target, String reason, String message) {
        refused.add(annotation + " -> " + target + ": " + reason + ": " + message);
      }
    }, ref -> Optional.ofNullable(cached.get()), metrics);

    annotate("hold-pdx", Map.of(PauseAnnotation.ANNOTATION, "true"));

    assertThat(refused).singleElement().asString().startsWith("hold-pdx -> hold-pdx: Paused: the group is paused ("
        + PauseAnnotation.ANNOTATION + "=true)");
    assertThat(RecordingPlannedFailover.RUNS).as("nothing started").isEmpty();
    assertThat(sample(metrics.scrape(), REJECTED_HOLD_PDX)).as("counted with the workflow's refusals").isEqualTo(1.0);
    // The refusal's own status write comes back as a change before the annotation's removal does.
    redeliver();
    assertThat(refused).as("refused once").hasSize(1);

    // The refusal removed the annotation; resumed, the same request, made again, starts.
    annotate(null, Map.of(PauseAnnotation.ANNOTATION, "true"));
    annotate("hold-pdx", Map.of());
    Http.await("the failover runs once resumed", WAIT, () -> RecordingPlannedFailover.RUNS.size() == 1);
    assertThat(refused).hasSize(1);
  }

  private static final java.time.Instant NOW = java.time.Instant.parse("2026-12-01T02:00:00Z");

  /** A handler whose clock says {@link #NOW} and whose rejections are recorded in {@code refused}. */
  private void recordingRejections(java.util.List<String> refused) {
    requests.close();
    requests = new PlannedFailoverRequests(starter, new RequestRejections(null, java.time.Clock.systemUTC()) {
      @Override
      public void reject(GroupRef ref, String annotation, String target, String reason, String message) {
        refused.add(annotation + " -> " + target + ": " + reason + ": " + message);
      }
    }, ref -> Optional.ofNullable(cached.get()), metrics, java.time.Clock.fixed(NOW, java.time.ZoneOffset.UTC));
  }

  @Test
  void aScheduleInThePastOrTooFarAheadIsRefusedBeforeAnyWorkflowStarts() throws Exception {
    java.util.List<String> refused = new java.util.concurrent.CopyOnWriteArrayList<>();
    recordingRejections(refused);

    annotate("hold-pdx:at=2026-12-01T01:59:59Z");
    annotate("hold-pdx:at=2027-03-02T02:00:00Z");

    assertThat(refused).containsExactly(
        "hold-pdx:at=2026-12-01T01:59:59Z -> hold-pdx: InvalidSchedule: the scheduled time 2026-12-01T01:59:59Z is "
            + "not in the future (now 2026-12-01T02:00:00Z): a switchover for now is requested without at=; "
            + "request refused",
        "hold-pdx:at=2027-03-02T02:00:00Z -> hold-pdx: InvalidSchedule: the scheduled time 2027-03-02T02:00:00Z is "
            + "more than 90 days ahead (now 2026-12-01T02:00:00Z); request refused");
    assertThat(RecordingPlannedFailover.RUNS).as("nothing started").isEmpty();
    assertThat(sample(metrics.scrape(), REJECTED_HOLD_PDX)).as("both counted as rejected").isEqualTo(2.0);

    annotate("hold-pdx:at=2026-12-01T03:00:00Z");
    Http.await("a time ahead starts its workflow", WAIT, () -> RecordingPlannedFailover.RUNS.size() == 1);
    assertThat(refused).hasSize(2);
  }

  @Test
  void aScheduledRequestWhoseTimeHasPassedIsNotRefusedWhileItsFailoverIsUnderWay() throws Exception {
    java.util.List<String> refused = new java.util.concurrent.CopyOnWriteArrayList<>();
    recordingRejections(refused);
    // A watcher that restarts meets the running request again, its time now past.
    annotate("hold-pdx:at=2026-12-01T01:00:00Z", Map.of(), MysqlFailoverGroupStatus.empty()
        .withPlannedFailover(plannedIn("Draining")));

    Http.await("handed to the starter, not refused", WAIT, () -> RecordingPlannedFailover.RUNS.size() == 1);
    assertThat(refused).isEmpty();
  }

  @Test
  void pausingTheGroupWithdrawsAWaitingRequestOnce() throws Exception {
    var scheduled = scheduledRunStarted();

    annotate("hold-pdx:at=2026-12-01T03:00:00Z", Map.of(PauseAnnotation.ANNOTATION, "true"), scheduled);
    redeliver();

    Http.await("the waiting run got the cancel", WAIT, () -> !RecordingPlannedFailover.CANCELS.isEmpty());
    assertThat(RecordingPlannedFailover.CANCELS).containsExactly("the group was paused (" + PauseAnnotation.ANNOTATION
        + "=true) while the request waited (Scheduled)");
    assertThat(sample(metrics.scrape(), CANCELLED)).isEqualTo(1.0);
  }

  @Test
  void aNewLeaderTakesARequestItFindsServedAsItsOwnSoThatWithdrawingItCancelsIt() throws Exception {
    var scheduled = scheduledRunStarted();

    // The watcher restarts: a new handler, which never started anything, is handed the group.
    java.util.List<String> refused = new java.util.concurrent.CopyOnWriteArrayList<>();
    recordingRejections(refused);
    annotate("hold-pdx:at=2026-12-01T03:00:00Z", Map.of(), scheduled);
    redeliver();
    assertThat(RecordingPlannedFailover.RUNS).as("nothing started again").hasSize(1);

    annotate(null, Map.of(), scheduled);
    Http.await("the adopted run got the cancel", WAIT, () -> !RecordingPlannedFailover.CANCELS.isEmpty());
    assertThat(RecordingPlannedFailover.CANCELS).containsExactly("annotation removed");
    assertThat(refused).isEmpty();
  }

  @Test
  void aNewLeaderOfAPausedGroupWithdrawsTheWaitingRequestItFindsInsteadOfRefusingIt() throws Exception {
    var scheduled = scheduledRunStarted();

    java.util.List<String> refused = new java.util.concurrent.CopyOnWriteArrayList<>();
    recordingRejections(refused);
    annotate("hold-pdx:at=2026-12-01T03:00:00Z", Map.of(PauseAnnotation.ANNOTATION, "true"), scheduled);

    Http.await("the waiting run got the cancel", WAIT, () -> !RecordingPlannedFailover.CANCELS.isEmpty());
    assertThat(RecordingPlannedFailover.CANCELS).containsExactly("the group was paused (" + PauseAnnotation.ANNOTATION
        + "=true) while the request waited (Scheduled)");
    assertThat(refused).as("its status is the run's to write").isEmpty();
  }

  private static io.shipstream.failover.model.crd.PlannedFailoverStatus plannedIn(String phase) {
    return new io.shipstream.failover.model.crd.PlannedFailoverStatus(phase, "hold-pdx", "iad", null, null,
        NOW.toString(), null, null, null, null, null, null, null);
  }

  /** Sets the cached group's annotation (null removes it) and lets the handler see the update. */
  /**
   * A request for pdx at 03:00 whose run started and waits; returns the group's status as that run
   * wrote it (Scheduled, naming the run), for the next delivery to carry.
   */
  private MysqlFailoverGroupStatus scheduledRunStarted() throws Exception {
    recordingRejections(new java.util.concurrent.CopyOnWriteArrayList<>());
    annotate("hold-pdx:at=2026-12-01T03:00:00Z");
    Http.await("the scheduled failover runs", WAIT, () -> RecordingPlannedFailover.RUNS.size() == 1);
    String runId = latestRun().getExecution().getRunId();
    return MysqlFailoverGroupStatus.empty().withPlannedFailover(plannedIn("Scheduled"))
        .withWorkflow(new MysqlFailoverGroupStatus.WorkflowRef("PlannedFailover", ORDERS.workflowId(), runId));
  }

  private void annotate(String value) throws InterruptedException {
    annotate(value, Map.of());
  }

  private void annotate(String value, Map<String, String> others) throws InterruptedException {
    annotate(value, others, null);
  }

  private void annotate(String value, Map<String, String> others, MysqlFailoverGroupStatus status)
      throws InterruptedException {
    MysqlFailoverGroup group = new MysqlFailoverGroup();
    group.setStatus(status);
    group.getMetadata().setNamespace(ORDERS.namespace());
    group.getMetadata().setName(ORDERS.name());
    Map<String, String> annotations = new HashMap<>(others);
    if (value != null) {
      annotations.put(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION, value);
    }
    group.getMetadata().setAnnotations(annotations);
    cached.set(group);
    redeliver();
  }

  private void redeliver() throws InterruptedException {
    requests.onUpdate(cached.get(), cached.get());
    requests.awaitQueued();
  }

  private WorkflowExecutionInfo latestRun() {
    return temporal.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
        DescribeWorkflowExecutionRequest.newBuilder().setNamespace(temporal.getNamespace())
            .setExecution(WorkflowExecution.newBuilder().setWorkflowId(ORDERS.workflowId())).build())
        .getWorkflowExecutionInfo();
  }
}
