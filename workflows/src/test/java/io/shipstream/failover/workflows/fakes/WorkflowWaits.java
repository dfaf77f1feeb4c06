package io.shipstream.failover.workflows.fakes;

import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/** The bounded waits of the workflow tests: nothing may hang the build. */
public final class WorkflowWaits {
  private WorkflowWaits() {}

  /**
   * The workflow's result, bounded: a workflow that never ends fails the test with its history in
   * the message, instead of hanging the build.
   */
  public static <T> T result(WorkflowClient client, String workflowId, WorkflowStub stub, Class<T> type) {
    try {
      return stub.getResult(60, TimeUnit.SECONDS, type);
    } catch (TimeoutException e) {
      StringBuilder history = new StringBuilder();
      client.fetchHistory(workflowId).getEvents().forEach(ev -> history.append('\n')
          .append(ev.getEventId()).append(' ').append(ev.getEventType()));
      throw new AssertionError("the workflow did not end within 60 s; its history:" + history, e);
    }
  }

  /** Waits until the resource's status shows the phase, as a user watching kubectl would. */
  public static void awaitPhase(String phase, Supplier<String> statusPhase) {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < until) {
      if (phase.equals(statusPhase.get())) {
        return;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    throw new AssertionError("workflow never reached " + phase + "; status says " + statusPhase.get());
  }
}
