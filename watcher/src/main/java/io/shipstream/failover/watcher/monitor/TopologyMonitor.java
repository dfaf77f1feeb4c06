package io.shipstream.failover.watcher.monitor;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.watcher.GroupChanges;
import io.shipstream.failover.runtime.DaemonThreads;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SiteStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.Adoption;
import io.shipstream.failover.model.topology.GroupConditions;
import io.shipstream.failover.model.topology.GroupDeletion;
import io.shipstream.failover.model.topology.TlsProblems;
import io.shipstream.failover.model.topology.GroupFlavors;
import io.shipstream.failover.model.topology.PrimaryConfirmation;
import io.shipstream.failover.model.topology.Recovery;
import io.shipstream.failover.model.topology.PrimaryConfirmation.ReplicaView;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.model.topology.PauseAnnotation;
import io.shipstream.failover.model.topology.PromoteAnywayAnnotation;
import io.shipstream.failover.model.topology.SiteObservation;
import io.shipstream.failover.model.topology.SiteReadiness;
import io.shipstream.failover.model.topology.Verdict;
import io.shipstream.failover.model.topology.SiteDebouncer;
import io.shipstream.failover.model.topology.TopologyMatrix;
import io.shipstream.failover.workflows.contract.Events;
import io.shipstream.failover.watcher.topology.DrainWatch;
import io.shipstream.failover.watcher.topology.LeaseFenceLifts;
import io.shipstream.failover.watcher.topology.OldPrimaryRecovery;
import io.shipstream.failover.watcher.topology.Reactions;
import io.shipstream.failover.watcher.topology.SiteConnector;
import io.shipstream.failover.watcher.topology.SiteFences;
import io.shipstream.failover.watcher.topology.SiteProber;
import io.shipstream.failover.watcher.topology.StartupChecks;
import io.shipstream.failover.watcher.topology.Steward;
import io.shipstream.failover.watcher.topology.TopologyMetrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls every site of every watched group and acts on the cross-site matrix. Runs on the leading
 * watcher replica only: created when it starts leading (the informers then hand it every cached
 * group), closed when it stops.
 *
 * <p>Each site has its own poll, rescheduled after every answer with the debouncer's delay
 * ({@code pollInterval}, backing off for a dead site). One scheduler thread starts each poll when
 * it is due on a pool of poll threads that grows with the polls running at once, up to {@link
 * #MAX_POLL_THREADS}, and shrinks again when they are idle (a hand-off, as a cached thread pool:
 * the thread last idle takes the next poll, so surplus threads die after {@link
 * #POLL_THREAD_IDLE}). A poll is bounded by its JDBC timeouts ({@code min(pollInterval, 2s)}), and
 * a poll blocked on a dead or black-holed site holds its own thread, never one another site's poll
 * waits for: in a region outage, where a third of a fleet's sites block for their whole timeout at
 * once, the healthy sites are still polled on time (the fleet benchmark, {@code ./temporal-dev/benchmark
 * fleet}, measures it; a fixed pool of 8 made them wait). Only with more than {@link
 * #MAX_POLL_THREADS} polls blocked at once do the rest wait for a free thread. How late each poll
 * started is {@code bloodraven_poll_start_delay_seconds}. After each poll the group
 * is evaluated on one separate thread (evaluations of a group queued while one waits are folded
 * into it), so Temporal or API server calls never hold up a poll.
 */
public final class TopologyMonitor implements GroupChanges, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TopologyMonitor.class);
  /** What a refused spec edit leaves in force, in the condition's and the Event's words. */
  static final String KEPT_SPEC = "the edit is refused: the group is still monitored, and failed over if need be, "
      + "with the spec accepted before";
  /**
   * The most polls running at once: a dead site's poll blocks for at most its timeout, no longer
   * than its interval, so a region outage of this many sites still leaves every site polled on time.
   */
  static final int MAX_POLL_THREADS = 1024;
  /** A poll thread idle this long ends: the pool shrinks back after an outage. */
  static final Duration POLL_THREAD_IDLE = Duration.ofSeconds(30);
  /** How often unchanged-state details (GTID sets, lag) are written to status.sites at most. */
  static final Duration DETAIL_REFRESH = Duration.ofSeconds(5);
  /**
   * How long a run shown in the status owns it on the status's word alone; after that Temporal is
   * asked (every {@link #DETAIL_REFRESH}), so a run that ended without writing its terminal phase
   * (terminated by hand) does not hold the watcher's status writes back for ever.
   */
  static final Duration RUN_CONFIRM_AFTER = Duration.ofSeconds(30);

  private final SiteConnector sites;
  private final Reactions reactions;
  private final BiConsumer<GroupRef, List<SiteStatus>> statusWriter;
  private final TopologyMetrics metrics;
  private final Function<GroupRef, Optional<MysqlFailoverGroup>> latest;
  private final Clock clock;
  private final OldPrimaryRecovery recovery;
  private final Steward steward;
  /** Whether verdicts are acted on (emergency failovers, fences, recovery), or only reported. */
  private volatile boolean acting = true;
  /** Lifts a lease fence of the active primary that nothing explains; null: never (tests of the other duties). */
  private volatile LeaseFenceLifts leaseFences;
  /** spec.plannedFailover.onActiveNodeDrain; null: not watched (tests of the other duties). */
  private volatile DrainWatch drains;
  private final StartupChecks startup;
  private final Map<GroupRef, Watched> groups = new ConcurrentHashMap<>();
  /** Starts each poll when it is due, on {@link #pollThreads}. */
  private final ScheduledExecutorService polls;
  private final java.util.concurrent.ThreadPoolExecutor pollThreads;
  private final ScheduledExecutorService evaluations = Executors.newSingleThreadScheduledExecutor(
      DaemonThreads.named("topology-evaluate"));

  /** One watched group: its polls, and what was last written to its status. */
  private final class Watched {
    final GroupPolls polls;
    /** The spec {@link #polls} was resolved from: the last one accepted. */
    final MysqlFailoverGroupSpec spec;
    /**
     * Why the resource's current spec was refused while this group was monitored; null while the
     * spec monitored with is the resource's. A refused edit changes nothing: the group stays
     * monitored, and failed over if need be, with {@link #spec}.
     */
    volatile String rejectedSpec;
    final AtomicBoolean evaluationQueued = new AtomicBoolean();
    final AtomicBoolean stopped = new AtomicBoolean();
    List<SiteStatus> written;
    Instant writtenAt = Instant.EPOCH;
    /** A write of status.sites was held back while a failover's workflow owned the status: due at once after it. */
    boolean held;
    /** Since when the status has shown a failover run, and when (and what) Temporal last said of it. */
    Instant runShownSince;
    Instant runAskedAt;
    boolean runAsked;
    /** Holistic detection: the replicas' latest answer about the primary, while its polls fail. */
    volatile Confirmation confirmation;
    /** When the first failing poll of the current run of failures of the primary began; null while it answers. */
    volatile Instant primaryLostAt;
    /** Per replica site, its reads with unchanged progress, and when it was read before the latest. */
    final Map<String, PrimaryConfirmation.Sampled> samples = new ConcurrentHashMap<>();
    final Map<String, Instant> previousRead = new ConcurrentHashMap<>();
    /** Per site, its next poll while it waits for its turn: {@link #pollNow} moves it forward. */
    final Map<String, java.util.concurrent.ScheduledFuture<?>> nextPoll = new ConcurrentHashMap<>();

    Watched(GroupPolls polls, MysqlFailoverGroupSpec spec, List<SiteStatus> written) {
      this.polls = polls;
      this.spec = spec;
      this.written = written;
    }
  }

  /** The replicas' answer about {@code primary} after its poll taken at {@code probeAt} failed. */
  record Confirmation(String primary, Instant probeAt, PrimaryConfirmation.Result result) {}

  public TopologyMonitor(SiteConnector sites, Reactions reactions, BiConsumer<GroupRef, List<SiteStatus>> statusWriter,
      TopologyMetrics metrics, Function<GroupRef, Optional<MysqlFailoverGroup>> latest, Clock clock) {
    this(sites, reactions, statusWriter, metrics, latest, clock, null);
  }

  /** With {@code recovery}, the old primary of an emergency failover is fenced and brought back when it returns. */
  public TopologyMonitor(SiteConnector sites, Reactions reactions, BiConsumer<GroupRef, List<SiteStatus>> statusWriter,
      TopologyMetrics metrics, Function<GroupRef, Optional<MysqlFailoverGroup>> latest, Clock clock,
      OldPrimaryRecovery recovery) {
    this(sites, reactions, statusWriter, metrics, latest, clock, recovery, null);
  }

  /** With {@code startup}, the sidecars are asked how their servers start, and a writable start is an Event. */
  public TopologyMonitor(SiteConnector sites, Reactions reactions, BiConsumer<GroupRef, List<SiteStatus>> statusWriter,
      TopologyMetrics metrics, Function<GroupRef, Optional<MysqlFailoverGroup>> latest, Clock clock,
      OldPrimaryRecovery recovery, StartupChecks startup) {
    this(sites, reactions, statusWriter, metrics, latest, clock, recovery, startup, null);
  }

  /**
   * With {@code steward}, a group that never recorded an active site is adopted (and the matrix
   * does not act on it before), an invalid spec is reported, and the conditions are written.
   */
  public TopologyMonitor(SiteConnector sites, Reactions reactions, BiConsumer<GroupRef, List<SiteStatus>> statusWriter,
      TopologyMetrics metrics, Function<GroupRef, Optional<MysqlFailoverGroup>> latest, Clock clock,
      OldPrimaryRecovery recovery, StartupChecks startup, Steward steward) {
    this.steward = steward;
    this.recovery = recovery;
    this.startup = startup;
    this.sites = sites;
    this.reactions = reactions;
    this.statusWriter = statusWriter;
    this.metrics = metrics;
    this.latest = latest;
    this.clock = clock;
    this.polls = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("topology-schedule"));
    this.pollThreads = pollThreads();
    metrics.pollThreads(pollThreads::getPoolSize);
  }

  /**
   * A hand-off to an idle thread or a new one up to {@link #MAX_POLL_THREADS}; beyond that the
   * scheduler waits for the next thread to come free, so polls start in the order they fell due.
   */
  private static java.util.concurrent.ThreadPoolExecutor pollThreads() {
    java.util.concurrent.ThreadPoolExecutor pool = new java.util.concurrent.ThreadPoolExecutor(0, MAX_POLL_THREADS,
        POLL_THREAD_IDLE.toMillis(), TimeUnit.MILLISECONDS, new java.util.concurrent.SynchronousQueue<>(),
        DaemonThreads.named("topology-poll"));
    pool.setRejectedExecutionHandler((poll, executor) -> {
      if (executor.isShutdown()) {
        throw new RejectedExecutionException("the monitor stopped");
      }
      try {
        executor.getQueue().put(poll);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new RejectedExecutionException("the monitor stopped");
      }
    });
    return pool;
  }

  /**
   * With false the monitor only watches: it adopts, keeps routing and conditions right and writes
   * status.sites, but starts no failover, fences nothing and brings no old primary back.
   */
  public TopologyMonitor acting(boolean act) {
    this.acting = act;
    return this;
  }

  /**
   * With {@code lifts}, a group left without a writable primary because its active site's sidecar
   * fenced it by its lease has the fence lifted once nothing else explains it ({@link
   * LeaseFenceLifts}); only while acting and not paused.
   */
  public TopologyMonitor leaseFenceLifts(LeaseFenceLifts lifts) {
    this.leaseFences = lifts;
    return this;
  }

  /**
   * With {@code drains}, a group with {@code spec.plannedFailover.onActiveNodeDrain: switchover} is
   * switched over when its active site's node is cordoned ({@link DrainWatch}); only while acting.
   */
  public TopologyMonitor drainWatch(DrainWatch drains) {
    this.drains = drains;
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
    if (current.isEmpty() || polls.isShutdown()) {
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
    Watched existing = groups.get(ref);
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
          if (steward != null) {
            steward.invalidSpec(ref, current.get(), List.of(rejected));
          }
        }
        return;
      }
      log.warn("{}: not monitored: {}", ref, e.getMessage());
      stop(ref);
      if (steward != null) {
        steward.invalidSpec(ref, current.get(), problems);
      }
      return;
    }
    if (existing != null && existing.polls.config().equals(config)) {
      existing.rejectedSpec = null;
      return;
    }
    stopPolls(ref);
    MysqlFailoverGroupStatus status = current.get().getStatus();
    Watched w = new Watched(new GroupPolls(ref, config), current.get().getSpec(), status == null ? null
        : status.sites());
    groups.put(ref, w);
    metrics.state().watch(ref);
    log.info("{}: monitoring {} sites every {}", ref, config.sites().size(), config.pollInterval());
    // Spread over the interval: a kill is seen by whichever site is polled first, the primary
    // itself or a replica that lost it (pollPrimaryNow), not only at the primary's own turn.
    List<SiteSpec> spread = config.sites();
    for (int i = 0; i < spread.size(); i++) {
      schedule(w, spread.get(i), config.pollInterval().multipliedBy(i).dividedBy(spread.size()));
    }
    if (startup != null) {
      startup.watch(ref, config);
    }
  }

  /** Stops a group that is no longer watched. */
  private synchronized void stop(GroupRef ref) {
    stopPolls(ref);
    if (drains != null) {
      drains.forget(ref);
    }
    if (startup != null) {
      startup.forget(ref);
    }
  }

  /** Stops a group's polls, also before a spec change restarts them; the startup checks outlive a restart. */
  private synchronized void stopPolls(GroupRef ref) {
    Watched w = groups.remove(ref);
    if (w != null) {
      w.stopped.set(true);
      reactions.forget(ref);
      metrics.forget(ref);
      if (steward != null) {
        steward.forget(ref);
      }
      if (recovery != null) {
        recovery.forget(ref);
      }
      if (leaseFences != null) {
        leaseFences.forget(ref);
      }
      sites.forget(ref);
    }
  }

  private void schedule(Watched w, SiteSpec site, Duration delay) {
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
  private void pollNow(Watched w, SiteSpec site) {
    java.util.concurrent.ScheduledFuture<?> next = w.nextPoll.get(site.name());
    if (next != null && next.getDelay(TimeUnit.MILLISECONDS) > 0 && next.cancel(false)) {
      schedule(w, site, Duration.ZERO);
    }
  }

  private void poll(Watched w, SiteSpec site) {
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

  private void pollOnce(Watched w, SiteSpec site) {
    GroupPolls g = w.polls;
    long started = System.nanoTime();
    Instant startedAt = clock.instant();
    Probe probe;
    try {
      probe = sites.probe(g.group(), g.config(), site);
    } catch (RuntimeException e) {
      probe = Probe.unreachable(site.name(), e.toString(), clock.instant());
    }
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    // Before the poll is fed: no evaluation may see the failed poll without the replicas' answer to
    // it. The confirmation may poll the primary again after the replicas answered: that fresher
    // poll is fed instead.
    probe = confirm(w, site, probe, startedAt);
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
   * Holistic detection: when a poll of the primary fails, every other site is asked at once, in
   * parallel on the poll pool and each bounded by the poll's timeouts, how it sees its source
   * ({@link PrimaryConfirmation}); the answer stands until the primary's next poll. A poll that
   * answers forgets the episode. When the replicas' answer rests on their connection errors, the
   * primary is polled once more, after they answered (row c3b), and that poll is returned to be fed
   * in place of {@code probe}: an answer ends the episode, a failure confirms the death. Otherwise
   * returns {@code probe}.
   */
  private Probe confirm(Watched w, SiteSpec site, Probe probe, Instant startedAt) {
    GroupPolls g = w.polls;
    String primary = latest.apply(g.group()).map(MysqlFailoverGroup::getStatus)
        .map(s -> PrimaryConfirmation.primaryOf(s.activeSite(), s.lastFailoverTarget())).orElse(null);
    if (!site.name().equals(primary)) {
      return probe;
    }
    if (probe.reachable()) {
      forgetEpisode(w);
      return probe;
    }
    if (w.primaryLostAt == null) {
      w.primaryLostAt = startedAt;
    }
    long started = System.nanoTime();
    Map<String, java.util.concurrent.CompletableFuture<ReplicaView>> asked = new java.util.LinkedHashMap<>();
    for (SiteSpec other : g.config().sites()) {
      if (other.name().equals(primary)) {
        continue;
      }
      try {
        asked.put(other.name(), java.util.concurrent.CompletableFuture.supplyAsync(
            () -> sites.sourceView(g.group(), g.config(), other, clock.instant()), pollThreads));
      } catch (RejectedExecutionException e) {
        return probe;
      }
    }
    // Each answer is bounded by the connect and socket timeouts (one each at most); the wait too.
    long deadline = System.nanoTime() + SiteProber.timeout(g.config().pollInterval()).multipliedBy(2).toNanos()
        + TimeUnit.MILLISECONDS.toNanos(500);
    List<PrimaryConfirmation.Asked> views = new java.util.ArrayList<>();
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
      Probe again;
      try {
        again = sites.probe(g.group(), g.config(), site);
      } catch (RuntimeException e) {
        again = Probe.unreachable(site.name(), e.toString(), clock.instant());
      }
      recheckMillis = (System.nanoTime() - recheckStarted) / 1_000_000;
      result = PrimaryConfirmation.decide(false, serverId, w.primaryLostAt, g.config().minSourceSilence(), views,
          answeredAt, new PrimaryConfirmation.Recheck(begun, again.reachable()));
      fed = again;
      if (again.reachable()) {
        log.info("{}: the poll of the primary '{}' begun at {} failed, but it answered the poll after its replicas "
            + "({} ms after them, {} ms): {}", g.group(), primary, startedAt, asking, recheckMillis, result.reason());
        forgetEpisode(w);
        return fed;
      }
    }
    Confirmation before = w.confirmation;
    w.confirmation = new Confirmation(primary, fed.at(), result);
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

  /** The primary answers: the replicas' answers about it are forgotten. */
  private static void forgetEpisode(Watched w) {
    w.primaryLostAt = null;
    w.confirmation = null;
    w.samples.clear();
    w.previousRead.clear();
  }

  /**
   * A replica that lost its connection to the primary has the primary polled, and with it the
   * replicas asked, at once rather than at the primary's turn ({@link PrimaryConfirmation#pollPrimaryNow}).
   */
  private void primaryNow(Watched w, SiteSpec site, Probe probe) {
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

  /** The replicas' answer, if it is about the primary's latest poll. */
  private static PrimaryConfirmation.Result confirmation(Watched w, Map<String, SiteObservation> observations,
      String primary) {
    Confirmation c = w.confirmation;
    if (c == null || primary == null || !c.primary().equals(primary)) {
      return null;
    }
    SiteObservation o = observations.get(primary);
    if (o == null || o.latest() == null || o.answeringNow() || !o.latest().at().equals(c.probeAt())) {
      return null;
    }
    return c.result();
  }

  private void queueEvaluation(Watched w) {
    if (!w.evaluationQueued.compareAndSet(false, true)) {
      return;
    }
    try {
      evaluations.execute(() -> {
        w.evaluationQueued.set(false);
        evaluate(w);
      });
    } catch (RejectedExecutionException e) {
      w.evaluationQueued.set(false);
    }
  }

  /** Visible for tests: one evaluation of the group's current view, on the caller's thread. */
  void evaluate(Watched w) {
    GroupPolls g = w.polls;
    if (w.stopped.get() || !g.everySitePolled()) {
      return;
    }
    try {
      Optional<MysqlFailoverGroup> resource = latest.apply(g.group());
      if (resource.isPresent() && resource.get().statusUnreadable()) {
        // Nothing is decided on a status this version cannot read (sync stops the group's polls).
        return;
      }
      MysqlFailoverGroupStatus status = resource.map(MysqlFailoverGroup::getStatus)
          .orElse(MysqlFailoverGroupStatus.empty());
      Instant now = clock.instant();
      Map<String, SiteObservation> observations = g.observations();
      List<String> flavorProblems = new java.util.ArrayList<>(GroupFlavors.problems(g.config(), observations));
      semiSyncFlavorProblem(g.config(), observations).ifPresent(flavorProblems::add);
      if (!flavorProblems.isEmpty()) {
        // Servers of both flavors (or not the declared one): nothing is adopted, fenced or failed
        // over, and the group is reported as its spec would be had it declared them.
        writeSites(w, now, runOwnsStatus(w, status, now), null);
        if (steward != null && resource.isPresent()) {
          steward.invalidSpec(g.group(), resource.get(), flavorProblems);
        } else {
          log.warn("{}: not acted on: {}", g.group(), String.join("; ", flavorProblems));
        }
        return;
      }
      List<TlsProblems.Problem> tlsProblems = TlsProblems.problems(g.config(), observations);
      if (!tlsProblems.isEmpty()) {
        // A site reached but refused in the TLS handshake is up, not lost: nothing is adopted,
        // fenced or failed over on readings that cannot be taken as configured (TlsProblems).
        writeSites(w, now, runOwnsStatus(w, status, now), null);
        metrics.passFailed(g.group(), "tls");
        tlsProblems.forEach(p -> metrics.tlsError(g.group(), p.site(), p.reason()));
        List<String> messages = tlsProblems.stream().map(TlsProblems.Problem::message).toList();
        if (steward != null && resource.isPresent()) {
          steward.tlsErrors(g.group(), resource.get(), messages);
        } else {
          log.warn("{}: not acted on: {}", g.group(), String.join("; ", messages));
        }
        return;
      }
      Adoption.Decision adoption = null;
      Verdict verdict = null;
      Optional<PromoteAnywayAnnotation> promoteAnyway = resource.flatMap(r -> PromoteAnywayAnnotation.read(
          r.annotation(PromoteAnywayAnnotation.ANNOTATION), g.config()));
      Optional<PauseAnnotation> pause = resource.flatMap(r -> PauseAnnotation.read(
          r.annotation(PauseAnnotation.ANNOTATION)));
      boolean paused = PauseAnnotation.pauses(pause);
      if (acting) {
        reactions.pause(g.group(), pause);
      }
      // The sites a DBA fenced, as accepted now: the matrix, the routing and the conditions act on these.
      List<String> fenced = status.fencedSites() == null ? List.of() : status.fencedSites();
      Optional<GroupConditions.Problem> fenceProblem = Optional.empty();
      Instant unfencedAt = null;
      if (acting && resource.isPresent()) {
        SiteFences.Accepted accepted = reactions.fences(g.group(), g.config(), resource.get(), status, paused, now);
        fenced = accepted.sites();
        fenceProblem = accepted.problem();
        unfencedAt = accepted.activeUnfencedAt();
      }
      PrimaryConfirmation.Result confirmation = null;
      if (steward != null && resource.isPresent() && !Steward.adopted(status) && paused) {
        // A paused group is not adopted either: adopting names the active site, which the sidecars act on.
        adoption = new Adoption.Wait("the group is paused (" + PauseAnnotation.ANNOTATION + "=true)");
      } else if (steward != null && resource.isPresent() && !Steward.adopted(status)) {
        // Nothing is fenced, promoted or relabelled before the group has an active site.
        adoption = steward.adopt(g.group(), g.config(), resource.get(), observations);
      } else {
        TopologyMatrix.Input input = new TopologyMatrix.Input(g.config(), observations, status.activeSite(),
            instant(status.cooldownSince()), status.lastFailoverTarget(), Steward.plannedFailoverHolds(status), now)
            .withFenced(fenced).withUnfencedAt(unfencedAt);
        confirmation = confirmation(w, observations, PrimaryConfirmation.primaryOf(input));
        if (!acting) {
          verdict = PrimaryConfirmation.evaluate(input, confirmation);
        } else {
          if (recovery != null && !paused) {
            // First: a returning old primary that accepts writes is fenced before anything else is done.
            recovery.check(g.group(), g.config(), observations, status);
          }
          if (!paused) {
            // Before the matrix's reaction: a planned run whose source is confirmed dead is told,
            // and its ConcurrentOperation block is then that hand-off, not an alert.
            reactions.handOff(g.group(), status, input, confirmation);
          }
          verdict = reactions.react(g.group(), input, confirmation, promoteAnyway, paused);
          LeaseFenceLifts lifts = leaseFences;
          if (lifts != null && !paused && verdict instanceof Verdict.NoPrimary) {
            lifts.check(g.group(), g.config(), status, observations);
          }
          if (drains != null && resource.isPresent()) {
            drains.check(g.group(), g.config(), resource.get(), observations, paused);
          }
        }
      }
      boolean runOwns = runOwnsStatus(w, status, now);
      // Whether each site could take over now, from this very evaluation's observations: the
      // matrix's own rule, with the active site supposed lost (SiteReadiness).
      String activeNow = adoption instanceof Adoption.Adopt adopted ? adopted.site() : status.activeSite();
      List<SiteReadiness.Readiness> readiness = SiteReadiness.evaluate(new TopologyMatrix.Input(g.config(),
          observations, activeNow, instant(status.cooldownSince()), status.lastFailoverTarget(), false, now)
          .withFenced(fenced), steward == null ? Map.of() : steward.semiSyncAcking(g.group()));
      writeSites(w, now, runOwns, readiness);
      metrics.state().readiness(g.group(), readiness);
      metrics.state().verdict(g.group(), verdict);
      metrics.state().recovery(g.group(), status);
      if (steward != null && resource.isPresent()) {
        // Just adopted: routing is set at once, not a poll later.
        MysqlFailoverGroupStatus effective = (adoption instanceof Adoption.Adopt a ? status.withActiveSite(a.site())
            : status).withFencedSites(fenced);
        List<GroupConditions.Problem> problems = new java.util.ArrayList<>();
        if (confirmation != null && confirmation.outcome() == PrimaryConfirmation.Outcome.ALIVE) {
          problems.add(new GroupConditions.Problem(Events.PRIMARY_UNREACHABLE_FROM_WATCHER.reason(),
              PrimaryConfirmation.cutOffMessage(effective.activeSite(), confirmation)));
        }
        if (!paused) {
          steward.keepRouting(g.group(), g.config(), effective, observations)
              .forEach(p -> problems.add(new GroupConditions.Problem(Events.ROUTING_INCOMPLETE.reason(), p)));
        }
        promoteAnyway.filter(a -> !a.valid()).ifPresent(a -> problems.add(new GroupConditions.Problem(
            Events.PROMOTE_ANYWAY_REJECTED.reason(), a.problem() + "; nothing was changed, remove or correct it")));
        pause.filter(a -> !a.valid()).ifPresent(a -> problems.add(new GroupConditions.Problem(
            Events.PAUSE_REJECTED.reason(), a.problem())));
        fenceProblem.ifPresent(problems::add);
        if (!paused) {
          steward.keepSemiSync(g.group(), g.config(), effective, observations).ifPresent(problems::add);
        }
        if (startup != null) {
          for (String site : startup.startingWritable(g.group())) {
            problems.add(new GroupConditions.Problem(Events.SERVER_STARTS_WRITABLE.reason(), "the server of site "
                + site + " is configured to start writable (its sidecar says so): a restart would take writes before "
                + "anything decides it is the primary; configure MariaDB read_only=ON or MySQL super_read_only=ON"));
          }
          startup.unguarded(g.group()).forEach(p -> problems.add(new GroupConditions.Problem(
              Events.SIDECAR_NOT_GUARDED.reason(), p)));
          problems.addAll(startup.controlPlaneProblems(g.group()));
        }
        sharedTokenProblem(resource.get()).ifPresent(problems::add);
        Map<String, String> stoppedByHand = Steward.failoverRunning(status) ? Map.of()
            : Recovery.stoppedByHand(observations, effective.activeSite());
        if (!stoppedByHand.isEmpty()) {
          // Its own reason: a human stopped it and it stays so, which "impaired" would not say. Last,
          // so that a primary fallen back from semi-sync keeps the condition's reason.
          problems.add(new GroupConditions.Problem(Events.REPLICATION_STOPPED.reason(),
              Recovery.stoppedByHandMessage(stoppedByHand), true));
        }
        steward.conditions(g.group(), resource.get(), new GroupConditions.Facts(w.rejectedSpec, effective.activeSite(),
            adoption instanceof Adoption.Adopt ? null : adoption, Steward.failoverRunning(status), verdict,
            problems).withPaused(paused).withFenced(fenced), runOwns);
      }
    } catch (RuntimeException e) {
      // The next poll evaluates again; the monitor must outlive a Temporal or API outage.
      log.warn("{}: topology evaluation failed: {}", g.group(), e.toString());
      metrics.passFailed(g.group(), "evaluation");
    }
  }

  /**
   * What {@code spec.semiSync} asks that the servers' flavor cannot do, when the spec declares no
   * flavor and the servers say MariaDB: reported as the spec's own problems would be.
   */
  private static Optional<String> semiSyncFlavorProblem(GroupConfig config, Map<String, SiteObservation> observations) {
    return observations.values().stream().map(o -> o.lastReachable() == null ? null : o.lastReachable().flavor())
        .filter(Objects::nonNull).findFirst().map(flavor -> config.semiSync().flavorProblem(flavor));
  }

  /**
   * Whether a failover's workflow owns the group's status now, so the monitor leaves it alone (see
   * {@link #writeSites}): the status shows a run past waiting ({@link Steward#failoverRunning}), the
   * run's own word, on the resource before its first step. A run shown for longer than {@link
   * #RUN_CONFIRM_AFTER} is confirmed with Temporal, so a status left behind by a run that ended
   * without its last write is written again.
   */
  boolean runOwnsStatus(Watched w, MysqlFailoverGroupStatus status, Instant now) {
    if (!Steward.failoverRunning(status)) {
      w.runShownSince = null;
      w.runAskedAt = null;
      return false;
    }
    if (w.runShownSince == null) {
      w.runShownSince = now;
    }
    if (steward == null || now.isBefore(w.runShownSince.plus(RUN_CONFIRM_AFTER))) {
      return true;
    }
    if (w.runAskedAt == null || !now.isBefore(w.runAskedAt.plus(DETAIL_REFRESH))) {
      w.runAskedAt = now;
      w.runAsked = steward.runConfirmed(w.polls.group());
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
   * waiting, {@link Steward#failoverRunning}), nothing is written: the run writes the status at
   * every phase change, its first writes and its failover record are guarded by the resourceVersion
   * they read, and each write of ours in between made them read and write again (a planned failover
   * took 460 ms instead of 250 ms when the monitor began writing beside it). Nothing reads
   * status.sites during the run: the emergency workflow reads the divergent sites from the status it
   * starts from, and the old-primary recovery keeps its outcomes in memory. The held write is made
   * on the first evaluation after the run's terminal phase, whatever {@link #DETAIL_REFRESH} says.
   */
  private void writeSites(Watched w, Instant now, boolean runOwns, List<SiteReadiness.Readiness> readiness) {
    List<SiteStatus> current = withReadiness(recovery == null ? w.polls.siteStatuses()
        : recovery.withDivergence(w.polls.group(), w.polls.siteStatuses()), readiness);
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
            + s.readiness().emergencyReason() + "/" + s.readiness().emergencyRank())).toList();
  }

  /** {@code sites} with each one's readiness, as {@code status.sites[].readiness} shows it; unchanged when null. */
  static List<SiteStatus> withReadiness(List<SiteStatus> sites, List<SiteReadiness.Readiness> readiness) {
    if (readiness == null) {
      return sites;
    }
    Map<String, SiteReadiness.Readiness> bySite = new java.util.HashMap<>();
    readiness.forEach(r -> bySite.put(r.site(), r));
    return sites.stream().map(s -> {
      SiteReadiness.Readiness r = bySite.get(s.name());
      return r == null ? s : s.withReadiness(new MysqlFailoverGroupStatus.Readiness(r.plannedReady(),
          r.plannedReady() ? null : r.planned().reason().name(), r.emergencyReady(),
          r.emergencyReady() ? null : r.emergency().reason().name(), r.emergencyRank(), r.message()));
    }).toList();
  }

  private static Instant instant(String text) {
    if (text == null) {
      return null;
    }
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      return null;
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
  Optional<Watched> watched(GroupRef ref) {
    return Optional.ofNullable(groups.get(ref));
  }

  /** Stops every poll; a poll already running finishes its JDBC call and is not rescheduled. */
  @Override
  public synchronized void close() {
    List.copyOf(groups.keySet()).forEach(this::stop);
    metrics.state().forgetAll();
    if (startup != null) {
      startup.close();
    }
    if (leaseFences != null) {
      leaseFences.close();
    }
    polls.shutdownNow();
    pollThreads.shutdownNow();
    metrics.pollThreads(() -> 0);
    evaluations.shutdownNow();
  }

  /**
   * A group that names no credential of its own runs on the install's shared token, which opens
   * every such group: it keeps working, Degraded, until it names one.
   */
  static Optional<GroupConditions.Problem> sharedTokenProblem(MysqlFailoverGroup group) {
    var sidecar = group.getSpec() == null ? null : group.getSpec().sidecar();
    if (sidecar != null && sidecar.tokenSecretRef() != null && sidecar.tokenSecretRef().name() != null
        && !sidecar.tokenSecretRef().name().isBlank()) {
      return Optional.empty();
    }
    return Optional.of(new GroupConditions.Problem(Events.SHARED_SIDECAR_TOKEN.reason(), "the group names no "
        + "spec.sidecar.tokenSecretRef: its sidecars, the watcher and the worker use the install's shared token, which "
        + "opens every group that names none; create a Secret with a token of its own, mount it in this group's "
        + "sidecars as AUTH_TOKEN_FILE and name it in spec.sidecar.tokenSecretRef"));
  }
}
