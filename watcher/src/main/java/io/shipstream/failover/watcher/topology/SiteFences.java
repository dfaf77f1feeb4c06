package io.shipstream.failover.watcher.topology;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.topology.FencedSites;
import io.shipstream.failover.model.topology.GroupConditions;
import io.shipstream.failover.model.topology.PauseAnnotation;
import io.shipstream.failover.workflows.contract.Events;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the group's fenced-sites annotation ({@link FencedSites}, whose {@code judge} decides):
 * records the accepted sites in {@code status.fencedSites}, which everything else acts on (the
 * matrix, the routing, the conditions, the sidecars' view, the planned runbook), and writes one
 * Event per fenced or unfenced site. Unfencing the active site makes its server writable first and
 * records the status after, so a watcher that dies in between finds the site still listed and does
 * it again; a refused value is one {@code FenceRejected} Warning per value and a Degraded problem,
 * with the accepted sites left as they were.
 *
 * <p>When it makes the unfenced active site writable it remembers when, for the matrix's row 12a:
 * the polls that read that site read-only before (or while) it did so are no news of a missing
 * primary.
 *
 * <p>Fencing itself is the matrix's row 1 (a fenced site found writable is fenced like a writable
 * dr-only site) and the sidecars' operator rule, so this class only changes what is accepted.
 */
public final class SiteFences {
  private static final Logger log = LoggerFactory.getLogger(SiteFences.class);

  private final GroupEffects effects;

  /** What the fences keep about one group between passes: their slice of the group's {@link GroupMemory}. */
  static final class Memory {
    /** The sites last recorded: the informer's copy of the status may not show them yet. */
    volatile List<String> recorded;
    /** Why the unfence of the active site last failed: logged once per reason. */
    volatile String unfenceFailed;
    /** The refused value or held removal last reported: each is reported once. */
    volatile String reported;
    /** The active site last made writable on its unfence, and when. */
    volatile Map.Entry<String, Instant> madeWritable;
  }

  SiteFences(GroupEffects effects) {
    this.effects = effects;
  }

  /**
   * What one evaluation acts on: the sites fenced now, what is wrong with the annotation, if
   * anything, and when this watcher made the active site writable on its unfence (null: it did not).
   */
  public record Accepted(List<String> sites, Optional<GroupConditions.Problem> problem, Instant activeUnfencedAt) {}

  /** One pass at {@code now}; returns the sites the rest of the evaluation treats as fenced. */
  Accepted keep(Memory m, GroupRef group, GroupConfig config, MysqlFailoverGroup resource,
      MysqlFailoverGroupStatus status, boolean paused, Instant now) {
    Accepted a = judge(m, group, config, resource, status, paused, now);
    Map.Entry<String, Instant> made = m.madeWritable;
    Instant at = made != null && made.getKey().equals(status.activeSite()) ? made.getValue() : null;
    return new Accepted(a.sites(), a.problem(), at);
  }

  private Accepted judge(Memory m, GroupRef group, GroupConfig config, MysqlFailoverGroup resource,
      MysqlFailoverGroupStatus status, boolean paused, Instant now) {
    List<String> accepted = m.recorded != null ? m.recorded
        : status.fencedSites() == null ? List.of() : status.fencedSites();
    FencedSites annotation = FencedSites.read(resource.annotation(FencedSites.ANNOTATION),
        config);
    FencedSites.Outcome outcome = annotation.judge(accepted, status.activeSite(), paused);
    if (outcome instanceof FencedSites.Rejected rejected) {
      once(m, group, "rejected:" + annotation.value(), Events.FENCE_REJECTED, rejected.why());
      return new Accepted(accepted, Optional.of(new GroupConditions.Problem(Events.FENCE_REJECTED.reason(),
          rejected.why())), null);
    }
    if (!(outcome instanceof FencedSites.Apply apply)) {
      if (paused && !annotation.sites().containsAll(accepted)) {
        held(m, group, accepted.stream().filter(s -> !annotation.sites().contains(s)).toList());
      } else {
        m.reported = null;
      }
      return new Accepted(accepted, Optional.empty(), null);
    }
    if (apply.unfenceActive()) {
      try {
        effects.unfence(group, status.activeSite());
      } catch (Exception e) {
        // Still listed: the next evaluation tries again, and the site stays fenced meanwhile (a
        // failover's workflow may hold it for days: said once per reason, not at every evaluation).
        String why = e.toString();
        String before = m.unfenceFailed;
        m.unfenceFailed = why;
        if (!why.equals(before)) {
          log.warn("{}: could not make the unfenced active site '{}' writable: {}", group, status.activeSite(), why);
        }
        return new Accepted(accepted, Optional.empty(), null);
      }
      m.unfenceFailed = null;
      m.madeWritable = Map.entry(status.activeSite(), now);
    }
    try {
      effects.recordFencedSites(group, apply.next());
    } catch (RuntimeException e) {
      log.warn("{}: could not record the fenced sites {}: {}", group, apply.next(), e.toString());
      return new Accepted(accepted, Optional.empty(), null);
    }
    m.recorded = apply.next();
    log.info("{}: fenced sites now {} (fenced {}, unfenced {})", group, apply.next(), apply.fenced(), apply.unfenced());
    for (String site : apply.fenced()) {
      effects.eventOrLog(group, Events.SITE_FENCED, FencedSites.fencedMessage(List.of(site), status.activeSite()));
    }
    for (String site : apply.unfenced()) {
      effects.eventOrLog(group, Events.SITE_UNFENCED,
          "site " + site + " is unfenced: " + (site.equals(status.activeSite())
              ? "the active site was made writable again and takes writes"
              : "it is a failover candidate again (it stays "
                  + "a read-only replica) and rejoins the replicas Service"));
    }
    if (apply.held().isEmpty()) {
      m.reported = null;
    } else {
      held(m, group, apply.held());
    }
    return new Accepted(apply.next(), Optional.empty(), null);
  }

  private void held(Memory m, GroupRef group, List<String> sites) {
    once(m, group, "held:" + sites, Events.ACTION_HELD, "paused: would unfence " + sites + "; nothing was done (remove "
        + PauseAnnotation.ANNOTATION + " to let the watcher act; a fence is applied while paused, an unfence waits)");
  }

  private void once(Memory m, GroupRef group, String key, Events event, String message) {
    String before = m.reported;
    m.reported = key;
    if (key.equals(before)) {
      return;
    }
    log.warn("{}: {}", group, message);
    effects.eventOrLog(group, event, message);
  }
}
