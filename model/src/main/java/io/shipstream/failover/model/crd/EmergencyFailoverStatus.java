package io.shipstream.failover.model.crd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/**
 * {@code status.emergencyFailover}: the automatic failover the watcher started when the active
 * site failed. Times are RFC 3339 strings. {@code transactionsLost} and {@code lostGtid} say what
 * the promoted site never received; they are null only when the old primary's GTID set was never
 * known, and the message then says so, so a loss is never hidden behind a zero. {@code
 * lossComputedFrom} says which sets the number compares: a count is only as complete as the sets
 * it was computed from, and an old primary that could not be read at the fence may have committed
 * more than anybody saw (the watcher records that later, in {@code status.lostTransactions}, if it
 * comes back).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record EmergencyFailoverStatus(
    @JsonPropertyDescription("Pending | Fencing | Promoting | Resuming | Succeeded | Failed") String phase,
    @JsonPropertyDescription("The site whose primary failed.") String failedSite,
    @JsonPropertyDescription("The site promoted in its place.") String target,
    @JsonPropertyDescription("Why the watcher started the failover.") String trigger,
    @JsonPropertyDescription("Why a failed failover failed, as in plannedFailover.reason.") String reason,
    String startTime,
    String completionTime,
    Double durationSeconds,
    @JsonPropertyDescription("Whether the old primary was made read-only; false when it could not be reached.")
    Boolean oldPrimaryFenced,
    @JsonPropertyDescription("The old primary's GTID set: read at the fence when it answered, else as last seen by the watcher.")
    String oldPrimaryLastKnownGtid,
    String targetGtidAtPromotion,
    Long transactionsLost,
    @JsonPropertyDescription("The transactions of the old primary the new one does not hold.") String lostGtid,
    String message,
    @JsonPropertyDescription("Set when a human promoted the candidate over spec.emergencyFailover.maxLagOnPromotion "
        + "with the promote-anyway annotation: what was overridden.")
    ForcedPromotion forcedPromotion,
    @JsonPropertyDescription("What transactionsLost was computed from: whose GTID sets, read when, compared with the "
        + "promoted server's.")
    String lossComputedFrom,
    @JsonPropertyDescription("Set when the old primary's sidecar did not confirm it fenced: how long the candidate "
        + "waited before it was made writable, and what that bound rests on.")
    OldPrimaryWait oldPrimaryWait,
    @JsonPropertyDescription("How long writes stopped: the watcher's detection of the lost primary to the candidate "
        + "writable, and how long before the detection the dead primary last answered a poll.")
    WriteWindow writeWindow,
    @JsonPropertyDescription("The replication channels the failover re-pointed, read back once it ran: their TLS "
        + "and whether their IO thread connected.")
    java.util.List<ChannelCheck> channels) {

  /** A status without the channels read back. */
  public EmergencyFailoverStatus(String phase, String failedSite, String target, String trigger, String reason,
      String startTime, String completionTime, Double durationSeconds, Boolean oldPrimaryFenced,
      String oldPrimaryLastKnownGtid, String targetGtidAtPromotion, Long transactionsLost, String lostGtid,
      String message, ForcedPromotion forcedPromotion, String lossComputedFrom, OldPrimaryWait oldPrimaryWait,
      WriteWindow writeWindow) {
    this(phase, failedSite, target, trigger, reason, startTime, completionTime, durationSeconds, oldPrimaryFenced,
        oldPrimaryLastKnownGtid, targetGtidAtPromotion, transactionsLost, lostGtid, message, forcedPromotion,
        lossComputedFrom, oldPrimaryWait, writeWindow, null);
  }

  /** A status without its write window. */
  public EmergencyFailoverStatus(String phase, String failedSite, String target, String trigger, String reason,
      String startTime, String completionTime, Double durationSeconds, Boolean oldPrimaryFenced,
      String oldPrimaryLastKnownGtid, String targetGtidAtPromotion, Long transactionsLost, String lostGtid,
      String message, ForcedPromotion forcedPromotion, String lossComputedFrom, OldPrimaryWait oldPrimaryWait) {
    this(phase, failedSite, target, trigger, reason, startTime, completionTime, durationSeconds, oldPrimaryFenced,
        oldPrimaryLastKnownGtid, targetGtidAtPromotion, transactionsLost, lostGtid, message, forcedPromotion,
        lossComputedFrom, oldPrimaryWait, null);
  }

  /** A status without a forced promotion. */
  public EmergencyFailoverStatus(String phase, String failedSite, String target, String trigger, String reason,
      String startTime, String completionTime, Double durationSeconds, Boolean oldPrimaryFenced,
      String oldPrimaryLastKnownGtid, String targetGtidAtPromotion, Long transactionsLost, String lostGtid,
      String message) {
    this(phase, failedSite, target, trigger, reason, startTime, completionTime, durationSeconds, oldPrimaryFenced,
        oldPrimaryLastKnownGtid, targetGtidAtPromotion, transactionsLost, lostGtid, message, null, null, null);
  }

  /** A status with a forced promotion, without the loss's basis and the wait for an unconfirmed old primary. */
  public EmergencyFailoverStatus(String phase, String failedSite, String target, String trigger, String reason,
      String startTime, String completionTime, Double durationSeconds, Boolean oldPrimaryFenced,
      String oldPrimaryLastKnownGtid, String targetGtidAtPromotion, Long transactionsLost, String lostGtid,
      String message, ForcedPromotion forcedPromotion) {
    this(phase, failedSite, target, trigger, reason, startTime, completionTime, durationSeconds, oldPrimaryFenced,
        oldPrimaryLastKnownGtid, targetGtidAtPromotion, transactionsLost, lostGtid, message, forcedPromotion, null,
        null);
  }

  /**
   * {@code status.emergencyFailover.oldPrimaryWait}: nothing confirmed the old primary fenced, so
   * the candidate waited until its sidecar must have fenced it: the lease, or the time a hung
   * sidecar takes to be restarted by its liveness probe and fence at boot, whichever is longer.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record OldPrimaryWait(
      @JsonPropertyDescription("The bound, from the candidate's naming as the active site.") Double seconds,
      @JsonPropertyDescription("When it ends (RFC 3339).") String until,
      @JsonPropertyDescription("PROBED (the sidecar's liveness probe, read from its pod), UNKNOWN (the pod could "
          + "not be read: Kubernetes' default probe timing) or NO_PROBE (nothing restarts a hung sidecar).")
      String basis,
      @JsonPropertyDescription("What the bound is made of, in words.") String detail) {}

  /**
   * {@code status.emergencyFailover.forcedPromotion}: the candidate was further behind than the lag
   * limit and a human asked for it anyway. {@code transactionsNotReceived} is what it lacked when the
   * watcher decided (null when that could not be known); {@code transactionsLost} of the status is
   * what it finally lost, after catching up from any other survivor.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record ForcedPromotion(
      @JsonPropertyDescription("The request, as annotation=value.") String requestedBy,
      Long maxLagOnPromotion,
      Long transactionsNotReceived,
      String notReceivedGtid) {}
}
