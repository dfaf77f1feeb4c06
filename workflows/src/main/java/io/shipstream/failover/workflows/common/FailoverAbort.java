package io.shipstream.failover.workflows.common;

import io.shipstream.failover.model.Reason;

/**
 * The one way a step before the point of no return stops a failover: thrown with the reason the
 * status records. It never leaves the workflow: the runbook's top method catches it, rolls back
 * what its {@link Rollback} holds and finishes as Failed, so the workflow itself completes
 * normally. From the promotion on, a step reports through a {@link PromotionOutcome} or a
 * warning instead, since nothing may be undone then.
 */
public final class FailoverAbort extends RuntimeException {
  private final Reason reason;

  public FailoverAbort(Reason reason, String message) {
    super(message, null, false, false);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
