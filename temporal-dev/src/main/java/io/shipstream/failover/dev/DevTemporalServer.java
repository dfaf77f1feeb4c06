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

  private final TestServicesStarter services;
  private final Server server;
  private final WorkflowServiceStubs stubs;

  private DevTemporalServer(TestServicesStarter services, Server server) {
    this.services = services;
    this.server = server;
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
    services.getServices().forEach(service -> builder.addService(
        service instanceof OperatorServiceGrpc.OperatorServiceImplBase operator ? new DevOperatorService(operator)
            : service));
    try {
      Server server = builder.build().start();
      DevTemporalServer dev = new DevTemporalServer(services, server);
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
