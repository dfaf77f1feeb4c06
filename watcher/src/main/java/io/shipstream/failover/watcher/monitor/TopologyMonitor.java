package io.shipstream.failover.watcher.monitor;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SiteStatus;
import io.shipstream.failover.model.topology.GroupDeletion;
import io.shipstream.failover.watcher.groups.GroupChanges;
import io.shipstream.failover.watcher.topology.DrainWatch;
import io.shipstream.failover.watcher.topology.Duties;
import io.shipstream.failover.watcher.topology.LeaseFenceLifts;
import io.shipstream.failover.watcher.topology.SiteConnector;
import io.shipstream.failover.watcher.topology.TopologyMetrics;
import io.shipstream.failover.watcher.topology.VerdictReactions;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls every site of every watched group and acts on the cross-site matrix. Runs on the leading
 * watcher replica only: created when it starts leading (the informers then hand it every cached
 * group), closed when it stops.
 *
 * <p>The monitor is the poll scheduler: each site has its own poll, rescheduled after every answer
 * with the debouncer's delay ({@code pollInterval}, backing off for a dead site). One scheduler
 * thread starts each poll when it is due on the {@link PollThreads}; how late each poll started is
 * {@code bloodraven_poll_start_delay_seconds}. A failed poll of the primary is put to the replicas
 * before it is fed ({@link ReplicaConfirmation}). After each poll the group is evaluated by one
 * {@link GroupPass} on one separate thread (evaluations of a group queued while one waits are
 * folded into it), so Temporal or API server calls never hold up a poll.
 */
public final class TopologyMonitor implements GroupChanges, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TopologyMonitor.class);
  /** What a refused spec edit leaves in force, in the condition's and the Event's words. */
  static final String KEPT_SPEC = "the edit is refused: the group is still monitored, and failed over if need be, "
      + "with the spec accepted before";
  private final SiteConnector sites;
  private final TopologyMetrics metrics;
  private final Function<GroupRef, Optional<MysqlFailoverGroup>> latest;
  /** The per-group evaluation each poll queues: what the group's polls are for. */
  private final GroupPass pass;
  private final PollScheduler scheduler;
  private final Map<GroupRef, WatchedGroup> groups = new ConcurrentHashMap<>();

  public TopologyMonitor(SiteConnector sites, VerdictReactions reactions,
      BiConsumer<GroupRef,
      List<SiteStatus>> statusWriter,
      TopologyMetrics metrics, Function<GroupRef, Optional<MysqlFailoverGroup>> latest, Clock clock) {
    this(sites, reactions, statusWriter, metrics, latest, clock, Duties.Recovery.OFF);
  }

  /** With {@code recovery}, the old primary of an emergency failover is fenced and brought back when it returns. */
  public TopologyMonitor(SiteConnector sites, VerdictReactions reactions,
      BiConsumer<GroupRef,
      List<SiteStatus>> statusWriter,
      TopologyMetrics metrics, Function<GroupRef, Optional<MysqlFailoverGroup>> latest, Clock clock,
      Duties.Recovery recovery) {
    this(sites, reactions, statusWriter, metrics, latest, clock, recovery, Duties.Startup.OFF);
  }

  /** With {@code startup}, the sidecars are asked how their servers start, and a writable start is an Event. */
  public TopologyMonitor(SiteConnector sites, VerdictReactions reactions,
      BiConsumer<GroupRef,
      List<SiteStatus>> statusWriter,
      TopologyMetrics metrics, Function<GroupRef, Optional<MysqlFailoverGroup>> latest, Clock clock,
      Duties.Recovery recovery, Duties.Startup startup) {
    this(sites, reactions, statusWriter, metrics, latest, clock, recovery, startup, Duties.Upkeep.OFF);
  }

  /**
   * With {@code upkeep}, a group that never recorded an active site is adopted (and the matrix
   * does not act on it before), an invalid spec is reported, and the conditions are written.
   */
  public TopologyMonitor(SiteConnector sites, VerdictReactions reactions,
      BiConsumer<GroupRef,
      List<SiteStatus>> statusWriter,
      TopologyMetrics metrics, Function<GroupRef, Optional<MysqlFailoverGroup>> latest, Clock clock,
      Duties.Recovery recovery, Duties.Startup startup, Duties.Upkeep upkeep) {
    this.sites = sites;
    this.metrics = metrics;
    this.latest = latest;
    this.pass = new GroupPass(reactions, metrics, latest, clock, recovery, startup, upkeep,
        new SiteStatusWrites(statusWriter, recovery, upkeep));
    this.scheduler = new PollScheduler(sites, metrics, latest, clock, pass);
  }

  /**
   * With false the monitor only watches: it adopts, keeps routing and conditions right and writes
   * status.sites, but starts no failover, fences nothing and brings no old primary back.
   */
  public TopologyMonitor acting(boolean act) {
    pass.acting = act;
    return this;
  }

  /**
   * With {@code lifts}, a group left without a writable primary because its active site's sidecar
   * fenced it by its lease has the fence lifted once nothing else explains it ({@link
   * LeaseFenceLifts}); only while acting and not paused.
   */
  public TopologyMonitor leaseFenceLifts(Duties.LeaseFences lifts) {
    pass.leaseFences = lifts;
    return this;
  }

  /**
   * With {@code drains}, a group with {@code spec.plannedFailover.onActiveNodeDrain: switchover} is
   * switched over when its active site's node is cordoned ({@link DrainWatch}); only while acting.
   */
  public TopologyMonitor drainWatch(Duties.Drains drains) {
    pass.drains = drains;
    return this;
  }

  /** Status writes (ours and the workflows') arrive here too; only a changed spec restarts the polls. */
  @Override
  public void changed(GroupRef ref) {
    sync(ref);
  }

  @Override
  public void deleted(GroupRef ref) {
    stop(ref);
  }

  /** Starts, restarts (spec changed) or stops the polls of a group to match the cached resource. */
  synchronized void sync(GroupRef ref) {
    Optional<MysqlFailoverGroup> current = latest.apply(ref);
    if (current.isEmpty() || scheduler.stopped()) {
      stop(ref);
      return;
    }
    if (GroupDeletion.deleting(current.get())) {
      // Being deleted: no failover starts, and no routing repair puts back the taints the
      // finalizer (GroupFinalizer) removes once any running failover has ended.
      if (groups.containsKey(ref)) {
        log.info("{}: being deleted, no longer monitored", ref);
      }
      stop(ref);
      return;
    }
    GroupConfig config;
    WatchedGroup existing = groups.get(ref);
    try {
      if (!current.get().unreadable().isEmpty()) {
        // A value this version cannot read (the cache read every other group past it): an invalid spec.
        throw new GroupConfig.InvalidSpecException(current.get().unreadable());
      }
      config = GroupConfig.resolve(current.get().getSpec());
    } catch (IllegalArgumentException e) {
      List<String> problems = e instanceof GroupConfig.InvalidSpecException invalid ? invalid.problems()
          : List.of(e.getMessage());
      if (existing != null && !current.get().statusUnreadable()) {
        // An edit that does not resolve must not leave a running group unprotected: it is refused,
        // and the group stays monitored with the spec accepted before.
        String rejected = String.join("; ", problems) + "; " + KEPT_SPEC;
        if (!rejected.equals(existing.rejectedSpec)) {
          log.warn("{}: spec refused, still monitored with the one accepted before: {}", ref, rejected);
          existing.rejectedSpec = rejected;
          pass.invalidSpec(ref, current.get(), List.of(rejected));
        }
        return;
      }
      log.warn("{}: not monitored: {}", ref, e.getMessage());
      stop(ref);
      pass.invalidSpec(ref, current.get(), problems);
      return;
    }
    if (existing != null && existing.polls.config().equals(config)) {
      existing.rejectedSpec = null;
      return;
    }
    stopPolls(ref);
    MysqlFailoverGroupStatus status = current.get().getStatus();
    WatchedGroup w = new WatchedGroup(new GroupPolls(ref, config), current.get().getSpec(), status == null ? null
        : status.sites());
    groups.put(ref, w);
    metrics.state().watch(ref);
    log.info("{}: monitoring {} sites every {}", ref, config.sites().size(), config.pollInterval());
    scheduler.start(w);
    pass.started(ref, config);
  }

  /** Stops a group that is no longer watched: what every step keeps for it is forgotten. */
  private synchronized void stop(GroupRef ref) {
    stopPolls(ref);
    pass.unwatched(ref);
  }

  /** Stops a group's polls, also before a spec change restarts them; the startup checks outlive a restart. */
  private synchronized void stopPolls(GroupRef ref) {
    WatchedGroup w = groups.remove(ref);
    if (w != null) {
      w.stopped.set(true);
      pass.pollsStopped(ref);
      sites.forget(ref);
    }
  }

  /**
   * The spec the group is monitored with: the last one that resolved, which stays in force while
   * an edit that does not resolve is refused. Empty for a group not monitored. An emergency
   * failover the monitor starts acts on this spec, the one its decision was made with.
   */
  public Optional<MysqlFailoverGroupSpec> acceptedSpec(GroupRef ref) {
    return Optional.ofNullable(groups.get(ref)).map(w -> w.spec);
  }

  /** Visible for tests. */
  Optional<WatchedGroup> watched(GroupRef ref) {
    return Optional.ofNullable(groups.get(ref));
  }

  /** Stops every poll; a poll already running finishes its JDBC call and is not rescheduled. */
  @Override
  public synchronized void close() {
    List.copyOf(groups.keySet()).forEach(this::stop);
    pass.close();
    scheduler.close();
  }
}
