package io.shipstream.failover.watcher;

import static io.shipstream.failover.watcher.Http.await;
import static io.shipstream.failover.watcher.Http.get;
import static io.shipstream.failover.watcher.Http.sample;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.WorkflowRef;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.wire.AnswersReply;
import io.shipstream.failover.wire.Wire;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import java.net.ConnectException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The watcher process as an operator meets it: started against the mock API server and an
 * in-process Temporal, it answers its probes, shows its leadership in {@code /metrics}, serves
 * {@code /active-site}, and turns an annotation into exactly one planned-failover workflow.
 */
class WatcherAppTest {
  private static final String TOKEN = "sidecar-token-8f2a";
  private static final GroupRef ORDERS = new GroupRef(MockCluster.NAMESPACE, "orders");
  private static final String STARTED = "bloodraven_planned_failover_requests_total{outcome=\"started\"}";
  private static final String CANCELLED = "bloodraven_planned_failover_requests_total{outcome=\"cancelled\"}";

  @RegisterExtension
  final WatcherRig rig = new WatcherRig(RecordingPlannedFailover.class);
  private final MockCluster cluster = rig.cluster;
  private final TestWorkflowEnvironment temporal = rig.temporal;
  private WatcherApp app;

  @BeforeEach
  void start() {
    RecordingPlannedFailover.clear();
    // These tests are about annotations and /active-site; the monitor has its own tests.
    WatcherConfig config = WatcherConfig.defaults().withTopologyMonitor(false).withHttpHost("127.0.0.1")
        .withActiveSiteToken(SharedToken.of(TOKEN))
        .withLeaderElection(WatcherConfig.defaults().leaderElection().withIdentity("watcher-0")
            .withTimings(Duration.ofSeconds(2), Duration.ofMillis(1500), Duration.ofMillis(200)));
    app = rig.start(config);
  }

  @Test
  void answersItsProbesAndShowsItLeadsInMetrics() throws Exception {
    assertThat(get(app.httpPort(), "/healthz").statusCode()).isEqualTo(200);
    HttpResponse<String> ready = await(app.httpPort(), "/readyz", r -> r.statusCode() == 200);
    assertThat(ready.body()).isEqualTo("ready\n");

    HttpResponse<String> metrics = await(app.httpPort(), "/metrics",
        r -> sample(r.body(), "bloodraven_watcher_is_leader") == 1.0);

    assertThat(app.isLeader()).isTrue();
    assertThat(sample(metrics.body(), STARTED)).as("every outcome is there from the start").isZero();
    assertThat(metrics.body()).contains("jvm_memory_used_bytes{");
    assertThat(get(app.httpPort(), "/readyz/more").statusCode()).isEqualTo(404);
  }

  @Test
  void listensOnTheConfiguredInterfaceOnly() {
    assertThat(app.httpAddress().getAddress().getHostAddress()).isEqualTo("127.0.0.1");
    assertThat(WatcherConfig.defaults().httpHost()).as("a pod's default: every interface").isEqualTo("0.0.0.0");
  }

  @Test
  void anAnnotationStartsOnePlannedFailoverEvenWhenTheEventIsDeliveredAgain() throws Exception {
    Http.await("the watcher leads", Duration.ofSeconds(10), app::isLeader);

    MysqlFailoverGroup group = rig.createGroupRequesting(ORDERS, "pdx");

    Http.await("the workflow ran", Duration.ofSeconds(10), () -> RecordingPlannedFailover.runsFor("orders") == 1);
    assertThat(RecordingPlannedFailover.RUNS.get(0).annotation()).isEqualTo("pdx");
    assertThat(describe().getWorkflowExecutionInfo().getType().getName()).isEqualTo("PlannedFailover");
    // Ended, so that a second start would not be refused by Temporal and only the watcher prevents it.
    temporal.getWorkflowClient().newUntypedWorkflowStub(ORDERS.workflowId()).getResult(PlannedFailoverStatus.class);

    // Informers re-deliver (resyncs, reconnects, the workflow's own status writes): the same
    // annotation value must not start a second failover.
    Http.await("the informer has the group", Duration.ofSeconds(5), () -> app.group(ORDERS).isPresent());
    PlannedFailoverRequests requests = app.requests();
    requests.onUpdate(group, group);
    requests.onAdd(group);
    requests.awaitQueued();

    assertThat(RecordingPlannedFailover.runsFor("orders")).isEqualTo(1);
    String metrics = get(app.httpPort(), "/metrics").body();
    assertThat(sample(metrics, STARTED)).isEqualTo(1.0);
    assertThat(sample(metrics, "bloodraven_planned_failover_requests_total{outcome=\"already_running\"}")).isZero();
  }

  @Test
  void aFailoverThatEndsAndClearsItsAnnotationIsNoCancelButAnOperatorRemovingItIs() throws Exception {
    Http.await("the watcher leads", Duration.ofSeconds(10), app::isLeader);
    rig.createGroupRequesting(ORDERS, RecordingPlannedFailover.HOLD + "-1");
    Http.await("the workflow runs", Duration.ofSeconds(10), () -> RecordingPlannedFailover.runsFor("orders") == 1);
    String runId = describe().getWorkflowExecutionInfo().getExecution().getRunId();

    // What the real workflow does last, while it still runs: its terminal status, then the
    // annotation cleared.
    String now = Instant.now().toString();
    cluster.setStatus(ORDERS, MysqlFailoverGroupStatus.empty()
        .withWorkflow(new WorkflowRef("PlannedFailover", ORDERS.workflowId(), runId))
        .withPlannedFailover(new PlannedFailoverStatus("Succeeded", "pdx", "iad", null, null, now, now, 1.0, 0L,
            null, null, null, null)));
    setAnnotation(null);
    Http.await("the watcher saw the annotation go", Duration.ofSeconds(10),
        () -> app.group(ORDERS).map(g -> PlannedFailoverRequests.annotation(g) == null).orElse(false));
    app.requests().awaitQueued();

    assertThat(sample(get(app.httpPort(), "/metrics").body(), CANCELLED)).isZero();
    assertThat(describe().getWorkflowExecutionInfo().getStatus())
        .as("not signalled").isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);
    WorkflowStub first = temporal.getWorkflowClient().newUntypedWorkflowStub(ORDERS.workflowId());
    first.signal("cancel", "the test ends the stand-in");
    first.getResult(PlannedFailoverStatus.class);

    // An operator withdrawing a request that is still running is a cancel.
    setAnnotation(RecordingPlannedFailover.HOLD + "-2");
    Http.await("the second workflow runs", Duration.ofSeconds(10),
        () -> RecordingPlannedFailover.runsFor("orders") == 2);
    setAnnotation(null);

    await(app.httpPort(), "/metrics", r -> sample(r.body(), CANCELLED) == 1.0);
    temporal.getWorkflowClient().newUntypedWorkflowStub(ORDERS.workflowId()).getResult(PlannedFailoverStatus.class);
  }

  private DescribeWorkflowExecutionResponse describe() {
    return temporal.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
        DescribeWorkflowExecutionRequest.newBuilder().setNamespace(temporal.getNamespace())
            .setExecution(WorkflowExecution.newBuilder().setWorkflowId(ORDERS.workflowId())).build());
  }

  private void setAnnotation(String value) {
    cluster.client().resources(MysqlFailoverGroup.class).inNamespace(ORDERS.namespace()).withName(ORDERS.name())
        .edit(g -> {
          if (value == null) {
            g.getMetadata().getAnnotations().remove(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION);
          } else {
            g.getMetadata().getAnnotations().put(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION, value);
          }
          return g;
        });
  }

  @Test
  void servesTheActiveSiteToSidecarsWithTheToken() throws Exception {
    cluster.createGroup(ORDERS.name(), List.of(MockCluster.site("orders", "iad", "10.0.1.10"),
        MockCluster.site("orders", "pdx", "10.0.2.10")));
    cluster.setStatus(ORDERS, MysqlFailoverGroupStatus.empty().withActiveSite("iad"));
    String path = "/active-site?namespace=" + ORDERS.namespace() + "&group=" + ORDERS.name();

    assertThat(get(app.httpPort(), path).statusCode()).as("no token").isEqualTo(401);
    Http.await("the cache has the status", Duration.ofSeconds(10),
        () -> app.group(ORDERS).map(g -> g.getStatus() != null && "iad".equals(g.getStatus().activeSite()))
            .orElse(false));
    HttpResponse<String> withToken = get(app.httpPort(), path, "Authorization", "Bearer " + TOKEN);

    assertThat(withToken.statusCode()).isEqualTo(200);
    assertThat(withToken.body()).contains("\"activeSite\":\"iad\"");
  }

  /** The same handler serves /answers beside /active-site: its logs are the ones /active-site writes. */
  @Test
  void servesWhatItAnsweredEachSitesSidecar() throws Exception {
    cluster.createGroup(ORDERS.name(), List.of(MockCluster.site("orders", "iad", "10.0.1.10"),
        MockCluster.site("orders", "pdx", "10.0.2.10")));
    cluster.setStatus(ORDERS, MysqlFailoverGroupStatus.empty().withActiveSite("iad"));
    String query = "?namespace=" + ORDERS.namespace() + "&group=" + ORDERS.name() + "&site=iad";
    Http.await("the cache has the status", Duration.ofSeconds(10),
        () -> app.group(ORDERS).map(g -> g.getStatus() != null && "iad".equals(g.getStatus().activeSite()))
            .orElse(false));
    assertThat(get(app.httpPort(), "/answers" + query).statusCode()).as("no token").isEqualTo(401);

    assertThat(get(app.httpPort(), "/active-site" + query, "Authorization", "Bearer " + TOKEN).statusCode())
        .isEqualTo(200);
    HttpResponse<String> answers = get(app.httpPort(), "/answers" + query, "Authorization", "Bearer " + TOKEN);

    assertThat(answers.statusCode()).isEqualTo(200);
    AnswersReply reply = Wire.read(answers.body(), AnswersReply.class);
    assertThat(reply.answers()).extracting(AnswersReply.Answer::activeSite).containsExactly("iad");
    assertThat(reply.view().activeSite()).isEqualTo("iad");
  }

  @Test
  void closeStopsLeadingAndTheHttpPortAndIsSafeTwice() throws Exception {
    Http.await("the watcher leads", Duration.ofSeconds(10), app::isLeader);
    int port = app.httpPort();

    app.close();
    app.close();

    assertThat(app.isLeader()).isFalse();
    assertThat(app.isReady()).isFalse();
    assertThatThrownBy(() -> get(port, "/healthz")).isInstanceOf(ConnectException.class);
  }
}
