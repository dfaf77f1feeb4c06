package io.shipstream.failover.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.StatusRuntimeException;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.workflows.PlannedFailoverWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.testserver.TestServer;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The worker process as a user meets it: started against an in-process Temporal test server and
 * a mock Kubernetes API, it answers its probes, runs a planned failover end to end and shows it
 * in {@code /metrics}.
 */
class WorkerAppTest {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static final GroupRef ORDERS = new GroupRef(MockCluster.NAMESPACE, "orders");
  private static final Duration HEALTH_CHECK_INTERVAL = Duration.ofMillis(200);
  // gRPC logs through java.util.logging; stopping the in-process server mid-call makes it print
  // stack traces at INFO. The reference keeps the level from being lost with a collected logger.
  private static final java.util.logging.Logger GRPC_LOG = java.util.logging.Logger.getLogger("io.grpc");

  static {
    GRPC_LOG.setLevel(java.util.logging.Level.WARNING);
  }

  private TestServer.InProcessTestServer temporal;
  private WorkflowServiceStubs service;
  private MockCluster cluster;
  private WorkerConfig config;
  private WorkerApp app;
  private boolean temporalClosed;

  @BeforeEach
  void start() {
    // Locked time skipping: the server runs on the wall clock, as a real one would.
    temporal = TestServer.createServer(true);
    service = WorkflowServiceStubs.newServiceStubs(
        WorkflowServiceStubsOptions.newBuilder().setChannel(temporal.getChannel()).build());
    cluster = MockCluster.start();
    config = WorkerConfig.from(Map.of("HTTP_PORT", "0", "METRICS_REPORT_INTERVAL", "100ms",
        "SHUTDOWN_TIMEOUT", "5s"), new String[0]);
    app = WorkerApp.start(config, cluster.client(), service, HEALTH_CHECK_INTERVAL);
  }

  @AfterEach
  void stop() {
    app.close();
    service.shutdownNow();
    if (!temporalClosed) {
      temporal.close();
    }
    cluster.close();
  }

  @Test
  void answersHealthAtOnceAndReadinessOnceItPollsTemporal() throws Exception {
    assertThat(get("/healthz").statusCode()).isEqualTo(200);

    HttpResponse<String> ready = await("/readyz", r -> r.statusCode() == 200);

    assertThat(ready.body()).isEqualTo("ready\n");
    assertThat(app.isReady()).isTrue();
    assertThat(get("/nothing-here").statusCode()).isEqualTo(404);
  }

  @Test
  void aPlannedFailoverToAnUnknownSiteIsRejectedOnTheResourceAndCountedInMetrics() throws Exception {
    cluster.createGroup(ORDERS.name(), List.of(MockCluster.site("orders", "iad", "10.0.1.10"),
        MockCluster.site("orders", "pdx", "10.0.2.10")),
        Map.of(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION, "nowhere"));
    WorkflowClient client = WorkflowClient.newInstance(service,
        WorkflowClientOptions.newBuilder().setNamespace(config.namespace()).build());
    PlannedFailoverWorkflow workflow = client.newWorkflowStub(PlannedFailoverWorkflow.class,
        WorkflowOptions.newBuilder().setWorkflowId(ORDERS.workflowId()).setTaskQueue(config.taskQueue())
            .setWorkflowExecutionTimeout(Duration.ofSeconds(30)).build());

    PlannedFailoverStatus result = workflow.run(new PlannedFailoverWorkflow.Request(ORDERS, "nowhere"));

    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).isEqualTo("UnknownSite");
    MysqlFailoverGroup cr = cluster.group(ORDERS);
    assertThat(cr.getStatus().plannedFailover().phase()).isEqualTo("Failed");
    assertThat(cr.getStatus().plannedFailover().reason()).isEqualTo("UnknownSite");
    assertThat(cr.getMetadata().getAnnotations()).doesNotContainKey(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION);

    Pattern rejected = Pattern.compile(
        "(?m)^bloodraven_planned_failovers_total\\{[^}]*result=\"rejected\"[^}]*target_site=\"nowhere\"[^}]*} 1\\.0$");
    HttpResponse<String> metrics = await("/metrics",
        r -> rejected.matcher(r.body()).find() && r.body().contains("temporal_workflow_completed_total{"));
    assertThat(metrics.headers().firstValue("Content-Type")).hasValue(HttpEndpoints.PROMETHEUS_TEXT);
    assertThat(metrics.body()).as("the JVM's metrics are in the same scrape").contains("jvm_memory_used_bytes{");
  }

  /**
   * A watcher of a later release may send a request with fields this worker does not know (in a
   * rolling upgrade the two are different releases): the worker reads it, ignoring them, through
   * {@code PayloadConverter}. With the SDK's default converter the workflow task fails to decode
   * the input and the run never starts its work.
   */
  @Test
  void aRequestWithFieldsOfALaterReleaseIsRead() {
    cluster.createGroup(ORDERS.name(), List.of(MockCluster.site("orders", "iad", "10.0.1.10"),
        MockCluster.site("orders", "pdx", "10.0.2.10")),
        Map.of(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION, "nowhere"));
    WorkflowClient client = WorkflowClient.newInstance(service,
        WorkflowClientOptions.newBuilder().setNamespace(config.namespace()).build());
    WorkflowStub workflow = client.newUntypedWorkflowStub("PlannedFailover", WorkflowOptions.newBuilder()
        .setWorkflowId(ORDERS.workflowId()).setTaskQueue(config.taskQueue())
        .setWorkflowExecutionTimeout(Duration.ofSeconds(20)).build());
    Map<String, Object> later = Map.of("group", Map.of("namespace", ORDERS.namespace(), "name", ORDERS.name(),
        "cluster", "a later release's"), "annotation", "nowhere", "requestedBy", "a later release's watcher");

    workflow.start(later);

    PlannedFailoverStatus result = workflow.getResult(PlannedFailoverStatus.class);
    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).as("the run read the annotation of a request it had fields too many for")
        .isEqualTo("UnknownSite");
  }

  @Test
  void closeStopsPollingAndTheHttpPortAndIsSafeTwice() throws Exception {
    await("/readyz", r -> r.statusCode() == 200);

    app.close();
    app.close();

    assertThat(app.isReady()).isFalse();
    assertThatThrownBy(() -> get("/healthz")).isInstanceOf(ConnectException.class);
  }

  @Test
  void isNotReadyWhileTemporalDoesNotAnswer() throws Exception {
    await("/readyz", r -> r.statusCode() == 200);
    temporal.close();
    temporalClosed = true;

    HttpResponse<String> notReady = awaitAfter(HEALTH_CHECK_INTERVAL, "/readyz", r -> r.statusCode() == 503);

    assertThat(notReady.body()).startsWith("not ready");
    assertThat(get("/healthz").statusCode()).as("the process itself is fine").isEqualTo(200);
  }

  @Test
  void startFailsWhenTemporalIsUnreachableAndReleasesItsPort() throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    WorkerConfig unreachable = WorkerConfig.from(Map.of("HTTP_PORT", Integer.toString(port)), new String[0]);
    WorkflowServiceStubs nowhere = WorkflowServiceStubs.newServiceStubs(
        WorkflowServiceStubsOptions.newBuilder().setTarget("127.0.0.1:1").build());
    try {
      assertThatThrownBy(() -> WorkerApp.start(unreachable, cluster.client(), nowhere))
          .isInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining("UNAVAILABLE");
    } finally {
      nowhere.shutdownNow();
    }

    try (ServerSocket again = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      assertThat(again.getLocalPort()).as("the HTTP port was closed on the way out").isEqualTo(port);
    }
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.httpPort() + path))
        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> await(String path, Predicate<HttpResponse<String>> condition) throws Exception {
    return awaitAfter(Duration.ZERO, path, condition);
  }

  /** Polls until the condition holds, for up to ten seconds more than {@code slack}. */
  private HttpResponse<String> awaitAfter(Duration slack, String path, Predicate<HttpResponse<String>> condition)
      throws Exception {
    Instant deadline = Instant.now().plus(slack).plusSeconds(10);
    HttpResponse<String> last = get(path);
    while (!condition.test(last)) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("GET " + path + " never met the condition; last answer " + last.statusCode()
            + ":\n" + last.body());
      }
      Thread.sleep(50);
      last = get(path);
    }
    return last;
  }
}
