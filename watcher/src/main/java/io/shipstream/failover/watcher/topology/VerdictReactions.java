package io.shipstream.failover.watcher.topology;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.topology.PauseAnnotation;
import io.shipstream.failover.model.topology.PlannedSourceDeath;
import io.shipstream.failover.model.topology.PrimaryConfirmation;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.model.topology.PromoteAnywayAnnotation;
import io.shipstream.failover.model.topology.SiteObservation;
import io.shipstream.failover.model.topology.TopologyMatrix;
import io.shipstream.failover.model.topology.Verdict;
import io.shipstream.failover.workflows.contract.Events;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the monitor does with a verdict of {@link TopologyMatrix}: start the emergency failover,
 * fence, or alert. Alerts are Warning Events, one per change of situation and not one per poll:
 * the last alert of each group is remembered and a repeat is dropped; a healthy (or degraded, one
 * primary) verdict forgets it, so the same trouble coming back is reported again.
 *
 * <p>Whether a failover workflow runs costs a call to Temporal, so it is asked only when it could
 * change what is done: before fencing a split brain (while a workflow moves the primary, two
 * writable sites may be its own doing, and the matrix then says alert only), and before a new
 * NoPrimary alert (a planned failover has no writable site between fence and promotion, which is
 * no news).
 *
 * <p>A NoPrimary alert is also held back until it stands on fresh polls: every site that answers
 * must have been polled again after the monitor first saw no failover running. The polls of the
 * evaluation that finds the failover over may predate its promotion (a site is polled every
 * pollInterval, and the workflow ends a moment after it promotes), and a verdict from them would
 * report the very primary the failover has just made writable as missing.
 */
public final class VerdictReactions {
  private static final Logger log = LoggerFactory.getLogger(VerdictReactions.class);

  private final GroupEffects effects;

  /** What the reactions keep about one group between passes: their slice of the group's {@link GroupMemory}. */
  static final class Memory {
    volatile String lastAlert;
    /** The evaluation time at which no failover was first seen running in a NoPrimary spell. */
    volatile Instant quietSince;
    /** The primary the watcher is cut off from while its replicas still hear it. */
    volatile String cutOff;
    /** Whether the group was paused at its last evaluation. */
    volatile Boolean paused;
    /** The invalid pause annotation value last reported. */
    volatile String pauseRejected;
  }

  private final SiteFences fences;
  private final PromoteAnywayRequests promoteAnywayRequests;
  private final PlannedRunHandOffs handOffs;

  public VerdictReactions(GroupEffects effects) {
    this.effects = effects;
    this.fences = new SiteFences(effects);
    this.promoteAnywayRequests = new PromoteAnywayRequests(effects);
    this.handOffs = new PlannedRunHandOffs(effects);
  }

  /**
   * Applies the group's fenced-sites annotation ({@link SiteFences}); returns the sites the
   * evaluation treats as fenced, the annotation's problem, if any, and when the active site was
   * made writable on its unfence.
   */
  public SiteFences.Accepted fences(GroupMemory memory, GroupRef group, io.shipstream.failover.model.GroupConfig config,
      io.shipstream.failover.model.crd.MysqlFailoverGroup resource,
      io.shipstream.failover.model.crd.MysqlFailoverGroupStatus status, boolean paused, Instant now) {
    return fences.keep(memory.fences, group, config, resource, status, paused, now);
  }

  /**
   * A planned failover whose source the replicas confirm dead ({@link PlannedSourceDeath}) is told
   * so, once per run: it ends {@code SourceCrashed} at once, leaving the source fenced, and frees the
   * group's workflow id for the emergency failover this monitor then starts (the confirmation that
   * made the source UNREACHABLE for the matrix stands at the next evaluations, and nothing was
   * promoted, so no cooldown holds it). Until the run has ended, the matrix's
   * ConcurrentOperation block is that hand-off, not a FailoverBlocked alert. Returns whether the
   * current run was told, now or before.
   */
  public boolean handOff(GroupMemory memory, GroupRef group, MysqlFailoverGroupStatus status,
      TopologyMatrix.Input in, PrimaryConfirmation.Result confirmation) {
    return handOffs.handOff(memory, group, status, in, confirmation);
  }

  /** Evaluates the matrix, acts, and returns the verdict acted on. */
  public Verdict react(GroupMemory memory, GroupRef group, TopologyMatrix.Input in) {
    return react(memory, group, in, null, Optional.empty());
  }

  /**
   * Evaluates the matrix with the replicas' answer about an unreachable primary ({@link
   * PrimaryConfirmation}; null when they were not asked) and the group's promote-anyway annotation
   * (a valid one names the site the matrix may promote over the lag limit; what becomes of it is
   * {@link PromoteAnywayAnnotation#judge}'s table), acts, and returns the verdict acted on. While
   * the replicas say the primary is alive, a Warning Event says so once; a Normal Event when the
   * watcher reaches it again.
   */
  public Verdict react(GroupMemory memory, GroupRef group, TopologyMatrix.Input in,
      PrimaryConfirmation.Result confirmation, Optional<PromoteAnywayAnnotation> promoteAnyway) {
    return react(memory, group, in, confirmation, promoteAnyway, false);
  }

  /**
   * As {@link #react(GroupMemory, GroupRef, TopologyMatrix.Input, PrimaryConfirmation.Result, Optional)}; a
   * {@code paused} group ({@link PauseAnnotation}) is only reported on: a verdict that would act
   * (start a failover, fence) becomes one {@code ActionHeld} Warning Event saying what it would
   * have done, the others report as usual, and a promote-anyway request is kept for when the group
   * resumes.
   */
  public Verdict react(GroupMemory memory, GroupRef group, TopologyMatrix.Input in,
      PrimaryConfirmation.Result confirmation, Optional<PromoteAnywayAnnotation> promoteAnyway, boolean paused) {
    Memory m = memory.reactions;
    in = in.withPromoteAnyway(promoteAnyway.filter(PromoteAnywayAnnotation::valid).map(PromoteAnywayAnnotation::site)
        .orElse(null));
    Verdict verdict = PrimaryConfirmation.evaluate(in, confirmation);
    if (!in.failoverRunning() && verdict instanceof Verdict.SplitBrain sb && !sb.alertOnly()
        && effects.failoverRunning(group)) {
      verdict = PrimaryConfirmation.evaluate(running(in), confirmation);
    }
    cutOff(m, group, in, confirmation);
    Optional<String> held = paused ? PauseAnnotation.held(verdict) : Optional.empty();
    if (held.isPresent()) {
      m.quietSince = null;
      alert(m, group, "Held:" + heldKey(verdict), Events.ACTION_HELD, "paused: would " + held.get()
          + "; nothing was done (remove " + PauseAnnotation.ANNOTATION + " to let the watcher act)");
      return verdict;
    }
    boolean started = act(memory, group, in, verdict);
    if (!paused) {
      promoteAnywayRequests.handle(memory, group, promoteAnyway.orElse(null), verdict, started);
    }
    return verdict;
  }

  /** What a held verdict is about, without its reason (which changes from poll to poll). */
  private static String heldKey(Verdict verdict) {
    if (verdict instanceof Verdict.Promote p) {
      return "Promote:" + p.failedSite() + "->" + p.candidate();
    }
    if (verdict instanceof Verdict.FenceNonPromotable f) {
      return "Fence:" + f.sites();
    }
    if (verdict instanceof Verdict.SplitBrain sb) {
      return "SplitBrain:" + sb.fence() + ":" + sb.keep();
    }
    return verdict.getClass().getSimpleName();
  }

  /**
   * Reports a change of the group's pause annotation ({@link PauseAnnotation}): an Event when the
   * group is paused or resumed, and one per invalid value. The first evaluation of a group that is
   * not paused says nothing.
   */
  public void pause(GroupMemory memory, GroupRef group, Optional<PauseAnnotation> annotation) {
    Memory m = memory.reactions;
    boolean now = PauseAnnotation.pauses(annotation);
    Boolean was = m.paused;
    m.paused = now;
    if (now && !Boolean.TRUE.equals(was)) {
      log.warn("{}: {}", group, PauseAnnotation.pausedMessage());
      effects.event(group, Events.AUTOMATION_PAUSED.type().name(), Events.AUTOMATION_PAUSED.reason(),
          PauseAnnotation.pausedMessage());
    } else if (!now && Boolean.TRUE.equals(was)) {
      log.info("{}: automation resumed", group);
      // What was held is judged afresh, and reported again if it still stands.
      m.lastAlert = null;
      effects.event(group, Events.AUTOMATION_RESUMED.type().name(), Events.AUTOMATION_RESUMED.reason(),
          "the " + PauseAnnotation.ANNOTATION + " annotation is gone or false: the watcher acts on the group again");
    }
    String invalid = annotation.filter(a -> !a.valid()).map(PauseAnnotation::value).orElse(null);
    String rejectedBefore = m.pauseRejected;
    m.pauseRejected = invalid;
    if (invalid != null && !invalid.equals(rejectedBefore)) {
      String why = annotation.get().problem();
      log.warn("{}: {}", group, why);
      effects.event(group, Events.PAUSE_REJECTED.type().name(), Events.PAUSE_REJECTED.reason(), why);
    }
  }

  private void cutOff(Memory m, GroupRef group, TopologyMatrix.Input in, PrimaryConfirmation.Result confirmation) {
    String primary = PrimaryConfirmation.primaryOf(in);
    if (confirmation != null && confirmation.outcome() == PrimaryConfirmation.Outcome.ALIVE && primary != null) {
      String before = m.cutOff;
      m.cutOff = primary;
      if (!primary.equals(before)) {
        String message = PrimaryConfirmation.cutOffMessage(primary, confirmation);
        log.warn("{}: {}: {}", group, Events.PRIMARY_UNREACHABLE_FROM_WATCHER.reason(), message);
        effects.event(group, Events.PRIMARY_UNREACHABLE_FROM_WATCHER.type().name(),
            Events.PRIMARY_UNREACHABLE_FROM_WATCHER.reason(), message);
      }
      return;
    }
    String was = m.cutOff;
    if (was == null) {
      return;
    }
    SiteObservation o = in.sites().get(was);
    if (!was.equals(primary) || (o != null && o.answeringNow())) {
      m.cutOff = null;
      String message = was.equals(primary) ? "the watcher reaches the active site '" + was + "' again"
          : "the active site is no longer '" + was + "'";
      log.info("{}: {}: {}", group, Events.PRIMARY_REACHABLE_FROM_WATCHER.reason(), message);
      effects.event(group, Events.PRIMARY_REACHABLE_FROM_WATCHER.type().name(),
          Events.PRIMARY_REACHABLE_FROM_WATCHER.reason(), message);
    }
  }

  /** Acts on the verdict; true when it started an emergency failover. */
  private boolean act(GroupMemory memory, GroupRef group, TopologyMatrix.Input in, Verdict verdict) {
    Memory m = memory.reactions;
    String activeSite = in.activeSite();
    if (!(verdict instanceof Verdict.NoPrimary)) {
      m.quietSince = null;
    }
    if (verdict instanceof Verdict.Healthy || verdict instanceof Verdict.Degraded) {
      m.lastAlert = null;
    } else if (verdict instanceof Verdict.Promote p) {
      return promote(m, group, p, siteGtids(in, p), detection(in, p));
    } else if (verdict instanceof Verdict.FenceNonPromotable f) {
      for (String site : f.sites()) {
        fence(group, site);
      }
      alert(m, group, "FenceNonPromotable:" + f.sites(), Events.NON_PROMOTABLE_SITE_FENCED, f.reason());
    } else if (verdict instanceof Verdict.SplitBrain sb) {
      if (!sb.alertOnly()) {
        for (String site : sb.fence()) {
          fence(group, site);
        }
        if (!sb.keep().equals(activeSite)) {
          effects.recordActiveSite(group, sb.keep());
        }
      }
      alert(m, group, "SplitBrain:" + sb.writableSites() + ":" + sb.keep(), Events.SPLIT_BRAIN_DETECTED, sb.reason());
    } else if (verdict instanceof Verdict.TotalLoss t) {
      alert(m, group, "TotalLoss", Events.TOTAL_LOSS_DETECTED, t.reason());
    } else if (verdict instanceof Verdict.NoPrimary n) {
      noPrimary(m, group, in, n);
    } else if (verdict instanceof Verdict.Blocked b) {
      if (b.cause() == Verdict.Cause.ConcurrentOperation && handOffs.told(memory)) {
        // The planned run was told its source is dead and is ending: no block to report.
        return false;
      }
      alert(m, group, "Blocked:" + b.cause() + ":" + b.reason(), Events.FAILOVER_BLOCKED,
          b.cause() + ": " + b.reason());
    }
    return false;
  }

  /**
   * Expected between the fence and the promotion of a running failover, and reported if it
   * outlasts it, once polls taken after its end confirm it (see the class comment).
   */
  private void noPrimary(Memory m, GroupRef group, TopologyMatrix.Input in, Verdict.NoPrimary n) {
    String key = "NoPrimary:" + n.reason();
    if (key.equals(m.lastAlert)) {
      return;
    }
    if (effects.failoverRunning(group)) {
      m.quietSince = null;
      return;
    }
    if (m.quietSince == null) {
      m.quietSince = in.now();
    }
    Instant since = m.quietSince;
    if (polledSince(in, since)) {
      alert(m, group, key, Events.NO_PRIMARY_DETECTED, n.reason());
    }
  }

  /** Whether every site whose latest poll got an answer was polled after {@code since}. */
  static boolean polledSince(TopologyMatrix.Input in, Instant since) {
    return in.sites().values().stream().filter(SiteObservation::answeringNow)
        .allMatch(o -> o.latest().at().isAfter(since));
  }

  /**
   * When the loss was detected (this evaluation) and when the failed primary last answered a poll,
   * for the emergency run's write window ({@code status.emergencyFailover.writeWindow}).
   */
  static Detection detection(TopologyMatrix.Input in, Verdict.Promote p) {
    SiteObservation failed = in.sites().get(p.failedSite());
    Instant lastPolled = failed == null || failed.lastReachable() == null ? null : failed.lastReachable().at();
    return new Detection(in.now(), lastPolled);
  }

  /** When the watcher decided the primary is lost, and when it last answered a poll (null: never). */
  public record Detection(Instant detectedAt, Instant lastPolledAt) {}

  private boolean promote(Memory m, GroupRef group, Verdict.Promote p, Map<String, String> siteGtids,
      Detection detection) {
    String key = "Promote:" + p.failedSite() + "->" + p.candidate();
    if (!effects.failoverRunning(group) && primaryAnswers(group, p)) {
      return false;
    }
    if (effects.startEmergency(group, p, siteGtids, detection)) {
      log.warn("{}: emergency failover from '{}' to '{}' started: {}", group, p.failedSite(), p.candidate(),
          p.reason());
      m.lastAlert = key;
      effects.event(group, Events.EMERGENCY_FAILOVER_STARTED.type().name(),
          Events.EMERGENCY_FAILOVER_STARTED.reason(), p.reason());
      return true;
    }
    // Refused: a workflow (ours from an earlier poll, or a planned one) holds the group. Nothing to do.
    return false;
  }

  /**
   * Rows s1-s2 of {@link PrimaryConfirmation}: the failed primary is polled right before its
   * emergency failover starts, since the polls the verdict rests on may be older than its return
   * (a restart takes well under a second); one that answers, writable or read-only, is not dead and
   * the start is cancelled. Asked only when no failover runs: a start Temporal would refuse anyway
   * costs no poll. Its next evaluations see it answering at its own next poll.
   */
  private boolean primaryAnswers(GroupRef group, Verdict.Promote p) {
    Probe again = effects.pollNow(group, p.failedSite());
    if (again == null || PrimaryConfirmation.startStands(again)) {
      return false;
    }
    log.warn("{}: emergency failover from '{}' to '{}' not started: '{}' answered ({}) a poll right before the start, "
        + "so it is not dead; the verdict was: {}", group, p.failedSite(), p.candidate(), p.failedSite(),
        again.readOnly() ? "read-only" : "writable", p.reason());
    return true;
  }

  /**
   * The executed set of every site that answered its latest poll, and the failed site's last known
   * one: what the workflow counts the transactions lost against. A site that stopped answering
   * earlier is left out, since its last set may be long stale.
   */
  static Map<String, String> siteGtids(TopologyMatrix.Input in, Verdict.Promote p) {
    Map<String, String> out = new TreeMap<>();
    in.sites().forEach((site, observation) -> {
      if (observation.answeringNow() && observation.latest().gtidExecuted() != null) {
        out.put(site, observation.latest().gtidExecuted());
      }
    });
    if (p.failedSiteLastGtid() != null) {
      out.put(p.failedSite(), p.failedSiteLastGtid());
    }
    return out;
  }

  private void fence(GroupRef group, String site) {
    try {
      effects.fence(group, site);
      log.warn("{}: fenced site '{}'", group, site);
    } catch (Exception e) {
      // Tried again on the next poll, as long as the verdict stands.
      log.warn("{}: could not fence site '{}': {}", group, site, e.toString());
    }
  }

  private void alert(Memory m, GroupRef group, String key, Events event, String message) {
    String before = m.lastAlert;
    m.lastAlert = key;
    if (key.equals(before)) {
      return;
    }
    log.warn("{}: {}: {}", group, event.reason(), message);
    effects.event(group, event.type().name(), event.reason(), message);
  }

  private static TopologyMatrix.Input running(TopologyMatrix.Input in) {
    return new TopologyMatrix.Input(in.config(), in.sites(), in.activeSite(), in.lastPromotion(),
        in.lastFailoverTarget(), true, in.now(), in.promoteAnyway(), in.fenced(), in.unfencedAt());
  }
}
