package io.shipstream.failover.dev;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.shipstream.failover.workflows.SearchAttributes;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.OperatorServiceGrpc;
import io.temporal.internal.testservice.TestServicesStarter;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Temporal's Java test server as a real gRPC endpoint on 127.0.0.1 only, in real time (no time
 * skipping), with the failover search attributes registered, and listed as a real frontend lists
 * them ({@link DevOperatorService}). It is what the playground and the integration tests talk to,
 * over the same gRPC a production worker uses; it keeps no state on disk and dies with the JVM.
 */
public final class DevTemporalServer implements AutoCloseable {
  /** The shortest keepalive ping interval the server accepts from a client. */
  static final Duration PERMITTED_KEEPALIVE = Duration.ofSeconds(10);
  /** The service name a Temporal client's health check asks about. */
  static final String HEALTH_SERVICE = "temporal.api.workflowservice.v1.WorkflowService";

  private final TestServicesStarter services;
  private final Server server;
  private final WorkflowServiceStubs stubs;
  private final StickyQueues sticky;

  private DevTemporalServer(TestServicesStarter services, Server server, StickyQueues sticky) {
    this.services = services;
    this.server = server;
    this.sticky = sticky;
    this.stubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
        .setTarget(target()).build());
  }

  /** Starts on the given port of 127.0.0.1; 0 picks a free one. */
  public static DevTemporalServer start(int port) {
    TestServicesStarter services = new TestServicesStarter(true, 0);
    NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
        // What a real frontend permits (frontend.keepAliveMinTime 10s, keepAlivePermitWithoutStream
        // true). gRPC's server defaults (one ping per 5 minutes, none without a call) are stricter
        // than the SDK's clients, which ping every 30 s: the server answered with GOAWAY
        // too_many_pings, every client logged it and reconnected, again and again for as long as
        // a stack stayed up.
        .permitKeepAliveTime(PERMITTED_KEEPALIVE.toMillis(), TimeUnit.MILLISECONDS)
        .permitKeepAliveWithoutCalls(true);
    // The test server's operator service cannot list search attributes; its stand-in can.
    StickyQueues sticky = new StickyQueues();
    services.getServices().forEach(service -> builder.addService(
        service instanceof OperatorServiceGrpc.OperatorServiceImplBase operator
            ? DevOperatorService.around(operator) : io.grpc.ServerInterceptors.intercept(service, sticky)));
    // A real frontend answers gRPC's health check, which a worker process's /readyz asks
    // (WorkflowServiceStubs.healthCheck); the test server does not serve it.
    io.grpc.protobuf.services.HealthStatusManager health = new io.grpc.protobuf.services.HealthStatusManager();
    health.setStatus(HEALTH_SERVICE, io.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING);
    builder.addService(health.getHealthService());
    try {
      Server server = builder.build().start();
      DevTemporalServer dev = new DevTemporalServer(services, server, sticky);
      dev.registerSearchAttributes();
      return dev;
    } catch (IOException e) {
      services.close();
      throw new UncheckedIOException("could not bind the Temporal dev server to 127.0.0.1:" + port, e);
    }
  }

  private void registerSearchAttributes() {
    OperatorServiceStubs operator = OperatorServiceStubs.newServiceStubs(OperatorServiceStubsOptions.newBuilder()
        .setChannel(stubs.getRawChannel()).validateAndBuildWithDefaults());
    operator.blockingStub().addSearchAttributes(AddSearchAttributesRequest.newBuilder()
        .setNamespace("default")
        .putAllSearchAttributes(Map.of(
            SearchAttributes.GROUP.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
            SearchAttributes.TARGET.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
            SearchAttributes.PHASE.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD))
        .build());
  }

  /**
   * From now on, no worker's request for sticky execution is passed on: every workflow task goes
   * to the shared queue with the full history. A real server moves a task back to the shared queue
   * when a sticky worker went away (after the sticky schedule-to-start timeout); the test server
   * never does (see ControlPlane.startWorker), so a worker process stopped in a rolling upgrade,
   * which ran with the SDK's sticky defaults, would keep its workflows' next tasks on its queue
   * forever. The in-process workers turn sticky execution off themselves; a process of another
   * release cannot be told to.
   */
  public void ignoreStickyExecution() {
    sticky.ignore = true;
  }

  /** Strips a completed workflow task's sticky attributes while {@link #ignoreStickyExecution} is on. */
  private static final class StickyQueues implements io.grpc.ServerInterceptor {
    private static final String COMPLETED = io.temporal.api.workflowservice.v1.WorkflowServiceGrpc
        .getRespondWorkflowTaskCompletedMethod().getFullMethodName();
    private volatile boolean ignore;

    @Override
    public <Q, A> io.grpc.ServerCall.Listener<Q> interceptCall(io.grpc.ServerCall<Q, A> call,
        io.grpc.Metadata headers, io.grpc.ServerCallHandler<Q, A> next) {
      io.grpc.ServerCall.Listener<Q> listener = next.startCall(call, headers);
      if (!COMPLETED.equals(call.getMethodDescriptor().getFullMethodName())) {
        return listener;
      }
      return new io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
        @Override
        @SuppressWarnings("unchecked")
        public void onMessage(Q message) {
          if (ignore && message instanceof io.temporal.api.workflowservice.v1.RespondWorkflowTaskCompletedRequest r) {
            message = (Q) r.toBuilder().clearStickyAttributes().build();
          }
          super.onMessage(message);
        }
      };
    }
  }

  public int port() {
    return server.getPort();
  }

  /** {@code 127.0.0.1:port}, what a worker, the watcher or the Temporal CLI is pointed at. */
  public String target() {
    return "127.0.0.1:" + server.getPort();
  }

  /** A connection shared by everything in this JVM. */
  public WorkflowServiceStubs stubs() {
    return stubs;
  }

  @Override
  public void close() {
    stubs.shutdownNow();
    server.shutdownNow();
    services.close();
  }
}
