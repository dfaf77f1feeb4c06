package io.shipstream.failover.workflows.common;

import io.temporal.api.enums.v1.RetryState;
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
 * the window on another worker. There a step gets one attempt. When that worker is gone (it
 * crashed, or a restarted worker took the workflow over) the step is never started there and,
 * after {@link ActivityStubs#OWN_QUEUE_START}, goes to the shared queue; so does a step whose
 * attempt there failed in a way its retries would have covered (a timeout, a lost connection),
 * with the stub's whole retry budget. Every later step of the run then goes to the shared queue
 * too. A failure no retry would change (a lag timeout, a refused promotion) is the step's
 * outcome, as on the shared queue. Workflow code.
 */
public final class OnConnections {
  private static final Logger log = Workflow.getLogger(OnConnections.class);

  private final FailoverRun run;
  // An attempt on the own queue timed out after it had started: it may still be running there.
  private boolean leftAnAttempt;

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
      if (!retryElsewhere(e)) {
        throw e;
      }
      giveUp(queue, e);
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
      if (failure instanceof ActivityFailure e && retryElsewhere(e)) {
        giveUp(queue, e);
        return step.apply(null);
      }
      return Workflow.<R>newFailedPromise(failure);
    }).thenCompose(next -> next);
  }

  /**
   * Runs {@code step} before the write window, on the own queue when there is one, and returns its
   * failure to the caller as it is: nothing is held yet, so nothing is retried elsewhere. A step
   * that never started there tells that the worker is gone, and the window's steps then go to the
   * shared queue from the start instead of each waiting {@link ActivityStubs#OWN_QUEUE_START} first.
   */
  public <R> Promise<R> ahead(Functions.Func1<String, Promise<R>> step) {
    String queue = run.connectionsQueue;
    if (queue == null) {
      return step.apply(null);
    }
    return step.apply(queue).handle((result, failure) -> {
      if (failure instanceof ActivityFailure e && neverStarted(e)) {
        giveUp(queue, e);
      }
      if (failure != null) {
        throw failure;
      }
      return result;
    });
  }

  private void giveUp(String queue, ActivityFailure e) {
    log.warn("{}: a step on {} (the worker that opened the connections) did not complete ({}); this run's steps "
        + "go to the shared queue", run.group, queue, Failures.rootMessage(e));
    if (queue.equals(run.connectionsQueue)) {
      run.connectionsQueue = null;
    }
    if (e.getCause() instanceof TimeoutFailure timeout
        && timeout.getTimeoutType() != TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START) {
      leftAnAttempt = true;
    }
  }

  /**
   * Whether a step moved to the shared queue after its attempt on the own queue had started and
   * timed out: that attempt may still be running on a worker that is not dead but hung.
   */
  public boolean leftAnAttemptRunning() {
    return leftAnAttempt;
  }

  /**
   * The one attempt on the own queue never started (its worker is gone), or failed in a way the
   * stub's retries would have tried again: on the shared queue, they do.
   */
  static boolean retryElsewhere(ActivityFailure e) {
    return neverStarted(e) || e.getRetryState() == RetryState.RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED;
  }

  /** The attempt on the own queue was never started within {@link ActivityStubs#OWN_QUEUE_START}: that worker is gone. */
  private static boolean neverStarted(ActivityFailure e) {
    return e.getCause() instanceof TimeoutFailure timeout
        && timeout.getTimeoutType() == TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START;
  }
}
