package io.shipstream.failover.workflows.planned;

import io.shipstream.failover.model.Reason;

/**
 * Raised inside the workflow when a step before the point of no return cannot go on. It never
 * leaves the workflow: {@link PlannedFailoverWorkflowImpl} catches it, rolls back and records the
 * reason, so the workflow itself completes normally with phase Failed.
 */
final class FailoverAbort extends RuntimeException {
  final Reason reason;

  FailoverAbort(Reason reason, String message) {
    super(message, null, false, false);
    this.reason = reason;
  }
}
