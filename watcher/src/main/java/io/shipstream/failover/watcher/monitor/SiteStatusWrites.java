package io.shipstream.failover.watcher.monitor;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SiteStatus;
import io.shipstream.failover.model.topology.SiteReadiness;
import io.shipstream.failover.watcher.topology.Duties;
import io.shipstream.failover.watcher.topology.GroupUpkeep;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a watched group's {@code status.sites}: what its polls see, each site's readiness and the
 * divergence the old-primary recovery found, at once on a change of state and otherwise at most
 * every {@link #DETAIL_REFRESH}, and never while a failover's workflow owns the status.
 */
final class SiteStatusWrites {
  /** The monitor's log category, as before this was split out of it. */
  private static final Logger log = LoggerFactory.getLogger(TopologyMonitor.class);
  /** How often unchanged-state details (GTID sets, lag) are written to status.sites at most. */
  static final Duration DETAIL_REFRESH = Duration.ofSeconds(5);
  /**
   * How long a run shown in the status owns it on the status's word alone; after that Temporal is
   * asked (every {@link #DETAIL_REFRESH}), so a run that ended without writing its terminal phase
   * (terminated by hand) does not hold the watcher's status writes back for ever.
   */
  static final Duration RUN_CONFIRM_AFTER = Duration.ofSeconds(30);

  private final BiConsumer<GroupRef, List<SiteStatus>> statusWriter;
  /** Off: no divergence is shown (no old-primary recovery). */
  private final Duties.Recovery recovery;
  /** Off: a run shown in the status is never confirmed with Temporal. */
  private final Duties.Upkeep upkeep;

  SiteStatusWrites(BiConsumer<GroupRef, List<SiteStatus>> statusWriter, Duties.Recovery recovery,
      Duties.Upkeep upkeep) {
    this.statusWriter = statusWriter;
    this.recovery = recovery;
    this.upkeep = upkeep;
  }

  /**
   * Whether a failover's workflow owns the group's status now, so the monitor leaves it alone (see
   * {@link #write}): the status shows a run past waiting ({@link GroupUpkeep#failoverRunning}), the
   * run's own word, on the resource before its first step. A run shown for longer than {@link
   * #RUN_CONFIRM_AFTER} is confirmed with Temporal, so a status left behind by a run that ended
   * without its last write is written again.
   */
  boolean runOwnsStatus(WatchedGroup w, MysqlFailoverGroupStatus status, Instant now) {
    if (!GroupUpkeep.failoverRunning(status)) {
      w.runShownSince = null;
      w.runAskedAt = null;
      return false;
    }
    if (w.runShownSince == null) {
      w.runShownSince = now;
    }
    if (!upkeep.keeps() || now.isBefore(w.runShownSince.plus(RUN_CONFIRM_AFTER))) {
      return true;
    }
    if (w.runAskedAt == null || !now.isBefore(w.runAskedAt.plus(DETAIL_REFRESH))) {
      w.runAskedAt = now;
      w.runAsked = upkeep.runConfirmed(w.polls.group());
      if (!w.runAsked) {
        log.warn("{}: the status shows a failover running since {} or before, but no workflow runs: the watcher "
            + "writes the group's status again", w.polls.group(), w.runShownSince);
      }
    }
    return w.runAsked;
  }

  /**
   * Writes status.sites when a site's state or replication changed, and otherwise at most every
   * {@link #DETAIL_REFRESH}: GTID sets and lastSeen move on every poll of a busy group, and a
   * status write per poll would load the API server for nothing.
   *
   * <p>While a failover's workflow owns the group ({@code runOwns}: its status shows a run past
   * waiting, {@link GroupUpkeep#failoverRunning}), nothing is written: the run writes the status at
   * every phase change, its first writes and its failover record are guarded by the resourceVersion
   * they read, and each write of ours in between made them read and write again (a planned failover
   * took 460 ms instead of 250 ms when the monitor began writing beside it). Nothing reads
   * status.sites during the run: the emergency workflow reads the divergent sites from the status it
   * starts from, and the old-primary recovery keeps its outcomes in memory. The held write is made
   * on the first evaluation after the run's terminal phase, whatever {@link #DETAIL_REFRESH} says.
   */
  void write(WatchedGroup w, Instant now, boolean runOwns, List<SiteReadiness.Readiness> readiness) {
    List<SiteStatus> current = withReadiness(recovery.withDivergence(w.memory, w.polls.siteStatuses()),
        readiness);
    if (current.equals(w.written)) {
      return;
    }
    if (runOwns) {
      w.held = true;
      return;
    }
    boolean significant = w.held || w.written == null || !essentials(current).equals(essentials(w.written));
    if (!significant && now.isBefore(w.writtenAt.plus(DETAIL_REFRESH))) {
      return;
    }
    statusWriter.accept(w.polls.group(), current);
    w.written = current;
    w.writtenAt = now;
    w.held = false;
  }

  /** A change of readiness (either path, or its reason) is written at once, as a change of state is. */
  private static List<List<Object>> essentials(List<SiteStatus> sites) {
    return sites.stream().map(s -> List.<Object>of(Objects.toString(s.name()), Objects.toString(s.state()),
        Objects.toString(s.replicating()), Objects.toString(s.divergentGtid()),
        s.readiness() == null ? "" : Objects.toString(s.readiness().plannedReason()) + "/"
            + s.readiness().emergencyReason() + "/" + s.readiness().emergencyRank()))
        .toList();
  }

  /** {@code sites} with each one's readiness, as {@code status.sites[].readiness} shows it; unchanged when null. */
  static List<SiteStatus> withReadiness(List<SiteStatus> sites, List<SiteReadiness.Readiness> readiness) {
    if (readiness == null) {
      return sites;
    }
    Map<String, SiteReadiness.Readiness> bySite = new HashMap<>();
    readiness.forEach(r -> bySite.put(r.site(), r));
    return sites.stream().map(s -> {
      SiteReadiness.Readiness r = bySite.get(s.name());
      return r == null ? s : s.withReadiness(new MysqlFailoverGroupStatus.Readiness(r.plannedReady(),
          r.plannedReady() ? null : r.planned().reason().name(), r.emergencyReady(),
          r.emergencyReady() ? null : r.emergency().reason().name(), r.emergencyRank(), r.message()));
    }).toList();
  }
}
