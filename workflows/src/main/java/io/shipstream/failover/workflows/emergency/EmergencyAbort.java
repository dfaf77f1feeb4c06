package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.model.Reason;

/**
 * Raised inside the workflow when a step before promotion cannot go on. It never leaves the
 * workflow: {@link EmergencyFailoverWorkflowImpl} catches it, undoes the fence if there was one and
 * records the reason, so the workflow itself completes normally with phase Failed. {@link
 * CandidatePromotion} returns one instead when the promotion cannot go on: nothing is undone then.
 */
final class EmergencyAbort extends RuntimeException {
  final Reason reason;

  EmergencyAbort(Reason reason, String message) {
    super(message, null, false, false);
    this.reason = reason;
  }
}
