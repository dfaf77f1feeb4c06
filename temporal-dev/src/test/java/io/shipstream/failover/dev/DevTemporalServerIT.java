package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.api.workflowservice.v1.PollActivityTaskQueueRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** The dev Temporal server over real gRPC, as the worker, the watcher and the playground use it. */
class DevTemporalServerIT {

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
}
