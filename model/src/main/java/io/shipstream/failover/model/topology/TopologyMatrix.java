package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.model.topology.CandidateSelection.Candidate;
import io.shipstream.failover.model.topology.Verdict.Blocked;
import io.shipstream.failover.model.topology.Verdict.Cause;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The cross-site decision matrix: from the debounced state of every site, what the watcher does.
 * Pure: the caller passes the time and the observations, and acts on the {@link Verdict}.
 *
 * <p>The rows are checked top to bottom; the first that matches decides. W is the set of WRITABLE
 * sites; f, "the failed site", is {@code status.activeSite}, or {@code status.lastFailoverTarget}
 * when no active site is recorded.
 *
 * <pre>
 * | #  | condition                                                        | verdict                              |
 * |----|------------------------------------------------------------------|--------------------------------------|
 * | 1  | a dr-only, read-only or fenced ({@link FencedSites}) site is     | FenceNonPromotable(those sites)      |
 * |    |   WRITABLE                                                       |                                      |
 * | 2  | every site is UNREACHABLE                                        | TotalLoss (alert only)               |
 * | 3  | |W| >= 2 and a failover workflow is running                       | SplitBrain, alert only               |
 * | 4  | |W| >= 2, some of W in splitBrainPolicy.sitePriorities            | SplitBrain, keep the highest listed, |
 * |    |                                                                  |   fence the rest of W                |
 * | 5  | |W| >= 2, none listed, lastFailoverTarget in W                    | SplitBrain, keep lastFailoverTarget, |
 * |    |                                                                  |   fence the rest of W                |
 * | 6  | |W| >= 2 otherwise                                                | SplitBrain, alert only (the reason   |
 * |    |                                                                  |   says which sidecars fence by rule 1)|
 * | 7  | |W| = 1, W = {w}: w is not the recorded activeSite, or another   | Degraded(w, what is wrong)           |
 * |    |   site is UNREACHABLE, UNKNOWN, or read-only and not replicating |                                      |
 * | 8  | |W| = 1 otherwise                                                 | Healthy(w)                           |
 * | 9  | |W| = 0 and no f is recorded                                     | NoPrimary (a human names the primary)|
 * | 10 | |W| = 0, f is not a site of the spec                              | NoPrimary                            |
 * | 10b| |W| = 0, f is fenced ({@link FencedSites})                        | NoPrimary (writes stopped on purpose:|
 * |    |                                                                  |   no failover until it is unfenced)  |
 * | 11 | |W| = 0, f is UNKNOWN                                             | NoPrimary (waiting for a verdict)    |
 * | 12a| |W| = 0, f is READ_ONLY but its latest poll answered writable    | Degraded(f): f is being promoted or  |
 * |    |   (not yet recoveryThreshold polls in a row), or the watcher made|   unfenced, no alert                 |
 * |    |   f writable as a DBA unfenced it ({@code unfencedAt}) and f's   |                                      |
 * |    |   latest poll is not a poll interval younger than that           |                                      |
 * | 12b| |W| = 0, f is READ_ONLY otherwise                                 | NoPrimary (alive: never promoted     |
 * |    |                                                                  |   over automatically)                |
 * | 13 | |W| = 0, f UNREACHABLE but its latest poll answered (writable,   | NoPrimary (f is coming back)         |
 * |    |   not yet recoveryThreshold polls)                               |                                      |
 * | 14 | |W| = 0, f UNREACHABLE, a failover workflow is running            | Blocked(ConcurrentOperation)         |
 * | 15 | |W| = 0, f UNREACHABLE, inside failoverCooldown of lastPromotion  | Blocked(CooldownActive)              |
 * | 16 | |W| = 0, f UNREACHABLE, no candidate (a primary-candidate other  | NoPrimary if a primary-candidate is  |
 * |    |   than f, not fenced, READ_ONLY, whose latest poll answered      |   still UNKNOWN, else                |
 * |    |   read-only with no SQL thread error: {@link                     |   Blocked(NoCandidate)               |
 * |    |   CandidateSelection#sqlThreadProblem})                          |                                      |
 * | 17 | |W| = 0, f UNREACHABLE, a GTID set cannot be read or mixes flavors| Blocked(UnreadableGtid)              |
 * | 18 | |W| = 0, f UNREACHABLE, CandidateSelection says Divergent          | Blocked(DivergentCandidates)         |
 * | 19a| |W| = 0, f UNREACHABLE, Chosen(c), maxLagOnPromotion set, c had  | Blocked(CandidateTooFarBehind, c)    |
 * |    |   not received more of f's last known set than it allows (or f's |                                      |
 * |    |   set was never seen), and no promote-anyway request names c     |                                      |
 * | 19b| as 19a, and a promote-anyway request names c                     | Promote(f, c), forced: the override  |
 * |    |                                                                  |   and the count it loses recorded    |
 * | 19 | |W| = 0, f UNREACHABLE, CandidateSelection says Chosen(c)          | Promote(f, c)                        |
 * </pre>
 *
 * <p>Why these rows: a writable site that may never be primary is wrong whatever else holds, and
 * fencing it is always safe (row 1). Split brain is resolved only by a rule the user wrote down or
 * by the group's own last decision; anything else is for a human (rows 4-6), and never while a
 * workflow is moving the primary (row 3). Only an <em>unreachable</em> primary is failed over from:
 * one that answers read-only is alive and was fenced on purpose (row 12b), and one that answers
 * again, even before its writable answers are trusted, must not get a rival (row 13). A read-only
 * active site that answers writable is what every failover's promotion (and an operator's unfence)
 * looks like for recoveryThreshold polls: the site the status names is becoming the primary it
 * should be, which is no news (row 12a); only a flap back to read-only is reported. An unfence is
 * the watcher's own doing between two polls: the poll before it, or one in flight while it
 * happened (a poll takes at most a poll interval), still reads read-only and is no news either. Rows 14-15
 * are the mutual exclusion and the anti-flap cooldown shared with planned failover. Row 19a is
 * the user's own bound on what an automatic promotion may lose ({@code
 * spec.emergencyFailover.maxLagOnPromotion}), counted in transactions of f's last known set that c
 * had neither executed nor received at its latest poll ({@link PromotionLag}); row 19b is the human
 * who accepts that loss by name ({@link PromoteAnywayAnnotation}).
 *
 * <p>When row 4 or 5 keeps a site that is not the recorded active site, the watcher must record
 * it as active: the sidecars fence every site but the active one.
 */
public final class TopologyMatrix {
  private TopologyMatrix() {}

  /**
   * Everything the matrix looks at.
   *
   * @param config the resolved spec: sites and roles, sitePriorities, failoverCooldown
   * @param sites the observation of each site by name; a site missing from the map counts as UNKNOWN
   * @param activeSite {@code status.activeSite}; null if none recorded
   * @param lastPromotion where the anti-flap cooldown starts: {@code status.lastPromotion}, the last promotion
   *     that took effect ({@link io.shipstream.failover.model.crd.MysqlFailoverGroupStatus#cooldownSince}), parsed;
   *     null if there was none. A failover rolled back before its promotion took effect moves {@code
   *     lastFailover} but not this, so it blocks no emergency failover
   * @param lastFailoverTarget {@code status.lastFailoverTarget}; null if there was none
   * @param failoverRunning whether a failover workflow holds the group's workflow id, so that an
   *     emergency start would be refused; the watcher counts a planned failover past its waiting
   *     (an emergency one that runs is the failover this input would start)
   * @param now the watcher's clock
   * @param promoteAnyway the site a valid {@link PromoteAnywayAnnotation} names; null when there is none
   * @param fenced {@code status.fencedSites}: the sites a DBA fenced ({@link FencedSites}); never candidates
   * @param unfencedAt when the watcher made the active site writable as a DBA unfenced it ({@link
   *     FencedSites}); null when it did not, or not for this active site
   */
  public record Input(GroupConfig config, Map<String, SiteObservation> sites, String activeSite,
      Instant lastPromotion, String lastFailoverTarget, boolean failoverRunning, Instant now, String promoteAnyway,
      List<String> fenced, Instant unfencedAt) {

    public Input {
      Objects.requireNonNull(config, "config");
      Objects.requireNonNull(now, "now");
      sites = Map.copyOf(sites);
      fenced = fenced == null ? List.of() : List.copyOf(fenced);
    }

    /** An input whose active site was not just unfenced. */
    public Input(GroupConfig config, Map<String, SiteObservation> sites, String activeSite, Instant lastPromotion,
        String lastFailoverTarget, boolean failoverRunning, Instant now, String promoteAnyway, List<String> fenced) {
      this(config, sites, activeSite, lastPromotion, lastFailoverTarget, failoverRunning, now, promoteAnyway, fenced,
          null);
    }

    /** The same input, with when the watcher made the active site writable on its unfence (null: it did not). */
    public Input withUnfencedAt(Instant at) {
      return new Input(config, sites, activeSite, lastPromotion, lastFailoverTarget, failoverRunning, now,
          promoteAnyway, fenced, at);
    }

    /** An input without fenced sites. */
    public Input(GroupConfig config, Map<String, SiteObservation> sites, String activeSite, Instant lastPromotion,
        String lastFailoverTarget, boolean failoverRunning, Instant now, String promoteAnyway) {
      this(config, sites, activeSite, lastPromotion, lastFailoverTarget, failoverRunning, now, promoteAnyway, null);
    }

    /** The same input, with the sites a DBA fenced. */
    public Input withFenced(List<String> sites) {
      return new Input(config, this.sites, activeSite, lastPromotion, lastFailoverTarget, failoverRunning, now,
          promoteAnyway, sites, unfencedAt);
    }

    boolean isFenced(String site) {
      return fenced.contains(site);
    }

    /** An input without a promote-anyway request. */
    public Input(GroupConfig config, Map<String, SiteObservation> sites, String activeSite, Instant lastPromotion,
        String lastFailoverTarget, boolean failoverRunning, Instant now) {
      this(config, sites, activeSite, lastPromotion, lastFailoverTarget, failoverRunning, now, null);
    }

    /** The same input, with the site a promote-anyway request names (null for none). */
    public Input withPromoteAnyway(String site) {
      return new Input(config, sites, activeSite, lastPromotion, lastFailoverTarget, failoverRunning, now, site, fenced,
          unfencedAt);
    }

    SiteObservation observation(String site) {
      return sites.getOrDefault(site, SiteObservation.unknown());
    }

    SiteState state(String site) {
      return observation(site).state();
    }
  }

  /** Applies the first matching row of the table in the class comment. */
  public static Verdict evaluate(Input in) {
    List<SiteSpec> sites = in.config().sites();
    List<String> writableNonPromotable = names(sites, s -> (!s.isPrimaryCandidate() || in.isFenced(s.name()))
        && writable(in, s));
    if (!writableNonPromotable.isEmpty()) {
      List<String> byRole = names(sites, s -> !s.isPrimaryCandidate() && writable(in, s));
      List<String> fenced = writableNonPromotable.stream().filter(s -> !byRole.contains(s)).toList();
      List<String> why = new ArrayList<>();
      if (!byRole.isEmpty()) {
        why.add(quoted(byRole) + (byRole.size() == 1 ? " is" : " are")
            + " writable but may never be primary (role dr-only or read-only)");
      }
      if (!fenced.isEmpty()) {
        why.add(quoted(fenced) + (fenced.size() == 1 ? " is" : " are") + " writable but fenced ("
            + FencedSites.ANNOTATION + ")");
      }
      return new Verdict.FenceNonPromotable(writableNonPromotable, String.join("; ", why) + ": fencing");
    }
    if (sites.stream().allMatch(s -> in.state(s.name()) == SiteState.UNREACHABLE)) {
      return new Verdict.TotalLoss("every site is unreachable: nothing can be promoted; recover a site by hand");
    }
    List<String> writable = names(sites, s -> writable(in, s));
    if (writable.size() > 1) {
      return SplitBrainRule.resolve(in, writable);
    }
    if (writable.size() == 1) {
      return onePrimary(in, writable.get(0));
    }
    return noWritableSite(in);
  }

  private static Verdict onePrimary(Input in, String primary) {
    List<String> problems = new ArrayList<>();
    if (in.activeSite() != null && !in.activeSite().equals(primary)) {
      problems.add("site '" + primary + "' is writable but the recorded active site is '" + in.activeSite() + "'");
    }
    for (SiteSpec s : in.config().sites()) {
      SiteObservation o = in.observation(s.name());
      switch (o.state()) {
        case UNREACHABLE -> problems.add("site '" + s.name() + "' is unreachable");
        case UNKNOWN -> problems.add("site '" + s.name() + "' has no verdict yet");
        case READ_ONLY -> {
          if (o.answeringNow() && !o.latest().replicating()) {
            problems.add("site '" + s.name() + "' is read-only but not replicating");
          }
        }
        default -> {}
      }
    }
    return problems.isEmpty() ? new Verdict.Healthy(primary)
        : new Verdict.Degraded(primary, String.join("; ", problems));
  }

  private static Verdict noWritableSite(Input in) {
    String failed = in.activeSite() != null ? in.activeSite() : in.lastFailoverTarget();
    if (failed == null) {
      return new Verdict.NoPrimary("no site is writable and no active site is recorded: name the primary with a "
          + "planned failover");
    }
    if (in.config().site(failed).isEmpty()) {
      return new Verdict.NoPrimary("no site is writable and the recorded active site '" + failed
          + "' is not in spec.sites");
    }
    if (in.isFenced(failed)) {
      return new Verdict.NoPrimary("the active site '" + failed + "' is fenced (" + FencedSites.ANNOTATION
          + "): the group's writes are stopped on purpose and nothing is failed over until it is unfenced");
    }
    SiteObservation f = in.observation(failed);
    switch (f.state()) {
      case UNKNOWN:
        return new Verdict.NoPrimary("no site is writable; waiting for a verdict on the active site '" + failed + "'");
      case READ_ONLY:
        if (f.answeringNow() && !f.latest().readOnly()) {
          return new Verdict.Degraded(failed, "the active site '" + failed + "' answers writable after being "
              + "read-only (a promotion or an unfence); it is trusted after " + in.config().recoveryThreshold()
              + " writable polls in a row");
        }
        if (f.answeringNow() && unfencedSince(in, f.latest())) {
          return new Verdict.Degraded(failed, "the active site '" + failed + "' was made writable at "
              + in.unfencedAt() + " as a DBA unfenced it; its latest poll may have read it before that; it is "
              + "trusted after "
              + in.config().recoveryThreshold() + " writable polls in a row");
        }
        return new Verdict.NoPrimary("the active site '" + failed + "' is reachable but read-only; a live primary is "
            + "never failed over from automatically");
      default:
        break;
    }
    if (f.answeringNow()) {
      return new Verdict.NoPrimary("the active site '" + failed + "' answers again as writable; waiting for "
          + in.config().recoveryThreshold() + " writable polls in a row before trusting it");
    }
    return promotion(in, failed, f);
  }

  /** Rows 14-19: the active site is unreachable. */
  private static Verdict promotion(Input in, String failed, SiteObservation f) {
    String lost = "the active site '" + failed + "' is unreachable";
    if (in.failoverRunning()) {
      return new Blocked(Cause.ConcurrentOperation, failed, lost + " but a failover workflow is already running");
    }
    Optional<Instant> cooldownEnd = Cooldown.activeUntil(in.config().failoverCooldown(), in.lastPromotion(), in.now());
    if (cooldownEnd.isPresent()) {
      return new Blocked(Cause.CooldownActive, failed, lost + " but the failover cooldown is active since the last "
          + "promotion at " + in.lastPromotion() + "; no automatic failover before " + cooldownEnd.get());
    }
    // A candidate whose SQL thread stopped on an error cannot apply its relay log: another one is
    // chosen, and the ones passed over are named in the verdict.
    List<String> sqlProblems = new ArrayList<>();
    List<SiteSpec> candidateSites = new ArrayList<>();
    for (SiteSpec s : in.config().sites()) {
      SiteReadiness.NotReady excluded = candidateExclusion(in, s, failed);
      if (excluded == null) {
        candidateSites.add(s);
      } else if (excluded.reason() == SiteReadiness.Reason.SqlThreadError) {
        sqlProblems.add(excluded.message());
      }
    }
    String passedOver = sqlProblems.isEmpty() ? "" : "; passed over: " + String.join("; ", sqlProblems);
    if (candidateSites.isEmpty()) {
      List<String> pending = names(in.config().sites(),
          s -> s.isPrimaryCandidate() && !s.name().equals(failed) && !in.isFenced(s.name())
              && in.state(s.name()) == SiteState.UNKNOWN);
      if (!pending.isEmpty()) {
        return new Verdict.NoPrimary(lost + "; waiting for a verdict on " + quoted(pending));
      }
      return new Blocked(Cause.NoCandidate, failed, lost + " and no primary-candidate is reachable and read-only"
          + (sqlProblems.isEmpty() ? "" : " with a healthy SQL thread")
          + (in.fenced().isEmpty() ? "" : " (fenced, so never candidates: " + quoted(in.fenced()) + ")") + passedOver);
    }
    List<Candidate> candidates = new ArrayList<>();
    List<GtidSet> others = new ArrayList<>();
    String reading = null;
    try {
      for (SiteSpec s : candidateSites) {
        reading = s.name();
        Probe p = in.observation(s.name()).latest();
        candidates.add(new Candidate(s.name(), GtidSet.parse(p.gtidExecuted()), p.serverId()));
      }
      for (SiteSpec s : in.config().sites()) {
        Probe last = in.observation(s.name()).lastReachable();
        if (candidateSites.contains(s) || last == null || last.gtidExecuted() == null) {
          continue;
        }
        reading = s.name();
        others.add(GtidSet.parse(last.gtidExecuted()));
      }
      reading = null;
      var choice = CandidateSelection.choose(candidates, others, in.config().sitePriorities(),
          names(in.config().sites(), s -> true));
      if (choice instanceof CandidateSelection.Chosen c) {
        String failedGtid = f.lastReachable() == null ? null : f.lastReachable().gtidExecuted();
        return lagLimit(in, failed, failedGtid, sqlProblems.isEmpty() ? c
            : new CandidateSelection.Chosen(c.site(), c.reason() + passedOver, c.errantGtids()), lost);
      }
      Cause cause = choice instanceof CandidateSelection.Divergent ? Cause.DivergentCandidates : Cause.NoCandidate;
      return new Blocked(cause, failed, lost + "; " + choice.reason() + passedOver);
    } catch (IllegalArgumentException e) {
      return new Blocked(Cause.UnreadableGtid, failed, lost + " but "
          + (reading == null ? "the GTID sets cannot be compared"
              : "the GTID set of site '" + reading + "' cannot be read")
          + ": " + e.getMessage());
    }
  }

  /**
   * Row 16's filter: why site {@code s} is no candidate when {@code failed} is lost, or null when it
   * is one (a primary-candidate other than f, not fenced, READ_ONLY, whose latest poll answered
   * read-only, with no SQL thread error). {@link SiteReadiness} asks the same question through this
   * method, so the readiness a site shows and the failover that would choose it cannot disagree.
   */
  static SiteReadiness.NotReady candidateExclusion(Input in, SiteSpec s, String failed) {
    String name = s.name();
    if (name.equals(failed)) {
      return new SiteReadiness.NotReady(SiteReadiness.Reason.ActivePrimary, "site '" + name + "' is the active site");
    }
    if (!s.isPrimaryCandidate()) {
      return new SiteReadiness.NotReady(SiteReadiness.Reason.NotCandidate, "site '" + name + "' has role " + s.role()
          + " and can never be primary");
    }
    if (in.isFenced(name)) {
      return new SiteReadiness.NotReady(SiteReadiness.Reason.Fenced, "site '" + name + "' is fenced ("
          + FencedSites.ANNOTATION + ")");
    }
    SiteObservation o = in.observation(name);
    if (!promotable(o)) {
      if (o.state() == SiteState.UNKNOWN) {
        return new SiteReadiness.NotReady(SiteReadiness.Reason.NotPolled, "site '" + name + "' has no verdict yet");
      }
      if (!o.answeringNow() || o.state() == SiteState.UNREACHABLE) {
        String error = o.latest() == null || o.latest().error() == null ? "" : ": " + o.latest().error();
        return new SiteReadiness.NotReady(SiteReadiness.Reason.Unreachable, "site '" + name + "' is unreachable"
            + error);
      }
      return new SiteReadiness.NotReady(SiteReadiness.Reason.Writable, "site '" + name + "' is not read-only");
    }
    Probe p = o.latest();
    String problem = CandidateSelection.sqlThreadProblem(name, p.sourceSqlRunning(), p.sourceSqlError());
    return problem == null ? null : new SiteReadiness.NotReady(SiteReadiness.Reason.SqlThreadError, problem);
  }

  /** Rows 19a, 19b and 19: the chosen candidate against {@code maxLagOnPromotion}. */
  private static Verdict lagLimit(Input in, String failed, String failedGtid, CandidateSelection.Chosen c,
      String lost) {
    Long limit = in.config().maxLagOnPromotion();
    if (limit == null) {
      return new Verdict.Promote(failed, c.site(), failedGtid, lost + "; promoting: " + c.reason());
    }
    Probe candidate = in.observation(c.site()).latest();
    Long behind = null;
    String behindGtid = null;
    if (failedGtid != null) {
      GtidSet missing = PromotionLag.notReceived(failedGtid, candidate.gtidExecuted(), candidate.receivedGtid());
      behind = missing.count();
      behindGtid = missing.toString();
    }
    if (behind != null && behind <= limit) {
      return new Verdict.Promote(failed, c.site(), failedGtid, lost + "; promoting: " + c.reason()
          + " (" + behind + " transaction(s) not received, within maxLagOnPromotion " + limit + ")");
    }
    String distance = behind == null
        ? "how far site '" + c.site() + "' is behind cannot be known (the GTID set of '" + failed + "' was never seen)"
        : "site '" + c.site() + "' had not received " + behind + " transaction(s) of the last known set of '" + failed
            + "' (" + behindGtid + "), more than spec.emergencyFailover.maxLagOnPromotion " + limit;
    if (c.site().equals(in.promoteAnyway())) {
      return new Verdict.Promote(failed, c.site(), failedGtid, lost + "; " + distance + "; promoting anyway as "
          + PromoteAnywayAnnotation.ANNOTATION + " requests: " + c.reason(),
          new Verdict.LagOverride(behind, behindGtid, limit));
    }
    return new Blocked(Cause.CandidateTooFarBehind, failed, lost + "; " + distance + ": not promoted; to promote it "
        + "anyway and lose " + (behind == null ? "what it lacks" : "them")
        + ": kubectl annotate mysqlfailovergroup <name> "
        + PromoteAnywayAnnotation.ANNOTATION + "=" + c.site(), c.site());
  }

  /**
   * Whether {@code latest} may have read the active site before the watcher made it writable on its
   * unfence: taken before the unfence, or less than a poll interval after it (a poll in flight).
   */
  private static boolean unfencedSince(Input in, Probe latest) {
    return in.unfencedAt() != null && latest.at() != null
        && !latest.at().isAfter(in.unfencedAt().plus(in.config().pollInterval()));
  }

  /** READ_ONLY, and the latest poll answered read-only: not a site in the middle of turning writable. */
  private static boolean promotable(SiteObservation o) {
    return o.state() == SiteState.READ_ONLY && o.answeringNow() && o.latest().readOnly();
  }

  private static boolean writable(Input in, SiteSpec s) {
    return in.state(s.name()) == SiteState.WRITABLE;
  }

  static List<String> names(List<SiteSpec> sites, Predicate<SiteSpec> filter) {
    return sites.stream().filter(filter).map(SiteSpec::name).toList();
  }

  static String quoted(List<String> sites) {
    return (sites.size() == 1 ? "site " : "sites ")
        + sites.stream().map(s -> "'" + s + "'").collect(Collectors.joining(", "));
  }
}
