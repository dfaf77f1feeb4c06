package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import java.time.Duration;
import java.time.Instant;

/**
 * The one piece of state an emergency-failover workflow carries: everything that ends up in
 * {@code status.emergencyFailover}. Mutated only by the workflow thread; {@link #toStatus()} is the
 * immutable view written to the resource and returned by the {@code status} query.
 */
final class EmergencyFailoverProgress {
  EmergencyPhase phase = EmergencyPhase.Pending;
  String failedSite;
  String target;
  String trigger;
  Reason reason;
  Instant startTime;
  Instant completionTime;
  Boolean oldPrimaryFenced;
  String oldPrimaryLastKnownGtid;
  String targetGtidAtPromotion;
  Long transactionsLost;
  String lostGtid;
  String message;

  EmergencyFailoverStatus toStatus() {
    Double duration = startTime == null || completionTime == null ? null
        : Duration.between(startTime, completionTime).toMillis() / 1000.0;
    return new EmergencyFailoverStatus(
        phase.name(),
        failedSite,
        target,
        trigger,
        reason == null ? null : reason.name(),
        startTime == null ? null : startTime.toString(),
        completionTime == null ? null : completionTime.toString(),
        duration,
        oldPrimaryFenced,
        oldPrimaryLastKnownGtid,
        targetGtidAtPromotion,
        transactionsLost,
        lostGtid,
        message);
  }

  /** Adds to the message rather than replacing it: every warning of the run stays visible. */
  void note(String text) {
    message = message == null || message.isBlank() ? text : message + "; " + text;
  }
}
