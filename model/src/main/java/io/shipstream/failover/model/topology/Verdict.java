package io.shipstream.failover.model.topology;

import java.util.List;

/**
 * What {@link TopologyMatrix#evaluate} concludes about a group, and so what the watcher does:
 * nothing, a status condition, an alert (Event + metric), fencing, or starting an emergency
 * failover. Every verdict carries a sentence for the Event and the condition message.
 */
public sealed interface Verdict {

  /** A full sentence for the user: the condition message or Event note. */
  String reason();

  /** One writable primary-candidate, every other site read-only and replicating. Nothing to do. */
  record Healthy(String primary) implements Verdict {
    @Override
    public String reason() {
      return "site '" + primary + "' is the only writable site and every other site replicates";
    }
  }

  /** One writable site, but something is off (a site unreachable, not replicating, not the active site). */
  record Degraded(String primary, String reason) implements Verdict {}

  /** No site is writable, and no automatic failover applies (the primary is alive, or not known yet). */
  record NoPrimary(String reason) implements Verdict {}

  /** Every site is unreachable: nothing can be promoted. Alert only. */
  record TotalLoss(String reason) implements Verdict {}

  /** Sites that must never be writable (dr-only, read-only roles) are: fence them before anything else. */
  record FenceNonPromotable(List<String> sites, String reason) implements Verdict {
    public FenceNonPromotable {
      sites = List.copyOf(sites);
    }
  }

  /**
   * More than one primary-candidate is writable. When {@code keep} is set, fence the {@code fence}
   * sites (and make {@code keep} the active site if it is not); when it is null, alert only.
   */
  record SplitBrain(List<String> writableSites, String keep, List<String> fence, String reason) implements Verdict {
    public SplitBrain {
      writableSites = List.copyOf(writableSites);
      fence = List.copyOf(fence);
    }

    public boolean alertOnly() {
      return keep == null;
    }
  }

  /**
   * Start an emergency failover from {@code failedSite} to {@code candidate}.
   * {@code failedSiteLastGtid} is the failed primary's last known executed GTID set (null if it was
   * never seen), from which the workflow reports the transactions lost ({@link TransactionsLost}).
   */
  record Promote(String failedSite, String candidate, String failedSiteLastGtid, String reason,
      LagOverride lagOverride) implements Verdict {

    /** A promotion within the lag limit (or without one). */
    public Promote(String failedSite, String candidate, String failedSiteLastGtid, String reason) {
      this(failedSite, candidate, failedSiteLastGtid, reason, null);
    }

    /** The same promotion (and override), for another reason: the path that decided it prefixed, say. */
    public Promote withReason(String why) {
      return new Promote(failedSite, candidate, failedSiteLastGtid, why, lagOverride);
    }

    /** Whether a human's {@code promote-anyway} request overrides the lag limit for it. */
    public boolean forced() {
      return lagOverride != null;
    }
  }

  /**
   * A promotion over {@code spec.emergencyFailover.maxLagOnPromotion}, requested by a human
   * ({@link PromoteAnywayAnnotation}): the candidate had not received {@code notReceived}
   * transactions ({@code notReceivedGtid}) of the failed primary's last known set, the limit was
   * {@code limit}; null counts when the distance could not be known.
   */
  record LagOverride(Long notReceived, String notReceivedGtid, long limit) {}

  /**
   * A failover is wanted but may not happen automatically: alert, record an Event with
   * {@code cause} as its reason, and wait. {@code failedSite} is the unreachable primary;
   * {@code candidate} the site that would be promoted, when the block is about it
   * ({@link Cause#CandidateTooFarBehind}), else null.
   */
  record Blocked(Cause cause, String failedSite, String reason, String candidate) implements Verdict {

    /** A block that names no candidate. */
    public Blocked(Cause cause, String failedSite, String reason) {
      this(cause, failedSite, reason, null);
    }
  }

  /** Why an automatic failover is blocked; the names double as Event reasons. */
  enum Cause {
    /** Inside {@code spec.failoverCooldown} of the last failover (planned or emergency). */
    CooldownActive,
    /** A planned or emergency failover workflow is already running for the group. */
    ConcurrentOperation,
    /** No reachable read-only primary-candidate. */
    NoCandidate,
    /** The candidates' GTID sets diverge, or every candidate holds errant transactions. */
    DivergentCandidates,
    /** A candidate's GTID set could not be read (bad text, or MySQL and MariaDB sets mixed). */
    UnreadableGtid,
    /**
     * The chosen candidate had not received more of the failed primary's transactions than
     * {@code spec.emergencyFailover.maxLagOnPromotion} allows (or how many could not be known).
     */
    CandidateTooFarBehind
  }
}
