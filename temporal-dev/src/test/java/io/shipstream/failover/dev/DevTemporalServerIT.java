package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.shipstream.failover.model.topology.GroupConditions;
import io.shipstream.failover.watcher.RegisteredSearchAttributes;
import io.shipstream.failover.workflows.SearchAttributes;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.nexus.v1.Endpoint;
import io.temporal.api.nexus.v1.EndpointSpec;
import io.temporal.api.nexus.v1.EndpointTarget;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.CreateNexusEndpointRequest;
import io.temporal.api.operatorservice.v1.GetNexusEndpointRequest;
import io.temporal.api.operatorservice.v1.ListClustersRequest;
import io.temporal.api.operatorservice.v1.ListNexusEndpointsRequest;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.RemoveSearchAttributesRequest;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.api.workflowservice.v1.PollActivityTaskQueueRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** The dev Temporal server over real gRPC, as the worker, the watcher and the playground use it. */
class DevTemporalServerIT {

  /**
   * The watcher's {@code SearchAttributesRegistered} check against the dev server: it lists what
   * was registered (the test server alone answered UNIMPLEMENTED, so the condition stayed
   * Unknown/CannotList), and a later registration or removal shows in the next listing.
   */
  @Test
  void listsTheSearchAttributesItRegisteredSoTheWatchersCheckIsComputed() {
    try (DevTemporalServer server = DevTemporalServer.start(0)) {
      WorkflowClient client = WorkflowClient.newInstance(server.stubs());
      GroupConditions.SearchAttributeCheck check = RegisteredSearchAttributes.of(client).check();
      assertThat(check).as("listed, nothing missing").isEqualTo(GroupConditions.SearchAttributeCheck.listed(Set.of()));

      OperatorServiceStubs operator = operator(server);
      ListSearchAttributesRequest list = ListSearchAttributesRequest.newBuilder().setNamespace("default").build();
      assertThat(operator.blockingStub().listSearchAttributes(list).getCustomAttributesMap())
          .containsEntry(SearchAttributes.GROUP.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD)
          .containsEntry(SearchAttributes.TARGET.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD)
          .containsEntry(SearchAttributes.PHASE.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD)
          .doesNotContainKey("ShopRegion");

      operator.blockingStub().addSearchAttributes(AddSearchAttributesRequest.newBuilder().setNamespace("default")
          .putSearchAttributes("ShopRegion", IndexedValueType.INDEXED_VALUE_TYPE_TEXT).build());
      operator.blockingStub().removeSearchAttributes(RemoveSearchAttributesRequest.newBuilder().setNamespace("default")
          .addSearchAttributes(SearchAttributes.PHASE.getName()).build());
      assertThat(operator.blockingStub().listSearchAttributes(list).getCustomAttributesMap())
          .containsEntry("ShopRegion", IndexedValueType.INDEXED_VALUE_TYPE_TEXT)
          .doesNotContainKey(SearchAttributes.PHASE.getName());
      assertThat(RegisteredSearchAttributes.of(client).check())
          .isEqualTo(GroupConditions.SearchAttributeCheck.listed(Set.of(SearchAttributes.PHASE.getName())));
    }
  }

  /**
   * Every other operator call is the test server's own: a Nexus endpoint created through the dev
   * server is found there, and a call the test server does not implement still answers UNIMPLEMENTED.
   */
  @Test
  void everyOtherOperatorCallIsTheTestServersOwn() {
    try (DevTemporalServer server = DevTemporalServer.start(0)) {
      OperatorServiceStubs operator = operator(server);
      EndpointSpec spec = EndpointSpec.newBuilder().setName("orders-hooks").setTarget(EndpointTarget.newBuilder()
          .setWorker(EndpointTarget.Worker.newBuilder().setNamespace("default").setTaskQueue("nexus"))).build();
      Endpoint created = operator.blockingStub().createNexusEndpoint(CreateNexusEndpointRequest.newBuilder()
          .setSpec(spec).build()).getEndpoint();

      assertThat(operator.blockingStub().getNexusEndpoint(GetNexusEndpointRequest.newBuilder()
          .setId(created.getId()).build()).getEndpoint().getSpec()).isEqualTo(spec);
      assertThat(operator.blockingStub().listNexusEndpoints(ListNexusEndpointsRequest.newBuilder()
          .setName("orders-hooks").build()).getEndpointsList()).extracting(Endpoint::getId)
          .containsExactly(created.getId());
      assertThatThrownBy(() -> operator.blockingStub().listClusters(ListClustersRequest.getDefaultInstance()))
          .isInstanceOfSatisfying(StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED));
    }
  }

  private static OperatorServiceStubs operator(DevTemporalServer server) {
    return OperatorServiceStubs.newServiceStubs(OperatorServiceStubsOptions.newBuilder()
        .setChannel(server.stubs().getRawChannel()).validateAndBuildWithDefaults());
  }

  /**
   * A client pinging every 10 s (the SDK pings every 30 s; gRPC lets a client go no lower than 10)
   * with a long poll open, as a worker's, is never sent away with GOAWAY too_many_pings. Under
   * gRPC's server defaults the third ping, 30 s in, was.
   */
  @Test
  void clientsThatPingAsARealFrontendPermitsAreNeverSentAway() throws Exception {
    List<String> goAways = new CopyOnWriteArrayList<>();
    Handler capture = new Handler() {
      @Override
      public void publish(LogRecord record) {
        String text = record.getMessage() + " " + Arrays.toString(record.getParameters());
        if (text.contains("ENHANCE_YOUR_CALM") || text.contains("too_many_pings")) {
          goAways.add(record.getLoggerName() + ": " + text);
        }
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    Logger grpc = Logger.getLogger("io.grpc");
    grpc.addHandler(capture);
    try (DevTemporalServer server = DevTemporalServer.start(0)) {
      WorkflowServiceStubs client = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
          .setTarget(server.target()).setKeepAliveTime(DevTemporalServer.PERMITTED_KEEPALIVE).build());
      try {
        client.futureStub().pollActivityTaskQueue(PollActivityTaskQueueRequest.newBuilder().setNamespace("default")
            .setTaskQueue(TaskQueue.newBuilder().setName("nobody-serves-this")).build());
        Thread.sleep(Duration.ofSeconds(35).toMillis());
        assertThat(client.blockingStub().getSystemInfo(GetSystemInfoRequest.getDefaultInstance())).isNotNull();
      } finally {
        client.shutdownNow();
      }
    } finally {
      grpc.removeHandler(capture);
    }
    assertThat(goAways).isEmpty();
  }

  /** A worker process's /readyz asks gRPC's health check (it answered UNIMPLEMENTED, never ready). */
  @Test
  void answersTheHealthCheckAWorkersReadinessAsks() {
    try (DevTemporalServer server = DevTemporalServer.start(0)) {
      assertThat(server.stubs().healthCheck().getStatus())
          .isEqualTo(io.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING);
    }
  }

  /** A workflow that waits for one signal. */
  @io.temporal.workflow.WorkflowInterface
  public interface Waits {
    @io.temporal.workflow.WorkflowMethod
    String run();

    @io.temporal.workflow.SignalMethod
    void go(String value);
  }

  public static final class WaitsImpl implements Waits {
    private String value;

    @Override
    public String run() {
      io.temporal.workflow.Workflow.await(() -> value != null);
      return value;
    }

    @Override
    public void go(String v) {
      value = v;
    }
  }

  /**
   * A worker with the SDK's defaults (sticky execution, a cache), as a released worker process
   * runs, stopped while its workflow waits: with {@link DevTemporalServer#ignoreStickyExecution}
   * the next task goes to the shared queue and a new worker finishes the run (without it, the test
   * server kept the task on the stopped worker's sticky queue and the run never went on).
   */
  @Test
  void withStickyExecutionIgnoredAStoppedWorkersRunGoesOnOnTheNextWorker() {
    try (DevTemporalServer server = DevTemporalServer.start(0)) {
      server.ignoreStickyExecution();
      WorkflowClient client = WorkflowClient.newInstance(server.stubs());
      io.temporal.worker.WorkerFactory first = stickyWorker(client);
      Waits stub = client.newWorkflowStub(Waits.class, io.temporal.client.WorkflowOptions.newBuilder()
          .setTaskQueue("sticky").setWorkflowId("waits").build());
      WorkflowClient.start(stub::run);
      // The first task has run on the first worker once the history holds its completion.
      long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (client.fetchHistory("waits").getEvents().stream()
          .noneMatch(e -> e.getEventType()
          == io.temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)
          && System.nanoTime() < until) {
        Playground.sleep(50);
      }
      first.shutdown();
      first.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
      io.temporal.worker.WorkerFactory second = stickyWorker(client);
      try {
        stub.go("done");
        assertThat(client.newUntypedWorkflowStub("waits").getResult(20, java.util.concurrent.TimeUnit.SECONDS,
            String.class)).isEqualTo("done");
      } catch (java.util.concurrent.TimeoutException e) {
        throw new AssertionError("the run did not go on on the second worker within 20 s", e);
      } finally {
        second.shutdownNow();
      }
    }
  }

  private static io.temporal.worker.WorkerFactory stickyWorker(WorkflowClient client) {
    io.temporal.worker.WorkerFactory factory = io.temporal.worker.WorkerFactory.newInstance(client);
    factory.newWorker("sticky").registerWorkflowImplementationTypes(WaitsImpl.class);
    factory.start();
    return factory;
  }
}
