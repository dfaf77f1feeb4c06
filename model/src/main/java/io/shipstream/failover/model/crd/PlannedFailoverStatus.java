package io.shipstream.failover.model.crd;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * {@code status.plannedFailover}, field for field as the planned-failover page documents it.
 * Times are RFC 3339 strings; {@code durationSeconds} is a number with millisecond precision so
 * that sub-second switchovers are visible.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PlannedFailoverStatus(
    String phase,
    String target,
    String sourcePrimary,
    String sourceGtidAtFence,
    String targetGtidAtPromotion,
    String startTime,
    String completionTime,
    Double durationSeconds,
    Long transactionsLost,
    String reason,
    String retryAfter,
    String message,
    DragonflyStatus dragonfly) {

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record DragonflyStatus(Boolean enabled, Boolean sessionsPreserved, String promotionMethod, Double syncWaitSeconds) {}
}
