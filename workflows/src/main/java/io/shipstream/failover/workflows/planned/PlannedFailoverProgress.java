package io.shipstream.failover.workflows.planned;

import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import java.time.Duration;
import java.time.Instant;

/**
 * The one piece of state a planned-failover workflow carries: everything that ends up in
 * {@code status.plannedFailover}. Mutated only by the workflow thread; {@link #toStatus()} is the
 * immutable view written to the resource and returned by the {@code status} query.
 */
final class PlannedFailoverProgress {
  Phase phase = Phase.Pending;
  String target;
  String sourcePrimary;
  String sourceGtidAtFence;
  String targetGtidAtPromotion;
  Instant startTime;
  Instant completionTime;
  Long transactionsLost;
  Reason reason;
  Instant retryAfter;
  String message;
  boolean dragonflyEnabled;
  /** Set once the session store's fate is known: true only for a proven, lossless hand-over. */
  Boolean sessionsPreserved;
  String promotionMethod;
  Double syncWaitSeconds;

  PlannedFailoverStatus toStatus() {
    Double duration = startTime == null || completionTime == null ? null
        : Duration.between(startTime, completionTime).toMillis() / 1000.0;
    return new PlannedFailoverStatus(
        phase.name(),
        target,
        sourcePrimary,
        sourceGtidAtFence,
        targetGtidAtPromotion,
        startTime == null ? null : startTime.toString(),
        completionTime == null ? null : completionTime.toString(),
        duration,
        transactionsLost,
        reason == null ? null : reason.name(),
        retryAfter == null ? null : retryAfter.toString(),
        message,
        new PlannedFailoverStatus.DragonflyStatus(dragonflyEnabled, sessionsPreserved, promotionMethod,
            syncWaitSeconds));
  }
}
