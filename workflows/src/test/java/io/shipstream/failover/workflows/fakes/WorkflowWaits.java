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

  /** Waits until {@code read} gives a value {@code done} accepts, and returns it: the current details, say. */
  public static <T> T await(Supplier<T> read, java.util.function.Predicate<T> done, String what) {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    T last = read.get();
    while (!done.test(last)) {
      if (System.nanoTime() > until) {
        throw new AssertionError("never saw " + what + "; the last value: " + last);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what);
      }
      last = read.get();
    }
    return last;
  }
}
