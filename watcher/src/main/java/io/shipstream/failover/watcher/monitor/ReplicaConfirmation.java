package io.shipstream.failover.watcher.monitor;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.PrimaryConfirmation;
import io.shipstream.failover.model.topology.PrimaryConfirmation.ReplicaView;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.model.topology.SiteObservation;
import io.shipstream.failover.watcher.topology.SiteConnector;
import io.shipstream.failover.watcher.topology.SiteProber;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holistic detection, on the poll path: a failed poll of the primary is put to its replicas
 * before the poll is fed, so no evaluation sees the failure without their answer ({@link
 * PrimaryConfirmation}).
 */
final class ReplicaConfirmation {
  /** The monitor's log category, as before this was split out of it (KillTimeline reads these lines). */
  private static final Logger log = LoggerFactory.getLogger(TopologyMonitor.class);

  private final SiteConnector sites;
  private final Function<GroupRef, Optional<MysqlFailoverGroup>> latest;
  private final Clock clock;
  /** The poll threads: each replica is asked on one of them, in parallel. */
  private final Executor pollThreads;

  ReplicaConfirmation(SiteConnector sites, Function<GroupRef, Optional<MysqlFailoverGroup>> latest, Clock clock,
      Executor pollThreads) {
    this.sites = sites;
    this.latest = latest;
    this.clock = clock;
    this.pollThreads = pollThreads;
  }

  /**
   * Holistic detection: when a poll of the primary fails, every other site is asked at once, in
   * parallel on the poll pool and each bounded by the poll's timeouts, how it sees its source
   * ({@link PrimaryConfirmation}); the answer stands until the primary's next poll. A poll that
   * answers forgets the episode. When the replicas' answer rests on their connection errors, the
   * primary is polled once more, after they answered (row c3b), and that poll is returned to be fed
   * in place of {@code probe}: an answer ends the episode, a failure confirms the death. Otherwise
   * returns {@code probe}.
   */
  Probe confirm(WatchedGroup w, SiteSpec site, Probe probe, Instant startedAt) {
    GroupPolls g = w.polls;
    String primary = latest.apply(g.group()).map(MysqlFailoverGroup::getStatus)
        .map(s -> PrimaryConfirmation.primaryOf(s.activeSite(), s.lastFailoverTarget())).orElse(null);
    if (!site.name().equals(primary)) {
      return probe;
    }
    if (probe.reachable()) {
      w.forgetEpisode();
      return probe;
    }
    if (w.primaryLostAt == null) {
      w.primaryLostAt = startedAt;
    }
    long started = System.nanoTime();
    Map<String, CompletableFuture<ReplicaView>> asked = new LinkedHashMap<>();
    for (SiteSpec other : g.config().sites()) {
      if (other.name().equals(primary)) {
        continue;
      }
      try {
        asked.put(other.name(), CompletableFuture.supplyAsync(
            () -> sites.sourceView(g.group(), g.config(), other, clock.instant()), pollThreads));
      } catch (RejectedExecutionException e) {
        return probe;
      }
    }
    // Each answer is bounded by the connect and socket timeouts (one each at most); the wait too.
    long deadline = System.nanoTime() + SiteProber.timeout(g.config().pollInterval()).multipliedBy(2).toNanos()
        + TimeUnit.MILLISECONDS.toNanos(500);
    List<PrimaryConfirmation.Asked> views = new ArrayList<>();
    asked.forEach((name, future) -> {
      ReplicaView v;
      try {
        v = future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (Exception e) {
        future.cancel(true);
        v = ReplicaView.unanswered(name, "no answer in time: " + e, clock.instant());
      }
      PrimaryConfirmation.Sampled s = PrimaryConfirmation.Sampled.next(w.samples.get(name), v);
      w.samples.put(name, s);
      Instant before = w.previousRead.put(name, v.at());
      views.add(new PrimaryConfirmation.Asked(s, before));
    });
    Probe last = g.observations().get(primary).lastReachable();
    String serverId = last == null ? null : last.serverId();
    Instant answeredAt = last == null ? null : last.at();
    PrimaryConfirmation.Result result = PrimaryConfirmation.decide(false, serverId, w.primaryLostAt,
        g.config().minSourceSilence(), views, answeredAt, null);
    long asking = (System.nanoTime() - started) / 1_000_000;
    Probe fed = probe;
    long recheckMillis = -1;
    if (result.outcome() == PrimaryConfirmation.Outcome.RECHECK) {
      // Row c3b: an IO thread keeps the error of its last retry, which may be older than a
      // restart; only a poll begun after the replicas answered tells.
      long recheckStarted = System.nanoTime();
      Instant begun = clock.instant();
      Probe again = g.poll(sites, site, clock);
      recheckMillis = (System.nanoTime() - recheckStarted) / 1_000_000;
      result = PrimaryConfirmation.decide(false, serverId, w.primaryLostAt, g.config().minSourceSilence(), views,
          answeredAt, new PrimaryConfirmation.Recheck(begun, again.reachable()));
      fed = again;
      if (again.reachable()) {
        log.info("{}: the poll of the primary '{}' begun at {} failed, but it answered the poll after its replicas "
            + "({} ms after them, {} ms): {}", g.group(), primary, startedAt, asking, recheckMillis, result.reason());
        w.forgetEpisode();
        return fed;
      }
    }
    WatchedGroup.Confirmation before = w.confirmation;
    w.confirmation = new WatchedGroup.Confirmation(primary, fed.at(), result);
    // One line per change of outcome, not one per failed poll.
    boolean changed = before == null || before.result().outcome() != result.outcome();
    if (changed && log.isInfoEnabled() || log.isDebugEnabled()) {
      String line = "{}: the poll of the primary '{}' begun at {} failed; its replicas say {} in {} ms{}: {}";
      Object[] args = {g.group(), primary, startedAt, result.outcome(), asking, recheckMillis < 0 ? ""
          : " (and a poll of it after them failed in " + recheckMillis + " ms)", result.reason()};
      if (changed) {
        log.info(line, args);
      } else {
        log.debug(line, args);
      }
    }
    return fed;
  }

  /** The replicas' answer, if it is about the primary's latest poll. */
  static PrimaryConfirmation.Result about(WatchedGroup w, Map<String, SiteObservation> observations,
      String primary) {
    WatchedGroup.Confirmation c = w.confirmation;
    if (c == null || primary == null || !c.primary().equals(primary)) {
      return null;
    }
    SiteObservation o = observations.get(primary);
    if (o == null || o.latest() == null || o.answeringNow() || !o.latest().at().equals(c.probeAt())) {
      return null;
    }
    return c.result();
  }
}
