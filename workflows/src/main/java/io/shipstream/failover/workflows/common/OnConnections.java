package io.shipstream.failover.workflows.common;

import io.temporal.api.enums.v1.TimeoutType;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.TimeoutFailure;
import io.temporal.workflow.Functions;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import org.slf4j.Logger;

/**
 * The write window's MySQL steps sent to the worker whose kept connections the validation opened
 * and checked ({@code MysqlActivities#connectionsQueue}), so that none opens a connection inside
 * the window on another worker. When that worker is gone (it crashed, or a restarted worker took
 * over the workflow) a step sent there is never started: after {@link
 * ActivityStubs#OWN_QUEUE_START} it goes to the shared queue instead, and so does every later step
 * of the run. A step that never started did nothing, so sending it again is sending it once.
 * Workflow code.
 */
public final class OnConnections {
  private static final Logger log = Workflow.getLogger(OnConnections.class);

  private final FailoverRun run;

  public OnConnections(FailoverRun run) {
    this.run = run;
  }

  /** Runs {@code step} with the stub's queue (null: the shared queue), on the shared one if the own queue's worker is gone. */
  public <R> R call(Functions.Func1<String, R> step) {
    String queue = run.connectionsQueue;
    if (queue == null) {
      return step.apply(null);
    }
    try {
      return step.apply(queue);
    } catch (ActivityFailure e) {
      if (!neverStarted(e)) {
        throw e;
      }
      giveUp(queue);
      return step.apply(null);
    }
  }

  /** As {@link #call}, for a step started asynchronously. */
  public <R> Promise<R> async(Functions.Func1<String, Promise<R>> step) {
    String queue = run.connectionsQueue;
    if (queue == null) {
      return step.apply(null);
    }
    return step.apply(queue).handle((result, failure) -> {
      if (failure == null) {
        return Workflow.newPromise(result);
      }
      if (failure instanceof ActivityFailure e && neverStarted(e)) {
        giveUp(queue);
        return step.apply(null);
      }
      return Workflow.<R>newFailedPromise(failure);
    }).thenCompose(next -> next);
  }

  private void giveUp(String queue) {
    log.warn("{}: no worker started a step on {} within {}: the worker that opened the connections is gone; "
        + "this run's steps go to the shared queue", run.group, queue, ActivityStubs.OWN_QUEUE_START);
    if (queue.equals(run.connectionsQueue)) {
      run.connectionsQueue = null;
    }
  }

  static boolean neverStarted(ActivityFailure e) {
    return e.getCause() instanceof TimeoutFailure timeout
        && timeout.getTimeoutType() == TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START;
  }
}
