package io.shipstream.failover.model.crd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * {@code status.plannedFailover}, field for field as the planned-failover page documents it.
 * Times are RFC 3339 strings; {@code durationSeconds} is a number with millisecond precision so
 * that sub-second switchovers are visible. {@code scheduledAt} is the time a scheduled switchover
 * ({@code at=} in the annotation) waits for.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
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
    DragonflyStatus dragonfly,
    String scheduledAt,
    @com.fasterxml.jackson.annotation.JsonPropertyDescription("How long writes stopped: the source's fence to the "
        + "target writable, measured on the servers' side; set once the target is writable.")
    WriteWindow writeWindow,
    @com.fasterxml.jackson.annotation.JsonPropertyDescription("The replication channels the switchover re-pointed, "
        + "read back once it ran: their TLS and whether their IO thread connected.")
    java.util.List<ChannelCheck> channels) {

  /** Without {@code channels}: a run that re-pointed nothing (yet). */
  public PlannedFailoverStatus(String phase, String target, String sourcePrimary, String sourceGtidAtFence,
      String targetGtidAtPromotion, String startTime, String completionTime, Double durationSeconds,
      Long transactionsLost, String reason, String retryAfter, String message, DragonflyStatus dragonfly,
      String scheduledAt, WriteWindow writeWindow) {
    this(phase, target, sourcePrimary, sourceGtidAtFence, targetGtidAtPromotion, startTime, completionTime,
        durationSeconds, transactionsLost, reason, retryAfter, message, dragonfly, scheduledAt, writeWindow, null);
  }

  /** Without {@code writeWindow}: a run whose target was not made writable (yet). */
  public PlannedFailoverStatus(String phase, String target, String sourcePrimary, String sourceGtidAtFence,
      String targetGtidAtPromotion, String startTime, String completionTime, Double durationSeconds,
      Long transactionsLost, String reason, String retryAfter, String message, DragonflyStatus dragonfly,
      String scheduledAt) {
    this(phase, target, sourcePrimary, sourceGtidAtFence, targetGtidAtPromotion, startTime, completionTime,
        durationSeconds, transactionsLost, reason, retryAfter, message, dragonfly, scheduledAt, null);
  }

  /** Without {@code scheduledAt}: a request that carries no time. */
  public PlannedFailoverStatus(String phase, String target, String sourcePrimary, String sourceGtidAtFence,
      String targetGtidAtPromotion, String startTime, String completionTime, Double durationSeconds,
      Long transactionsLost, String reason, String retryAfter, String message, DragonflyStatus dragonfly) {
    this(phase, target, sourcePrimary, sourceGtidAtFence, targetGtidAtPromotion, startTime, completionTime,
        durationSeconds, transactionsLost, reason, retryAfter, message, dragonfly, null);
  }

  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record DragonflyStatus(Boolean enabled, Boolean sessionsPreserved, String promotionMethod,
      Double syncWaitSeconds) {}
}
