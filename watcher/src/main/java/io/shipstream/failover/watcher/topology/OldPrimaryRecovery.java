package io.shipstream.failover.watcher.topology;

import static io.shipstream.failover.workflows.contract.Events.RECOVERY_BLOCKED;
import static io.shipstream.failover.workflows.contract.Events.RECOVERY_COMPLETE;
import static io.shipstream.failover.workflows.contract.Events.TRANSACTIONS_LOST;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.LostTransactions;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SiteStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.model.topology.Recovery;
import io.shipstream.failover.model.topology.SiteObservation;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings back the primary a failover left behind, once it answers again ({@link Recovery#leftBehind}):
 * the site recorded as {@code status.emergencyFailover.failedSite}, or the source of a planned
 * failover ({@code status.plannedFailover.sourcePrimary}) killed while it ran, whichever failover is
 * the group's last, while it (then {@code Succeeded}) made another site active. Only a server with
 * no replication configured is given a source ({@link Recovery#needsSource}): a configured one whose
 * threads are stopped was stopped by a human and stays so (reported Degraded, ReplicationStopped).
 *
 * <p>Order matters. A returning server that accepts writes is fenced at once, on the poll that sees
 * it, before anything is decided: until then applications that still resolve its address could
 * write there. Its GTID set is only trusted on a later poll that shows it read-only, so no write
 * slips in between the reading and the decision. Then {@link Recovery#decide} against the active
 * primary's set: everything it holds is on the active primary, so it is pointed at it as a replica
 * (RecoveryComplete); or it holds transactions nobody else has, so it stays read-only, unrouted,
 * and {@code status.sites[].divergentGtid} shows them (RecoveryBlocked) until a human decides.
 * Those transactions never reached the new primary: they are recorded as the group's loss in
 * {@code status.lostTransactions} with a TransactionsLost Event, once per failover and site (the
 * record in the status, not this process's memory, says whether it was made, so a watcher restart
 * does not repeat it).
 *
 * <p>Each outcome is acted on once per failover (its {@code startTime}): a rejoined server that
 * later stops replicating is a replication problem for a human, not a reason to re-point it on
 * every poll, and a blocked one does not change while it is read-only. An outcome belongs to its
 * failover: once the status shows a newer one, the older outcomes are dropped, so a site's
 * {@code divergentGtid} never outlives the failover that found it (it would otherwise show on the
 * site after it was repaired, even while it is the primary).
 *
 * <p>The active primary's set is compared only from a poll taken no earlier than the returning
 * server's: its set only grows, and an older poll may predate transactions the returning server
 * got from it. That happens when an old primary already brought back by hand is left without a
 * source because the active primary died: it stops replicating, and the dead primary's last
 * answer is older than its own.
 */
public final class OldPrimaryRecovery implements Duties.Recovery {
  private static final Logger log = LoggerFactory.getLogger(OldPrimaryRecovery.class);

  /** Re-points a server at another as a replica; {@link JdbcRejoin} does it over JDBC. */
  public interface Rejoiner {
    /**
     * Makes {@code site} replicate from {@code source} with GTID auto-positioning, starting after
     * {@code siteGtid}, its own executed set.
     */
    void rejoin(GroupRef group, GroupConfig config, SiteSpec site, SiteSpec source, String siteGtid) throws Exception;
  }

  /** Where Events go: {@link KubeEffects#event} in the watcher. */
  public interface Events {
    void event(GroupRef group, String type, String reason, String message);
  }

  /** Where a confirmed loss is recorded: {@code status.lostTransactions}, the whole list, through the status subresource. */
  public interface Losses {
    void record(GroupRef group, List<LostTransactions> all) throws Exception;
  }

  /** What was done for a site during one failover: rejoined, or blocked with these transactions. */
  private record Outcome(String failoverStart, String divergentGtid) {}

  private final SiteConnector sites;
  private final Rejoiner rejoiner;
  private final Events events;
  private final Losses losses;
  private final Clock clock;

  /** What the recovery keeps about one group between passes: its slice of the group's {@link GroupMemory}. */
  static final class Memory {
    /** Per site, what was done for it during the failover the status shows. */
    final Map<String, Outcome> outcomes = new ConcurrentHashMap<>();
    /** Per site, the writable poll it was last fenced for: the evaluations after other sites' polls see it too. */
    final Map<String, Probe> fencedFor = new ConcurrentHashMap<>();
  }

  /** Without recording losses in the status (the RecoveryBlocked Event and divergentGtid only). */
  public OldPrimaryRecovery(SiteConnector sites, Rejoiner rejoiner, Events events) {
    this(sites, rejoiner, events, null, Clock.systemUTC());
  }

  /**
   * @param losses where a blocked recovery's transactions are recorded as lost (null: not recorded)
   */
  public OldPrimaryRecovery(SiteConnector sites, Rejoiner rejoiner, Events events, Losses losses, Clock clock) {
    this.sites = sites;
    this.rejoiner = rejoiner;
    this.events = events;
    this.losses = losses;
    this.clock = clock;
  }

  /**
   * One look at the group after a poll: fences, decides and acts for the returning old primary,
   * if there is one. Never throws: what failed is logged and tried again on the next poll.
   */
  public void check(GroupMemory memory, GroupRef group, GroupConfig config, Map<String, SiteObservation> observations,
      MysqlFailoverGroupStatus status) {
    Memory m = memory.recovery;
    Recovery.LeftBehind left = Recovery.leftBehind(status).orElse(null);
    if (left == null) {
      return;
    }
    String failoverStart = left.failoverStart();
    forgetOtherFailovers(m, failoverStart);
    String site = left.site();
    String active = status.activeSite();
    SiteObservation seen = observations.get(site);
    Probe now = seen == null ? null : seen.latest();
    SiteSpec spec = config.site(site).orElse(null);
    if (now == null || !now.reachable() || spec == null) {
      return;
    }
    if (!now.readOnly()) {
      // Whatever else holds, a second writable server is the worst outcome: fence first.
      if (!now.equals(m.fencedFor.get(site)) && fence(group, config, spec)) {
        m.fencedFor.put(site, now);
      }
      return;
    }
    Outcome done = m.outcomes.get(site);
    // A server with replication configured is not ours to start: a human's STOP SLAVE stays.
    if (!left.settled() || !Recovery.needsSource(now) || (done != null && Objects.equals(done.failoverStart(),
        failoverStart))) {
      return;
    }
    SiteObservation activeSeen = observations.get(active);
    Probe primary = activeSeen == null ? null : activeSeen.latest();
    SiteSpec activeSpec = config.site(active).orElse(null);
    if (primary == null || !primary.reachable() || primary.readOnly() || primary.gtidExecuted() == null
        || activeSpec == null || now.gtidExecuted() == null || primary.at().isBefore(now.at())) {
      return;
    }
    Recovery.Decision decision;
    try {
      decision = Recovery.decide(now.gtidExecuted(), primary.gtidExecuted());
    } catch (IllegalArgumentException e) {
      log.warn("{}: cannot decide the recovery of '{}': {}", group, site, e.getMessage());
      return;
    }
    if (decision instanceof Recovery.Rejoin r) {
      try {
        rejoiner.rejoin(group, config, spec, activeSpec, now.gtidExecuted());
      } catch (Exception e) {
        log.warn("{}: could not make '{}' a replica of '{}': {}", group, site, active, e.toString());
        return;
      }
      m.outcomes.put(site, new Outcome(failoverStart, null));
      String message = "site '" + site + "' replicates from the active site '" + active + "': " + r.reason();
      log.info("{}: {}", group, message);
      events.event(group, RECOVERY_COMPLETE.type().name(), RECOVERY_COMPLETE.reason(), message);
    } else if (decision instanceof Recovery.Blocked b) {
      if (!recordLoss(group, status, failoverStart, site, active, b.divergentGtid())) {
        return;
      }
      m.outcomes.put(site, new Outcome(failoverStart, b.divergentGtid()));
      String message = "site '" + site + "': " + b.reason();
      log.warn("{}: {}", group, message);
      events.event(group, RECOVERY_BLOCKED.type().name(), RECOVERY_BLOCKED.reason(), message);
    }
  }

  /**
   * Records the returning old primary's divergent transactions as the group's loss: the
   * failover's own count could only see what the survivors had seen, and these never reached the
   * new primary. Once per failover and site: an entry already in the status (a watcher restart
   * decides again) is neither written nor announced again. Returns false when the record could
   * not be written, so that the next poll tries again.
   */
  private boolean recordLoss(GroupRef group, MysqlFailoverGroupStatus status, String failover, String site,
      String active, String divergentGtid) {
    if (losses == null) {
      return true;
    }
    List<LostTransactions> recorded = status.lostTransactions() == null ? List.of() : status.lostTransactions();
    if (recorded.stream().anyMatch(l -> site.equals(l.site()) && Objects.equals(failover, l.failover()))) {
      return true;
    }
    long count;
    try {
      count = GtidSet.parse(divergentGtid).count();
    } catch (IllegalArgumentException e) {
      log.warn("{}: cannot count the divergent transactions '{}' of '{}': {}", group, divergentGtid, site,
          e.getMessage());
      return true;
    }
    LostTransactions lost = new LostTransactions(site, failover, active, divergentGtid, count,
        clock.instant().toString());
    List<LostTransactions> all = new ArrayList<>(recorded);
    all.add(lost);
    if (all.size() > MysqlFailoverGroupStatus.LOST_TRANSACTIONS_KEPT) {
      all = all.subList(all.size() - MysqlFailoverGroupStatus.LOST_TRANSACTIONS_KEPT, all.size());
    }
    try {
      losses.record(group, List.copyOf(all));
    } catch (Exception e) {
      log.warn("{}: could not record the {} transaction(s) lost on '{}' in the status, trying again: {}", group, count,
          site, e.toString());
      return false;
    }
    String message = "site '" + site + "' came back holding " + count + " transaction(s) " + divergentGtid
        + " that the active site '" + active + "' never received: they are lost to the group (recorded in "
        + "status.lostTransactions); the failover of " + failover + " could count only what the survivors "
        + "had seen. '" + site + "' stays read-only and unrouted with them until a human decides";
    log.warn("{}: {}", group, message);
    events.event(group, TRANSACTIONS_LOST.type().name(), TRANSACTIONS_LOST.reason(), message);
    return true;
  }

  /** {@code statuses} with the divergent transactions of every blocked site filled in. */
  public List<SiteStatus> withDivergence(GroupMemory memory, List<SiteStatus> statuses) {
    List<SiteStatus> out = new ArrayList<>(statuses.size());
    for (SiteStatus s : statuses) {
      Outcome o = memory.recovery.outcomes.get(s.name());
      if (o == null || o.divergentGtid() == null || Boolean.TRUE.equals(s.replicating())) {
        out.add(s);
      } else {
        out.add(new SiteStatus(s.name(), s.state(), s.lastSeen(), s.replicating(), s.gtidExecuted(),
            s.secondsBehindSource(), o.divergentGtid()));
      }
    }
    return out;
  }

  /** Drops the group's outcomes of every failover but the one the status shows now. */
  private static void forgetOtherFailovers(Memory m, String failoverStart) {
    m.outcomes.values().removeIf(o -> !Objects.equals(o.failoverStart(), failoverStart));
  }

  private boolean fence(GroupRef group, GroupConfig config, SiteSpec site) {
    try {
      sites.fence(group, config, site);
      log.warn("{}: fenced the returning old primary '{}'", group, site.name());
      return true;
    } catch (Exception e) {
      log.warn("{}: could not fence the returning old primary '{}': {}", group, site.name(), e.toString());
      return false;
    }
  }
}
