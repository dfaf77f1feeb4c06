package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.model.topology.CandidateSelection.Candidate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Whether each site could take over now, before anything is asked of it: as the target of a
 * planned switchover, and as the candidate of an emergency failover if the active site were lost
 * this minute. Pure: computed from the same {@link TopologyMatrix.Input} the watcher evaluates on
 * every poll.
 *
 * <p><b>Emergency.</b> The answer is the matrix's own: the input is changed only in that the
 * active site f is made UNREACHABLE (its last answer kept as its last known set), with no cooldown,
 * no running workflow and no promote-anyway request, and {@link TopologyMatrix#evaluate} is asked.
 * The site it promotes is ready with rank 1: it is the site the emergency path would promote now.
 * That site is then supposed lost as well and the matrix asked again, which gives rank 2 and so on:
 * a site is ready at rank n when it would be promoted were the n-1 ahead of it lost too. When the
 * matrix promotes no one, every site left is not ready: for the reason {@link
 * TopologyMatrix#candidateExclusion} (row 16's filter) gives it, else for what blocked the matrix
 * (errant transactions, divergent sets, more not received than {@code maxLagOnPromotion}). The
 * cooldown and a running workflow are left out because they are the group's, not the site's, and
 * pass by themselves; a paused group is likewise reported by its condition, not here.
 *
 * <p><b>Planned.</b> The shared rule {@link PlannedTarget}, the very one the planned runbook's
 * Validating applies ({@code PlannedFailoverPlanner}: a primary-candidate, not the active site, not
 * fenced, a live writable source, the target reachable, read-only and running both replication
 * threads), asked on the latest polls, a site with no verdict yet counting as not read ({@link
 * Reason#NotPolled}). Its refusals map onto the reasons below ({@link
 * #reason(PlannedTarget.Refusal)}). After it comes what would make the switchover slow or wrong
 * although it would be accepted: the SQL thread in error (which also refines the rule's
 * "not replicating"), seconds behind its source beyond {@code plannedFailover.maxLagWait} (the lag
 * gate would time out), and errant transactions (the promotion would publish them; {@link
 * CandidateSelection#errantTransactions}). So readiness is never laxer than the planner: a site
 * ready here is one the planner accepts.
 *
 * <p><b>Semi-sync.</b> A site of a group with {@code spec.semiSync.enabled} that should acknowledge
 * commits and does not is named in its message ({@link Reason#SemiSyncNotAcking}) but stays ready:
 * the matrix would still promote it, and readiness never claims what the failover would not do.
 */
public final class SiteReadiness {
  private SiteReadiness() {}

  /** Why a site could not take over; the names are the status's reason codes. */
  public enum Reason {
    /** It is the active site: nothing to take over from. */
    ActivePrimary,
    /** Its role is dr-only or read-only. */
    NotCandidate,
    /** A DBA fenced it ({@link FencedSites}). */
    Fenced,
    /** The watcher has no verdict on it yet. */
    NotPolled,
    /** Its latest poll got no answer. */
    Unreachable,
    /** It is not read-only: a second primary, or one being promoted. */
    Writable,
    /** Its IO or SQL thread does not run. */
    ReplicationStopped,
    /** Its SQL thread stopped on (or runs with) an error. */
    SqlThreadError,
    /** Planned: seconds behind its source beyond maxLagWait. Emergency: more not received than maxLagOnPromotion. */
    Lagging,
    /** It wrote transactions no other site holds. */
    ErrantTransactions,
    /** No candidate holds every other candidate's history. */
    DivergentCandidates,
    /** A GTID set could not be read. */
    UnreadableGtid,
    /**
     * No active site is recorded (planned: and not exactly one writable site to hand over from), or
     * the one recorded is not a site of the spec.
     */
    NoActiveSite,
    /** Planned: the active site is not a reachable writable primary to hand over from. */
    NoLiveSource,
    /** The group's state decides nothing about candidates now (another writable site, a total loss). */
    GroupState,
    /** Semi-sync is on and the site should acknowledge commits but does not (a note; see the class comment). */
    SemiSyncNotAcking
  }

  /** Why one path is closed to a site. */
  public record NotReady(Reason reason, String message) {
    public NotReady {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(message, "message");
    }
  }

  /**
   * One site's readiness.
   *
   * @param planned why it could not be a planned target now; null when it could
   * @param emergency why it would not be promoted by an emergency failover now; null when it would
   * @param emergencyRank 1 for the site the emergency path would promote now, n for the site it would
   *     promote were the n-1 ahead of it lost too; null when not ready
   * @param notes what the site should know although it is ready (semi-sync not acknowledging)
   */
  public record Readiness(String site, NotReady planned, NotReady emergency, Integer emergencyRank,
      List<String> notes) {
    public Readiness {
      Objects.requireNonNull(site, "site");
      notes = notes == null ? List.of() : List.copyOf(notes);
    }

    public boolean plannedReady() {
      return planned == null;
    }

    public boolean emergencyReady() {
      return emergency == null;
    }

    /** Whether it could take over by either path. */
    public boolean ready() {
      return plannedReady() || emergencyReady();
    }

    /** The readiness in one sentence, for status and Events. */
    public String message() {
      List<String> parts = new ArrayList<>();
      parts.add(plannedReady() ? "planned target: ready" : "planned target: not ready, " + planned.message());
      parts.add(emergencyReady() ? "emergency candidate: ready (rank " + emergencyRank + ")"
          : "emergency candidate: not ready, " + emergency.message());
      parts.addAll(notes);
      return String.join("; ", parts);
    }
  }

  /** {@link #evaluate(TopologyMatrix.Input, Map)} without semi-sync readings. */
  public static List<Readiness> evaluate(TopologyMatrix.Input in) {
    return evaluate(in, Map.of());
  }

  /**
   * Every site's readiness, in spec order.
   *
   * @param in what the matrix is evaluated with on this poll
   * @param semiSyncAcking per site, whether its replica side acknowledges commits now; a site absent
   *     is not judged
   */
  public static List<Readiness> evaluate(TopologyMatrix.Input in, Map<String, Boolean> semiSyncAcking) {
    Map<String, Integer> ranks = new LinkedHashMap<>();
    Map<String, NotReady> emergency = emergency(in, ranks);
    Map<String, PlannedTarget.Reading> readings = readings(in);
    List<Readiness> out = new ArrayList<>();
    for (SiteSpec s : in.config().sites()) {
      List<String> notes = new ArrayList<>();
      if (in.config().semiSync().enabled() && in.config().semiSync().acknowledges(s)
          && !s.name().equals(in.activeSite())
          && Boolean.FALSE.equals(semiSyncAcking.get(s.name()))) {
        notes.add(Reason.SemiSyncNotAcking + ": its replica side does not acknowledge commits, so commits the primary "
            + "reported durable may be missing from it");
      }
      out.add(new Readiness(s.name(), planned(in, s, readings), emergency.get(s.name()), ranks.get(s.name()), notes));
    }
    return out;
  }

  /** The names of the sites ready by either path, in spec order. */
  public static List<String> readySites(List<Readiness> all) {
    return all.stream().filter(Readiness::ready).map(Readiness::site).toList();
  }

  /** The emergency path, by the matrix itself: see the class comment. Fills {@code ranks}. */
  private static Map<String, NotReady> emergency(TopologyMatrix.Input in, Map<String, Integer> ranks) {
    Map<String, NotReady> out = new LinkedHashMap<>();
    String failed = in.activeSite();
    if (failed == null || in.config().site(failed).isEmpty()) {
      NotReady none = new NotReady(Reason.NoActiveSite, "no active site is recorded, so there is nothing to fail over "
          + "from");
      in.config().sites().forEach(s -> out.put(s.name(), none));
      return out;
    }
    Map<String, SiteObservation> supposed = new LinkedHashMap<>(in.sites());
    supposed.put(failed, lost(failed, in));
    TopologyMatrix.Input lost = supposedInput(in, supposed);
    Verdict verdict = TopologyMatrix.evaluate(lost);
    int rank = 1;
    while (verdict instanceof Verdict.Promote p && !ranks.containsKey(p.candidate())) {
      ranks.put(p.candidate(), rank++);
      supposed.put(p.candidate(), lost(p.candidate(), in));
      verdict = TopologyMatrix.evaluate(supposedInput(in, supposed));
    }
    for (SiteSpec s : in.config().sites()) {
      if (ranks.containsKey(s.name())) {
        continue;
      }
      NotReady excluded = TopologyMatrix.candidateExclusion(lost, s, failed);
      out.put(s.name(), excluded != null ? excluded : blockedBy(in, s, verdict));
    }
    return out;
  }

  /** Why an otherwise eligible candidate was not promoted: its own errant transactions, else the verdict. */
  private static NotReady blockedBy(TopologyMatrix.Input in, SiteSpec s, Verdict verdict) {
    String errant = errant(in, s);
    if (errant != null) {
      return new NotReady(Reason.ErrantTransactions, "site '" + s.name() + "' holds errant transactions " + errant);
    }
    if (verdict instanceof Verdict.Blocked b) {
      Reason r = switch (b.cause()) {
        case CandidateTooFarBehind -> Reason.Lagging;
        case DivergentCandidates -> Reason.DivergentCandidates;
        case UnreadableGtid -> Reason.UnreadableGtid;
        default -> Reason.GroupState;
      };
      return new NotReady(r, b.reason());
    }
    String why = verdict instanceof Verdict.NoPrimary n ? n.reason()
        : verdict instanceof Verdict.TotalLoss t ? t.reason()
            : verdict instanceof Verdict.SplitBrain sb ? sb.reason()
                : verdict instanceof Verdict.FenceNonPromotable fn ? fn.reason()
                    : verdict instanceof Verdict.Degraded d ? d.reason()
                        : String.valueOf(verdict);
    return new NotReady(Reason.GroupState, why);
  }

  /**
   * The planned path: {@link PlannedTarget}'s rule on the latest polls (a site with no verdict yet
   * counts as not read), then the readiness-only checks of the class comment.
   */
  private static NotReady planned(TopologyMatrix.Input in, SiteSpec s, Map<String, PlannedTarget.Reading> readings) {
    String name = s.name();
    PlannedTarget.Outcome rule = PlannedTarget.evaluate(in.config(), s, in.activeSite(), in.isFenced(name), readings);
    Probe p = in.observation(name).latest();
    if (!rule.accepted() && rule.refused().refusal() != PlannedTarget.Refusal.ReplicationStopped) {
      return new NotReady(reason(rule.refused().refusal()), rule.refused().message());
    }
    // The rule's last row, or none: an SQL thread error says more than "not replicating".
    String sqlProblem = CandidateSelection.sqlThreadProblem(name, p.sourceSqlRunning(), p.sourceSqlError());
    if (sqlProblem != null) {
      return new NotReady(Reason.SqlThreadError, sqlProblem);
    }
    if (!rule.accepted()) {
      return new NotReady(Reason.ReplicationStopped, rule.refused().message());
    }
    Duration limit = in.config().maxLagWait();
    if (p.secondsBehindSource() != null && limit != null && p.secondsBehindSource() > limit.toSeconds()) {
      return new NotReady(Reason.Lagging, "site '" + name + "' is " + p.secondsBehindSource()
          + " s behind its source, more than plannedFailover.maxLagWait " + limit.toSeconds() + " s");
    }
    String errant = errant(in, s);
    if (errant != null) {
      return new NotReady(Reason.ErrantTransactions, "site '" + name + "' holds errant transactions " + errant
          + ": a switchover would publish them");
    }
    return null;
  }

  /** Every site's latest poll, as the shared rule reads it; a site with no verdict yet is left out (not read). */
  private static Map<String, PlannedTarget.Reading> readings(TopologyMatrix.Input in) {
    Map<String, PlannedTarget.Reading> readings = new LinkedHashMap<>();
    for (SiteSpec site : in.config().sites()) {
      SiteObservation o = in.observation(site.name());
      if (o.state() != SiteState.UNKNOWN && o.latest() != null) {
        readings.put(site.name(), PlannedTarget.Reading.of(o.latest()));
      }
    }
    return readings;
  }

  /** A refusal of the shared rule as readiness's reason code. */
  static Reason reason(PlannedTarget.Refusal refusal) {
    return switch (refusal) {
      case NotCandidate -> Reason.NotCandidate;
      case ActiveSite -> Reason.ActivePrimary;
      case Fenced -> Reason.Fenced;
      case NoSource -> Reason.NoActiveSite;
      case SourceUnreachable, SourceReadOnly -> Reason.NoLiveSource;
      case TargetNotRead -> Reason.NotPolled;
      case TargetUnreachable -> Reason.Unreachable;
      case TargetWritable -> Reason.Writable;
      case ReplicationStopped -> Reason.ReplicationStopped;
    };
  }

  /**
   * The site's errant transactions against every other site's last known set ({@link
   * CandidateSelection#errantTransactions}), as text; null when none, or when a set cannot be read.
   */
  private static String errant(TopologyMatrix.Input in, SiteSpec s) {
    Probe own = in.observation(s.name()).lastReachable();
    if (own == null || own.gtidExecuted() == null) {
      return null;
    }
    try {
      List<GtidSet> references = new ArrayList<>();
      for (SiteSpec other : in.config().sites()) {
        Probe last = in.observation(other.name()).lastReachable();
        if (!other.name().equals(s.name()) && last != null && last.gtidExecuted() != null) {
          references.add(GtidSet.parse(last.gtidExecuted()));
        }
      }
      GtidSet e = CandidateSelection.errantTransactions(new Candidate(s.name(), GtidSet.parse(own.gtidExecuted()),
          own.serverId()), references);
      return e.isEmpty() ? null : e.toString();
    } catch (IllegalArgumentException | ClassCastException e) {
      return null;
    }
  }

  /** The site as if lost now: unreachable, its last answer kept as its last known set. */
  private static SiteObservation lost(String site, TopologyMatrix.Input in) {
    SiteObservation o = in.observation(site);
    return new SiteObservation(SiteState.UNREACHABLE, Probe.unreachable(site, "supposed lost for readiness", in.now()),
        o.lastReachable());
  }

  private static TopologyMatrix.Input supposedInput(TopologyMatrix.Input in, Map<String, SiteObservation> sites) {
    return new TopologyMatrix.Input(in.config(), sites, in.activeSite(), null, in.lastFailoverTarget(), false, in.now(),
        null, in.fenced(), null);
  }
}
