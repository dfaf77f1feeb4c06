package io.shipstream.failover.watcher.topology;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SemiSyncStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.GroupConditions;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.model.topology.SemiSyncFallback;
import io.shipstream.failover.model.topology.SemiSyncPlan;
import io.shipstream.failover.model.topology.SemiSyncSettings;
import io.shipstream.failover.model.topology.SemiSyncState;
import io.shipstream.failover.model.topology.SiteObservation;
import io.shipstream.failover.workflows.contract.Events;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every server's semi-synchronous settings as {@link SemiSyncPlan} says, between failovers:
 * at adoption, after every failover (the new primary's source side, the old primary's replica
 * side) and whenever a reading shows drift. At most once per poll interval per group and never
 * while a failover workflow runs (the promotion sets the new primary itself); the primary first,
 * so a replica whose IO thread is restarted connects to a source that already has its side on.
 * Each server is read and set in one session, with no write when it is right already.
 *
 * <p>It writes {@code status.semiSync} from the primary's reading when that changes, an Event when
 * the primary falls back to asynchronous replication (Warning) and when it returns (Normal), and
 * the group's {@code bloodraven_semisync_*} gauges; a primary fallen back is a Degraded problem
 * whose reason prevails. A primary that reads as fallen back while semi-sync is being switched on
 * (its acknowledging replicas reconnecting) is none of these: {@link SemiSyncFallback} decides.
 *
 * <p>When {@code spec.semiSync} is disabled while {@code status.semiSync} shows the keeper had it
 * on, the passes switch every site off, the primary's source side first (see
 * {@link SemiSyncPlan#desired(GroupConfig, String, Set, boolean, SemiSyncStatus)}), and remove the
 * status once every site reads off; a group whose semi-sync the keeper never had on is left alone.
 */
final class SemiSyncKeeper {
  private static final Logger log = LoggerFactory.getLogger(SemiSyncKeeper.class);

  private final SiteConnector sites;
  private final GroupEffects effects;
  private final BiConsumer<GroupRef, SemiSyncStatus> statusWriter;
  private final TopologyMetrics metrics;
  private final Clock clock;
  /** In {@link Memory#lastStatus}: the keeper removed {@code status.semiSync}. */
  private static final SemiSyncStatus REMOVED = new SemiSyncStatus(null, null, null, null, null, null, "removed");

  /** What the keeper keeps about one group between passes: its slice of the group's {@link GroupMemory}. */
  static final class Memory {
    volatile Instant lastPass;
    volatile SemiSyncStatus lastStatus;
    volatile Boolean lastFallenBack;
    volatile String lastFailure;
    /** When a pass last turned a source or replica side on, until a reading shows semi-sync on. */
    volatile Instant switchOnAt;
    /** Whether each replica read in the last pass acknowledged commits (its replica side active). */
    volatile Map<String, Boolean> acking = Map.of();
  }

  SemiSyncKeeper(SiteConnector sites, GroupEffects effects, BiConsumer<GroupRef, SemiSyncStatus> statusWriter,
      TopologyMetrics metrics, Clock clock) {
    this.sites = sites;
    this.effects = effects;
    this.statusWriter = statusWriter;
    this.metrics = metrics;
    this.clock = clock;
  }

  /** One pass; returns the Degraded problem of a primary fallen back, else empty. */
  Optional<GroupConditions.Problem> keep(Memory m, GroupRef ref, GroupConfig config, MysqlFailoverGroupStatus status,
      Map<String, SiteObservation> observations, boolean failoverRunning) {
    return keep(m, ref, config, status, observations, () -> failoverRunning);
  }

  /**
   * As above; {@code failoverRunning} is asked only when a pass is due (it may ask Temporal), so
   * at most once per poll interval.
   */
  Optional<GroupConditions.Problem> keep(Memory m, GroupRef ref, GroupConfig config, MysqlFailoverGroupStatus status,
      Map<String, SiteObservation> observations, java.util.function.BooleanSupplier failoverRunning) {
    String active = status.activeSite();
    // Disabled after the watcher had it on (its status shows it): every site is switched off.
    SemiSyncStatus shown = config.semiSync().enabled() ? null : shown(m, status);
    if (shown == null && (!config.semiSync().enabled() || active == null)) {
      m.acking = Map.of();
      if (metrics != null) {
        metrics.state().semiSync(ref, null);
      }
      return Optional.empty();
    }
    Instant now = clock.instant();
    Instant last = m.lastPass;
    if (last != null && now.isBefore(last.plus(config.pollInterval()))) {
      return shown != null ? Optional.empty() : problem(m);
    }
    m.lastPass = now;
    if (failoverRunning.getAsBoolean()) {
      return shown != null ? Optional.empty() : problem(m);
    }
    if (shown != null) {
      m.acking = Map.of();
      m.switchOnAt = null;
      m.lastFallenBack = null;
      if (metrics != null) {
        metrics.state().semiSync(ref, null);
      }
      return switchOff(m, ref, config, status, observations, shown);
    }
    Set<String> healthy = new LinkedHashSet<>();
    boolean mariaDb = false;
    for (Map.Entry<String, SiteObservation> e : observations.entrySet()) {
      Probe p = e.getValue().latest();
      if (p != null && p.reachable() && p.replicating()) {
        healthy.add(e.getKey());
      }
      Probe known = e.getValue().lastReachable();
      mariaDb |= known != null && "MariaDB".equals(known.flavor());
    }
    mariaDb |= config.sites().stream().anyMatch(s -> SiteSpec.FLAVOR_MARIADB.equals(s.flavor()));
    Map<String, SemiSyncSettings> desired = SemiSyncPlan.desired(config, active, healthy, mariaDb);
    SemiSyncState primary = null;
    // The primary first: see the class comment.
    List<String> order = new java.util.ArrayList<>(desired.keySet());
    order.remove(active);
    order.add(0, active);
    boolean switchedOn = false;
    Map<String, Boolean> acks = new java.util.HashMap<>();
    for (String name : order) {
      SiteConnector.SemiSyncReading reading = apply(m, ref, config, name, desired.get(name), observations);
      if (reading == null) {
        continue;
      }
      if (name.equals(active)) {
        primary = reading.state();
      } else {
        acks.put(name, reading.state().replicaActive());
      }
      switchedOn |= SemiSyncFallback.switchesOn(reading.before(), reading.state());
    }
    m.acking = Map.copyOf(acks);
    if (switchedOn) {
      m.switchOnAt = now;
    }
    SemiSyncFallback.Judgement judged = primary == null ? null
        : SemiSyncFallback.judge(primary, m.switchOnAt, Boolean.TRUE.equals(m.lastFallenBack), now,
            config.pollInterval());
    if (judged == SemiSyncFallback.Judgement.NOT_FALLEN_BACK) {
      // Seen on (or waiting, as required does): a replica switched on later adds to what it has.
      m.switchOnAt = null;
    }
    SemiSyncStatus next = SemiSyncPlan.status(config, active, primary,
        judged == SemiSyncFallback.Judgement.SWITCHING_ON);
    if (primary != null) {
      noteFallback(m, ref, active, next);
    }
    if (metrics != null) {
      metrics.state().semiSync(ref, primary == null ? null : next);
    }
    writeStatus(m, ref, status, next);
    return problem(m);
  }

  /**
   * A pass after {@code spec.semiSync} was disabled while {@code status.semiSync} still shows the
   * watcher had it on: every site gets both sides off, the active primary first, and the replicas
   * only once it reads its source side off (turning their replica side off while it still waits
   * would make its commits wait out the timeout). The status says what is still on, and is removed
   * once every site reads off: the servers are left alone from then on.
   */
  private Optional<GroupConditions.Problem> switchOff(Memory m, GroupRef ref, GroupConfig config,
      MysqlFailoverGroupStatus status, Map<String, SiteObservation> observations, SemiSyncStatus shown) {
    String active = status.activeSite();
    Map<String, SemiSyncSettings> desired = SemiSyncPlan.desired(config, active, Set.of(), false, shown);
    Map<String, SemiSyncState> readings = new java.util.HashMap<>();
    for (Map.Entry<String, SemiSyncSettings> e : desired.entrySet()) {
      String name = e.getKey();
      SiteConnector.SemiSyncReading reading = apply(m, ref, config, name, e.getValue(), observations);
      if (reading != null) {
        readings.put(name, reading.state());
      }
      if (name.equals(active) && (reading == null || reading.state().sourceEnabled())) {
        // Not answering or refused (told as SemiSyncNotApplied): tried again at the next pass.
        log.debug("{}: the primary '{}' is not switched off yet: the replicas keep acknowledging", ref, name);
        break;
      }
    }
    SemiSyncStatus next = SemiSyncPlan.whileSwitchingOff(config, active, readings);
    if (next == null) {
      log.info("{}: semi-sync is off on every site", ref);
    }
    writeStatus(m, ref, status, next);
    return Optional.empty();
  }

  /**
   * Gives one site's server {@code want} in one session, telling what changed (Normal Event) or a
   * refusal (Warning Event, once while it repeats); null when the site is not answering or refused.
   */
  private SiteConnector.SemiSyncReading apply(Memory m, GroupRef ref, GroupConfig config, String name,
      SemiSyncSettings want, Map<String, SiteObservation> observations) {
    SiteObservation o = observations.get(name);
    SiteSpec site = config.site(name).orElse(null);
    if (site == null || o == null || !o.answeringNow()) {
      return null;
    }
    try {
      SiteConnector.SemiSyncReading reading = sites.semiSync(ref, config, site, want);
      if (!reading.changes().isEmpty()) {
        log.info("{}: semi-sync on site '{}': {}", ref, name, reading.changes());
        effects.eventOrLog(ref, Events.SEMI_SYNC_APPLIED,
            "site '" + name + "': " + String.join(", ", reading.changes()));
      }
      m.lastFailure = null;
      return reading;
    } catch (Exception e) {
      String message = "site '" + name + "': " + e.getMessage();
      log.warn("{}: semi-sync not applied on {}", ref, message);
      String before = m.lastFailure;
      m.lastFailure = message;
      if (!message.equals(before)) {
        effects.eventOrLog(ref, Events.SEMI_SYNC_NOT_APPLIED, message);
      }
      return null;
    }
  }

  /** {@code status.semiSync} as last written by this keeper, else as the group shows it; null: none. */
  private SemiSyncStatus shown(Memory m, MysqlFailoverGroupStatus status) {
    SemiSyncStatus last = m.lastStatus;
    return last == null ? status.semiSync() : last == REMOVED ? null : last;
  }

  /** Writes {@code next} (null: removes the status) when it differs from what is shown. */
  private void writeStatus(Memory m, GroupRef ref, MysqlFailoverGroupStatus status, SemiSyncStatus next) {
    if (Objects.equals(next, shown(m, status))) {
      return;
    }
    try {
      statusWriter.accept(ref, next);
      m.lastStatus = next == null ? REMOVED : next;
    } catch (RuntimeException e) {
      log.warn("{}: cannot write status.semiSync: {}", ref, e.toString());
    }
  }

  private void noteFallback(Memory m, GroupRef ref, String active, SemiSyncStatus now) {
    boolean fallen = Boolean.TRUE.equals(now.fallenBack());
    Boolean before = m.lastFallenBack;
    m.lastFallenBack = fallen;
    if (fallen && !Boolean.TRUE.equals(before)) {
      effects.eventOrLog(ref, Events.SEMI_SYNC_FALLEN_BACK, active + " " + now.message());
    } else if (!fallen && Boolean.TRUE.equals(before) && Boolean.TRUE.equals(now.enabled())) {
      effects.eventOrLog(ref, Events.SEMI_SYNC_RESTORED, active + ": " + now.message() + " again");
    }
  }

  private Optional<GroupConditions.Problem> problem(Memory m) {
    SemiSyncStatus s = m.lastStatus;
    if (s != null && Boolean.TRUE.equals(s.fallenBack())) {
      return Optional.of(new GroupConditions.Problem(Events.SEMI_SYNC_FALLEN_BACK.reason(), "the primary "
          + s.primary() + " has " + s.message() + "; an emergency failover now may lose acknowledged writes", true));
    }
    return Optional.empty();
  }

  /**
   * Whether each replica acknowledged commits at the last pass (at most a poll interval old), for
   * the sites' readiness; empty when semi-sync is off or no pass read them.
   */
  static Map<String, Boolean> acking(Memory m) {
    return m.acking;
  }
}
