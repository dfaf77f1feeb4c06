package io.shipstream.failover.watcher.monitor;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.PrimaryConfirmation;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.model.topology.SiteDebouncer;
import io.shipstream.failover.runtime.DaemonThreads;
import io.shipstream.failover.watcher.topology.SiteConnector;
import io.shipstream.failover.watcher.topology.TopologyMetrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When each site of a watched group is polled, and what follows a poll: each site has its own
 * poll, rescheduled after every answer with the debouncer's delay ({@code pollInterval}, backing
 * off for a dead site). One scheduler thread starts each poll when it is due on the {@link
 * PollThreads}; how late each poll started is {@code bloodraven_poll_start_delay_seconds}. A failed
 * poll of the primary is put to the replicas before it is fed ({@link ReplicaConfirmation}). After
 * each poll the group is evaluated by the {@link GroupPass} on one separate thread (evaluations of
 * a group queued while one waits are folded into it), so Temporal or API server calls never hold
 * up a poll.
 */
final class PollScheduler {
  /** The monitor's log category, as before the scheduler was split out of it. */
  private static final Logger log = LoggerFactory.getLogger(TopologyMonitor.class);

  private final SiteConnector sites;
  private final TopologyMetrics metrics;
  private final Function<GroupRef, Optional<MysqlFailoverGroup>> latest;
  private final Clock clock;
  private final GroupPass pass;
  /** Starts each poll when it is due, on {@link #pollThreads}. */
  private final ScheduledExecutorService polls = Executors.newSingleThreadScheduledExecutor(
      DaemonThreads.named("topology-schedule"));
  private final ThreadPoolExecutor pollThreads = PollThreads.start();
  private final ScheduledExecutorService evaluations = Executors.newSingleThreadScheduledExecutor(
      DaemonThreads.named("topology-evaluate"));
  /** Puts a failed poll of the primary to its replicas before it is fed. */
  private final ReplicaConfirmation confirmation;

  PollScheduler(SiteConnector sites, TopologyMetrics metrics, Function<GroupRef, Optional<MysqlFailoverGroup>> latest,
      Clock clock, GroupPass pass) {
    this.sites = sites;
    this.metrics = metrics;
    this.latest = latest;
    this.clock = clock;
    this.pass = pass;
    this.confirmation = new ReplicaConfirmation(sites, latest, clock, pollThreads);
    metrics.pollThreads(pollThreads::getPoolSize);
  }

  /**
   * Starts a group's polls, spread over the interval: a kill is seen by whichever site is polled
   * first, the primary itself or a replica that lost it (pollPrimaryNow), not only at the primary's own turn.
   */
  void start(WatchedGroup w) {
    List<SiteSpec> spread = w.polls.config().sites();
    for (int i = 0; i < spread.size(); i++) {
      schedule(w, spread.get(i), w.polls.config().pollInterval().multipliedBy(i).dividedBy(spread.size()));
    }
  }

  boolean stopped() {
    return polls.isShutdown();
  }

  private void schedule(WatchedGroup w, SiteSpec site, Duration delay) {
    if (w.stopped.get()) {
      return;
    }
    long due = System.nanoTime() + delay.toNanos();
    try {
      w.nextPoll.put(site.name(), polls.schedule(() -> pollThreads.execute(() -> {
        metrics.pollStarted(Duration.ofNanos(Math.max(0, System.nanoTime() - due)));
        poll(w, site);
        if (w.stopped.get()) {
          // Stopped while this poll ran: what it kept for the group is closed too.
          sites.forget(w.polls.group());
        }
      }), delay.toMillis(), TimeUnit.MILLISECONDS));
    } catch (RejectedExecutionException e) {
      // Closed on losing leadership: the next leader polls.
    }
  }

  /**
   * Moves the site's next poll to now, if it is waiting for its turn; a poll already started (or
   * moved by another caller) is left alone, so a site always has one poll in flight or due.
   */
  private void pollNow(WatchedGroup w, SiteSpec site) {
    ScheduledFuture<?> next = w.nextPoll.get(site.name());
    if (next != null && next.getDelay(TimeUnit.MILLISECONDS) > 0 && next.cancel(false)) {
      schedule(w, site, Duration.ZERO);
    }
  }

  private void poll(WatchedGroup w, SiteSpec site) {
    if (w.stopped.get()) {
      return;
    }
    try {
      pollOnce(w, site);
    } catch (RuntimeException e) {
      // This site's poll fails alone: it is polled again at its interval, and every other site and
      // group is polled as before. Without the reschedule below the site would never be polled again.
      log.warn("{}: the poll of site '{}' failed: {}", w.polls.group(), site.name(), e.toString());
      metrics.passFailed(w.polls.group(), "poll");
      schedule(w, site, w.polls.config().pollInterval());
    }
  }

  private void pollOnce(WatchedGroup w, SiteSpec site) {
    GroupPolls g = w.polls;
    long started = System.nanoTime();
    Instant startedAt = clock.instant();
    Probe probe = g.poll(sites, site, clock);
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    // Before the poll is fed: no evaluation may see the failed poll without the replicas' answer to
    // it. The confirmation may poll the primary again after the replicas answered: that fresher
    // poll is fed instead.
    probe = confirmation.confirm(w, site, probe, startedAt);
    primaryNow(w, site, probe);
    SiteDebouncer d = g.observe(probe);
    metrics.polled(g.group(), site.name(), took, d.state(), probe.reachable() ? probe.secondsBehindSource() : null);
    if (!probe.reachable()) {
      log.debug("{}: site '{}' did not answer: {}", g.group(), site.name(), probe.error());
    }
    queueEvaluation(w);
    Duration next = d.nextPollDelay(g.config().pollInterval()).minus(Duration.ofNanos(System.nanoTime() - started));
    schedule(w, site, next.isNegative() ? Duration.ZERO : next);
  }

  /**
   * A replica that lost its connection to the primary has the primary polled, and with it the
   * replicas asked, at once rather than at the primary's turn ({@link PrimaryConfirmation#pollPrimaryNow}).
   */
  private void primaryNow(WatchedGroup w, SiteSpec site, Probe probe) {
    GroupPolls g = w.polls;
    String primary = latest.apply(g.group()).map(MysqlFailoverGroup::getStatus)
        .map(s -> PrimaryConfirmation.primaryOf(s.activeSite(), s.lastFailoverTarget())).orElse(null);
    if (primary == null || site.name().equals(primary)
        || !PrimaryConfirmation.pollPrimaryNow(probe, g.observations().get(primary))) {
      return;
    }
    g.config().sites().stream().filter(s -> s.name().equals(primary)).findFirst().ifPresent(p -> {
      log.debug("{}: site '{}' lost its connection to the primary '{}' ({}): polling it now", g.group(), site.name(),
          primary, probe.sourceIoError());
      pollNow(w, p);
    });
  }

  private void queueEvaluation(WatchedGroup w) {
    if (!w.evaluationQueued.compareAndSet(false, true)) {
      return;
    }
    try {
      evaluations.execute(() -> {
        w.evaluationQueued.set(false);
        pass.run(w);
      });
    } catch (RejectedExecutionException e) {
      w.evaluationQueued.set(false);
    }
  }

  /** Stops every poll; a poll already running finishes its JDBC call and is not rescheduled. */
  void close() {
    polls.shutdownNow();
    pollThreads.shutdownNow();
    metrics.pollThreads(() -> 0);
    evaluations.shutdownNow();
  }
}
