package io.shipstream.failover.workflows.common;

import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.crd.WriteWindow;
import java.time.Duration;
import java.time.Instant;

/**
 * The one piece of state a failover workflow carries: everything that ends up in
 * {@code status.plannedFailover} ({@link #toPlannedStatus}) or {@code status.emergencyFailover}
 * ({@link #toEmergencyStatus}). The fields both statuses have are shared; the others are read by
 * one of them only. Mutated only by the workflow thread; the statuses are the immutable views
 * written to the resource and returned by the {@code status} query.
 */
public final class FailoverProgress {
  public Phase phase = Phase.Pending;
  /** The site promoted: the planned target, the emergency candidate. */
  public String target;
  /** The site left: the planned source primary, the emergency failed site. */
  public String source;
  public Reason reason;
  public Instant startTime;
  public Instant completionTime;
  public String targetGtidAtPromotion;
  /** The target's executed set when the planned request was validated (for the current details only). */
  public String targetGtidAtValidation;
  public Long transactionsLost;
  public String message;
  /**
   * When the target began to take writes, as the activity that made it writable measured it (the
   * middle of that exchange); null until then, or from a worker that does not measure it.
   */
  public Instant targetWritableAt;

  // Planned only.
  public String sourceGtidAtFence;
  public Instant retryAfter;
  /** The time a scheduled request (at= in the annotation) waits for. */
  public Instant scheduledAt;
  public boolean dragonflyEnabled;
  /** Set once the session store's fate is known: true only for a proven, lossless hand-over. */
  public Boolean sessionsPreserved;
  public String promotionMethod;
  public Double syncWaitSeconds;
  /** When the source applied the fence, as the fence activity measured it; null until then. */
  public Instant sourceFencedAt;
  /** How long the lag gate took, by the workflow's clock; null until it ended. */
  public Double lagWaitSeconds;

  // Emergency only.
  public String trigger;
  /** When the watcher detected the primary lost (its request's word); null from an older watcher. */
  public Instant detectedAt;
  /** When the dead primary last answered the watcher's poll, where known. */
  public Instant lastPolledAt;
  public Boolean oldPrimaryFenced;
  public String oldPrimaryLastKnownGtid;
  public String lostGtid;
  /** Which sets {@link #transactionsLost} compares, in words ({@code status.emergencyFailover.lossComputedFrom}). */
  public String lossComputedFrom;
  /** Set when a human's promote-anyway request overrode the lag limit. */
  public EmergencyFailoverStatus.ForcedPromotion forcedPromotion;
  /** Set when the candidate waited for an old primary that nothing confirmed fenced. */
  public EmergencyFailoverStatus.OldPrimaryWait oldPrimaryWait;

  /** The channels the run re-pointed, read back after it ({@link ChannelReadBack}); null until then. */
  public java.util.List<io.shipstream.failover.model.crd.ChannelCheck> channels;

  /** Adds to the message rather than replacing it: every warning of the run stays visible. */
  public void note(String text) {
    message = message == null || message.isBlank() ? text : message + "; " + text;
  }

  public PlannedFailoverStatus toPlannedStatus() {
    return new PlannedFailoverStatus(
        phase.name(),
        target,
        source,
        sourceGtidAtFence,
        targetGtidAtPromotion,
        text(startTime),
        text(completionTime),
        durationSeconds(),
        transactionsLost,
        reason == null ? null : reason.name(),
        text(retryAfter),
        message,
        new PlannedFailoverStatus.DragonflyStatus(dragonflyEnabled, sessionsPreserved, promotionMethod,
            syncWaitSeconds),
        text(scheduledAt),
        plannedWindow(),
        channels);
  }

  /** The planned write window: the source's fence to the target writable, both measured by the activities. */
  public WriteWindow plannedWindow() {
    return WriteWindow.between(sourceFencedAt, targetWritableAt, lagWaitSeconds, null);
  }

  /** The emergency write window: the watcher's detection to the candidate writable. */
  public WriteWindow emergencyWindow() {
    return WriteWindow.between(detectedAt, targetWritableAt, null, detectedAt == null || lastPolledAt == null ? null
        : WriteWindow.seconds(Duration.between(lastPolledAt, detectedAt)));
  }

  public EmergencyFailoverStatus toEmergencyStatus() {
    return new EmergencyFailoverStatus(
        phase.name(),
        source,
        target,
        trigger,
        reason == null ? null : reason.name(),
        text(startTime),
        text(completionTime),
        durationSeconds(),
        oldPrimaryFenced,
        oldPrimaryLastKnownGtid,
        targetGtidAtPromotion,
        transactionsLost,
        lostGtid,
        message,
        forcedPromotion,
        lossComputedFrom,
        oldPrimaryWait,
        emergencyWindow(),
        channels);
  }

  private Double durationSeconds() {
    return startTime == null || completionTime == null ? null
        : Duration.between(startTime, completionTime).toMillis() / 1000.0;
  }

  private static String text(Instant t) {
    return t == null ? null : t.toString();
  }
}
