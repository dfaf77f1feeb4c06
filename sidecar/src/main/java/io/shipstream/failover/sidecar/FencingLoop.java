package io.shipstream.failover.sidecar;

import io.shipstream.failover.sidecar.FencingDecision.Action;
import io.shipstream.failover.sidecar.FencingDecision.Boot;
import io.shipstream.failover.sidecar.FencingDecision.Inputs;
import io.shipstream.failover.sidecar.FencingDecision.MysqlState;
import io.shipstream.failover.sidecar.FencingDecision.Promotion;
import io.shipstream.failover.sidecar.TopologyClient.Poll;
import io.shipstream.failover.sidecar.TopologyClient.Reply;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One tick: ask the watcher and the peers, keep the newest view, look at the local MySQL, decide,
 * act. Ticks run one at a time on the sidecar's single scheduler thread; the HTTP server only reads
 * the volatile snapshots.
 */
final class FencingLoop {
  private static final Logger LOG = LoggerFactory.getLogger(FencingLoop.class);
  /**
   * Beyond one tick, how long a server made writable while the view names another site may stay
   * so when no fresh view can be had ({@link #checkPromotion}): the watcher's cache catching up
   * with the status, which names the target before the workflow makes it writable.
   */
  static final Duration PROMOTION_MARGIN = Duration.ofSeconds(1);
  /** How long a stopped server's process may take to exit before the next tick tries again. */
  static final Duration STOP_WAIT = Duration.ofSeconds(2);

  private final SidecarConfig config;
  private final Clock clock;
  private final TopologyClient topology;
  private final LocalMysql mysql;
  private final ServerProcess process;
  private final SidecarMetrics metrics;
  private final Instant startedAt;

  // Touched by the scheduler thread only.
  private Optional<Instant> lastWatcherContact = Optional.empty();
  private final Map<URI, Instant> lastPeerContacts = new HashMap<>();
  private final Map<URI, String> linkProblems = new HashMap<>();
  private Optional<Instant> lastFenceAt = Optional.empty();
  private Optional<SidecarStatus.LastFence> lastFence = Optional.empty();
  /**
   * The rule of this sidecar's own fence while it stands: set when a fence took effect, forgotten
   * once the server is seen writable (someone lifted it) or stopped (it restarts read-only by its
   * configuration, which the start-up rule handles). The watcher lifts a rule-2 fence of the active
   * site that nothing else explains (see the watcher's LeaseFenceRelease); it never lifts another.
   */
  private Optional<String> ownFence = Optional.empty();
  private String lastActionError;
  private String lastTimingProblem;
  private String viewSource = "none";
  private long ticks;

  // Written by the scheduler thread, read by the HTTP server's threads and the HTTP client's callbacks.
  private volatile Boot boot = Boot.PENDING;
  private volatile MysqlState lastState = MysqlState.UNREACHABLE;
  /** What the server said the last time it answered; empty before it ever did, or after it was restarted. */
  private volatile Optional<MysqlState> lastAnswer = Optional.empty();
  private volatile Optional<Promotion> promotion = Optional.empty();
  private volatile Optional<ActiveSiteView> view = Optional.empty();
  private volatile SidecarStatus status;
  /**
   * When a tick last ran to its end: {@code /health} fails once it is older than the health bound
   * (a stuck loop, a dead scheduler thread, a call hung past its timeout), so that the kubelet
   * restarts a sidecar that no longer keeps its lease.
   */
  private volatile Optional<Instant> lastTickCompleted = Optional.empty();
  /**
   * From this process's start to the first tick that ran to its end, by the wall clock: the JVM's
   * start plus the first poll, what the boot fence's bound allows for ({@code
   * SidecarLiveness.BOOT_FENCE_BOUND}). Meaningful where the sidecar is a process of its own, as in
   * a pod; in the dev stack's in-process sidecars it is the host JVM's age.
   */
  private volatile Optional<Duration> processStartToFirstTick = Optional.empty();
  /**
   * The lease and interval in force: the environment's until the watcher names the spec's, then
   * the last the watcher named, kept through a partition, since the spec is the one source.
   */
  private volatile Timing timing;
  /** The watcher's last word was that the group has never had an active site, and no view has named one since. */
  private volatile boolean neverActive;
  /**
   * When the group was deleted, as the watcher last said (its finalizer's tombstone): from then on
   * this sidecar neither fences nor unfences. Only the watcher's own answer sets it, never a 404 or
   * a peer; a later answer with a view or "never active" (a group of that name created again) clears it.
   */
  private volatile Optional<Instant> groupDeletedAt = Optional.empty();

  FencingLoop(SidecarConfig config, Clock clock, TopologyClient topology, LocalMysql mysql, ServerProcess process,
      SidecarMetrics metrics) {
    this.config = config;
    this.clock = clock;
    this.topology = topology;
    this.mysql = mysql;
    this.process = process;
    this.metrics = metrics;
    this.startedAt = clock.instant();
    this.timing = Timing.of(config);
    this.status = snapshot(MysqlState.UNREACHABLE, Action.NONE);
  }

  /** The cached view, which peers are served. */
  Optional<ActiveSiteView> view() {
    return view;
  }

  SidecarStatus status() {
    return status;
  }

  /**
   * Why {@code /health} must fail, in one line: no tick has run to its end within the health
   * bound of the timing in force (counted from the start until the first one has); empty while
   * the loop keeps up. A tick that throws does not count: a loop that cannot decide guards nothing.
   */
  Optional<String> stalled() {
    Instant now = clock.instant();
    Optional<Instant> last = lastTickCompleted;
    Duration bound = timing.healthBound();
    Duration quiet = Duration.between(last.orElse(startedAt), now);
    if (quiet.compareTo(bound) <= 0) {
      return Optional.empty();
    }
    return Optional.of("fencing loop stalled: " + (last.isPresent() ? "no tick completed for "
        : "no tick completed since the start, ") + quiet.toMillis() + " ms (bound " + bound.toMillis() + " ms)");
  }

  /** How often the scheduler ticks: the interval the sidecar has learned. */
  Duration peerCheckInterval() {
    return timing.peerCheckInterval();
  }

  /** Runs one tick; never throws, because a scheduled task that throws is never run again. */
  void tick() {
    try {
      // The first poll waits longer for its answers: the boot rule fences a writable server unless
      // an answer waives it, and a cold start's first requests (a new JVM, new connections) are the
      // slowest, so the interval's short timeout would fence the application's primary for nothing.
      Duration timeout = ticks == 0 ? Timing.MAX_REQUEST_TIMEOUT : timing.requestTimeout();
      Poll poll = topology.poll(timeout, this::decisive);
      if (Thread.currentThread().isInterrupted()) {
        // The sidecar is closing: answers cut short by that must not be acted on.
        return;
      }
      absorb(poll);
      MysqlState state = look();
      Instant now = clock.instant();
      if (groupDeletedAt.isEmpty()) {
        // A deleted group's server is not guarded: a promotion by hand is the DBA's, and needs no fresh view.
        trackPromotion(lastState, state, now);
        checkPromotion();
      }
      now = clock.instant();
      Inputs inputs = new Inputs(now, config.site(), view, startedAt, lastWatcherContact,
          List.copyOf(lastPeerContacts.values()), timing.leaseTimeout(), state, boot, promotion, neverActive,
          groupDeletedAt.isPresent());
      Action action = FencingDecision.decide(inputs);
      boolean done = act(action, inputs);
      if (done) {
        boot = FencingDecision.nextBoot(boot, state, action);
      }
      if (done && action.fences()) {
        ownFence = Optional.of(action.rule());
      } else if (state == MysqlState.WRITABLE || state == MysqlState.STOPPED || done && action != Action.NONE) {
        ownFence = Optional.empty();
      }
      // What the server is after this tick, so that the next one can tell our own doing from someone else's.
      lastState = !done || action == Action.NONE ? state : after(action);
      if (lastState.answered()) {
        lastAnswer = Optional.of(lastState);
      }
      ticks++;
      lastTickCompleted = Optional.of(clock.instant());
      if (processStartToFirstTick.isEmpty()) {
        processStartToFirstTick = ProcessHandle.current().info().startInstant()
            .map(start -> Duration.between(start, Instant.now()));
      }
      // What the server is now: a fence or stop that took effect is shown at once, which is what a failover waits for.
      status = snapshot(lastState, action);
    } catch (Throwable e) {
      LOG.error("fencing tick failed; the next tick tries again", e);
    }
  }

  /**
   * Between regular ticks, while the server is watched closely: looks at the server alone and runs
   * a whole tick at once when it changed (a frozen server that resumed, a dead one that came back,
   * a hung one whose process has exited). Runs on the scheduler thread, like the ticks.
   */
  void watch() {
    try {
      if (look() != lastState) {
        tick();
      }
    } catch (Throwable e) {
      LOG.error("watching the server failed; the next tick tries again", e);
    }
  }

  /**
   * Whether the server must be watched more often than every tick: it does not answer (or is
   * dead) while another site is active or the lease has run out, so that a server that resumes
   * writable is fenced at once rather than at the next tick; or a promotion's grace runs out
   * before the next tick.
   */
  boolean watchingClosely() {
    boolean elsewhere = view.map(v -> !v.names(config.site())).orElse(false);
    boolean expired = FencingDecision.leaseExpired(
        FencingDecision.lastContact(startedAt, lastWatcherContact, lastPeerContacts.values()), clock.instant(),
        timing.leaseTimeout());
    return groupDeletedAt.isEmpty() && (!lastState.answered() && (elsewhere || expired) || promotion.isPresent());
  }

  /** When a promotion's grace ends, if one runs: a tick is due then. */
  Optional<Instant> promotionGraceEnds() {
    return promotion.map(Promotion::until);
  }

  /**
   * The server's state: its answer, or, when it gave none, what its process says. A server that
   * last answered read-only resumes read-only, so only one that may be writable counts as HUNG.
   */
  private MysqlState look() {
    MysqlState answer = mysql.state();
    if (answer.answered()) {
      process.refresh();
      return answer;
    }
    return switch (process.liveness()) {
      case EXITED -> {
        // What the dead process last said says nothing about the one that replaces it.
        lastAnswer = Optional.empty();
        yield MysqlState.STOPPED;
      }
      case ALIVE -> lastAnswer.filter(MysqlState::readOnly).isPresent() ? MysqlState.UNREACHABLE : MysqlState.HUNG;
      case UNKNOWN -> MysqlState.UNREACHABLE;
    };
  }

  /** The server's state once {@code action} took effect. */
  private static MysqlState after(Action action) {
    return switch (action) {
      case UNFENCE_AT_BOOT, UNFENCE_STARTUP -> MysqlState.WRITABLE;
      case STOP_SERVER -> MysqlState.STOPPED;
      default -> MysqlState.READ_ONLY;
    };
  }

  /**
   * Notices a promotion: read-only on the last tick, writable now, and not by this sidecar's hand,
   * while the view still names another site. Both workflows name the target active before they
   * make it writable, so the grace is only how stale the view may be: one tick and {@link
   * #PROMOTION_MARGIN}, never more than the lease. Forgotten once the view names this site or yet
   * another one, or the server is read-only again.
   */
  private void trackPromotion(MysqlState before, MysqlState now, Instant at) {
    Optional<ActiveSiteView> current = view;
    // A view that fences this site: the active site made writable is the watcher's unfence.
    boolean elsewhere = current.map(v -> !v.names(config.site()) || v.fences(config.site())).orElse(false);
    if (before.readOnly() && now == MysqlState.WRITABLE && elsewhere) {
      Duration grace = min(timing.peerCheckInterval().plus(PROMOTION_MARGIN), timing.leaseTimeout());
      promotion = Optional.of(new Promotion(current.get().activeSite(), at.plus(grace)));
      LOG.info("the server was made writable while the active site is still {}: taking it for a promotion in "
          + "progress; rule 1 waits up to {} ms for the status to name {}", current.get().activeSite(),
          grace.toMillis(), config.site());
    } else if (promotion.isPresent() && (now.readOnly() || !elsewhere
        || !current.get().names(promotion.get().site()))) {
      promotion = Optional.empty();
    }
  }

  /**
   * A promotion that no fresh view has confirmed or refuted yet is checked against one at once: a
   * view the watcher reads from the API server now, after the server was seen writable, so it
   * shows any failover record written before the promotion ({@link FencingDecision#afterFreshView}).
   * Asked on every tick until answered; without an answer the bounded grace stands.
   */
  private void checkPromotion() {
    Optional<Promotion> current = promotion;
    if (current.isEmpty() || current.get().refuted()) {
      return;
    }
    TopologyClient.Fresh fresh = topology.askFresh(timing.requestTimeout());
    if (Thread.currentThread().isInterrupted()) {
      return;
    }
    absorb(new Poll(fresh.reply(), List.of()));
    promotion = FencingDecision.afterFreshView(current.get(), fresh.view(), config.site());
    if (fresh.view().isEmpty()) {
      LOG.warn("no fresh view from the watcher ({}): rule 1 waits out the grace until {}",
          Objects.requireNonNullElse(fresh.reply().problem(), "it did not read one"), current.get().until());
    } else if (promotion.map(Promotion::refuted).orElse(false)) {
      LOG.warn("the watcher read {} as the active site after this server was made writable: no failover to {} "
          + "is recorded, so it is fenced now", fresh.view().get().activeSite(), config.site());
    } else if (promotion.isEmpty()) {
      LOG.info("the watcher read {} as the active site: the promotion is recorded", config.site());
    }
  }

  /**
   * Whether an answer settles this tick on its own: a newer view naming another site while the
   * server was writable on the last tick, which is rule 1 about to fire. Only then is the wait
   * cut short; a replica's sidecar always waits, so every contact it could record is recorded, and
   * so does a promoted one, whose grace only the watcher's answer can end.
   */
  private boolean decisive(Reply reply) {
    Optional<ActiveSiteView> cached = view;
    return lastState == MysqlState.WRITABLE && boot == Boot.DONE && promotion.isEmpty()
        && reply.view().filter(v -> !v.names(config.site()) && v.newerThan(cached.orElse(null))).isPresent();
  }

  private void absorb(Poll poll) {
    Reply watcher = poll.watcher();
    if (watcher.awaited()) {
      linkState(watcher, "watcher");
    }
    watcher.contactAt().ifPresent(at -> {
      lastWatcherContact = Optional.of(at);
      metrics.contact(config.watcherUrl(), at);
    });
    watcher.timing().ifPresent(this::learn);
    // The watcher is the authority: its answer replaces the cache even if a peer's looked newer,
    // which only a clock step between watcher replicas could cause.
    watcher.view().ifPresent(v -> adopt(v, "watcher"));
    // Only the watcher's own word that the group has never had an active site waives the boot
    // fence; peers do not relay it (they answer 204, no view, which still holds the lease). A
    // peer's copy could be the stale word of one cut off since before the adoption, and a sidecar
    // that hears only peers is in a partition, where fencing at boot is the safe default: the
    // watcher's answer lifts that fence once it gets through, and the adoption's view does too.
    // A view once learned stands against it: only a group deleted and created again goes from
    // active back to never active, and keeping the old view only keeps the rules as they were.
    if (watcher.neverActive() && watcher.view().isEmpty() && view.isEmpty() && !neverActive) {
      neverActive = true;
      LOG.info("{}/{} has never had an active site (the watcher adopts it): a writable server is not fenced at "
          + "boot", config.namespace(), config.group());
    }
    if (watcher.groupDeletedAt().isPresent() && groupDeletedAt.isEmpty()) {
      groupDeletedAt = watcher.groupDeletedAt();
      LOG.warn("{}/{} was deleted at {} (the watcher read the tombstone its finalizer wrote): this sidecar no longer "
          + "fences or unfences its server, which stays as it is", config.namespace(), config.group(),
          groupDeletedAt.get());
    } else if (groupDeletedAt.isPresent() && (watcher.view().isPresent() || watcher.neverActive())) {
      groupDeletedAt = Optional.empty();
      LOG.info("{}/{} exists again (the watcher answers with {}): the fencing rules apply again", config.namespace(),
          config.group(), watcher.view().isPresent() ? "a view" : "\"never active\"");
    }
    for (Reply peer : poll.peers()) {
      if (!peer.awaited()) {
        continue;
      }
      linkState(peer, "peer " + Endpoints.describe(peer.endpoint()));
      peer.contactAt().ifPresent(at -> {
        lastPeerContacts.put(peer.endpoint(), at);
        metrics.contact(peer.endpoint(), at);
      });
      peer.view().filter(v -> v.newerThan(view.orElse(null)))
          .ifPresent(v -> adopt(v, "peer " + Endpoints.describe(peer.endpoint())));
    }
  }

  private void adopt(ActiveSiteView next, String source) {
    Optional<ActiveSiteView> previous = view;
    if (previous.map(p -> !p.activeSite().equals(next.activeSite())).orElse(true)) {
      LOG.info("active site is {} (observed {}, from {})", next.activeSite(), next.observedAt(), source);
    }
    view = Optional.of(next);
    viewSource = source;
    neverActive = false;
  }

  /**
   * Runs with the group's timing from now on. Values outside the limits the spec is held to are
   * refused (the watcher resolved them from a valid spec, so only a broken watcher sends such),
   * and the sidecar keeps what it has.
   */
  private void learn(Timing next) {
    List<String> problems = next.problems();
    if (!problems.isEmpty()) {
      String problem = String.join("; ", problems);
      if (!problem.equals(lastTimingProblem)) {
        LOG.warn("ignoring the watcher's sidecar timing, keeping lease {} ms and interval {} ms: {}",
            timing.leaseTimeout().toMillis(), timing.peerCheckInterval().toMillis(), problem);
      }
      lastTimingProblem = problem;
      return;
    }
    lastTimingProblem = null;
    if (!next.equals(timing)) {
      LOG.info("running with the group's lease {} ms and interval {} ms (was {} ms and {} ms)",
          next.leaseTimeout().toMillis(), next.peerCheckInterval().toMillis(), timing.leaseTimeout().toMillis(),
          timing.peerCheckInterval().toMillis());
      timing = next;
    }
  }

  /** Logs a link going down or coming back once, not every tick. */
  private void linkState(Reply reply, String what) {
    String before = linkProblems.get(reply.endpoint());
    String now = reply.contactAt().isPresent() ? null : reply.problem();
    if (!Objects.equals(before, now)) {
      if (now == null) {
        LOG.info("{} answers again", what);
      } else {
        LOG.warn("{} does not answer: {}", what, now);
      }
    }
    if (now == null) {
      linkProblems.remove(reply.endpoint());
    } else {
      linkProblems.put(reply.endpoint(), now);
    }
  }

  /** Carries the action out; returns whether it took effect. */
  private boolean act(Action action, Inputs inputs) {
    if (action == Action.NONE) {
      return true;
    }
    try {
      if (action == Action.STOP_SERVER) {
        return stopServer(inputs);
      }
      if (action.fences()) {
        int killed = mysql.fence();
        metrics.fenced(action.rule());
        lastFenceAt = Optional.of(clock.instant());
        String why = reason(action, inputs);
        lastFence = Optional.of(new SidecarStatus.LastFence(lastFenceAt.get(), action.rule(), why));
        LOG.warn("fenced the local {} server ({}): {}; killed {} application sessions", mysql.flavor(), action.rule(),
            why, killed);
      } else {
        mysql.unfence();
        String what = action == Action.UNFENCE_STARTUP ? "the server's start-up read-only" : "the boot fence";
        if (inputs.groupNeverActive()) {
          LOG.info("lifted {}: {}/{} has never had an active site", what, config.namespace(), config.group());
        } else {
          LOG.info("lifted {}: {} is the active site (observed {}, from {})", what, config.site(),
              inputs.view().map(ActiveSiteView::observedAt).orElse(null), viewSource);
        }
      }
      lastActionError = null;
      return true;
    } catch (Exception e) {
      String error = e.getClass().getSimpleName() + ": " + e.getMessage();
      if (!error.equals(lastActionError)) {
        LOG.warn("{} failed, retrying every tick: {}", action, error);
      }
      lastActionError = error;
      return false;
    }
  }

  /**
   * Kills the hung server's process, for good: it restarts read-only, so it can never commit what
   * it held when it froze once another site is the primary.
   */
  private boolean stopServer(Inputs inputs) {
    String pid = process.known().map(p -> Long.toString(p.pid())).orElse("?");
    String kernelState = process.kernelState().map(String::valueOf).orElse("?");
    boolean stopped = process.stop(STOP_WAIT);
    if (stopped) {
      metrics.fenced("stop");
      lastFenceAt = Optional.of(clock.instant());
      String why = reason(activeElsewhere(inputs) && !inputs.promotionInProgress()
          ? Action.FENCE_RULE1 : Action.FENCE_RULE2, inputs);
      lastFence = Optional.of(new SidecarStatus.LastFence(lastFenceAt.get(), "stop",
          "stopped the server's process " + pid + ", which did not answer and may be writable: " + why));
      LOG.warn("stopped the local {} server (process {}, kernel state {}), which does not answer and may be "
          + "writable: {}", mysql.flavor(), pid, kernelState, why);
      lastActionError = null;
    } else {
      String error = "process " + pid + " could not be killed, or did not exit within " + STOP_WAIT.toMillis() + " ms";
      if (!error.equals(lastActionError)) {
        LOG.warn("STOP_SERVER failed, retrying every tick: {}", error);
      }
      lastActionError = error;
    }
    return stopped;
  }

  private boolean activeElsewhere(Inputs inputs) {
    return inputs.view().map(v -> !v.names(config.site())).orElse(false);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  private String reason(Action action, Inputs inputs) {
    return switch (action) {
      case FENCE_RULE1 -> "the active site is " + inputs.view().map(ActiveSiteView::activeSite).orElse("?")
          + " (observed " + inputs.view().map(ActiveSiteView::observedAt).orElse(null) + ", from " + viewSource + ")"
          + (inputs.view().map(v -> v.fences(config.site())).orElse(false) ? "; this site is fenced"
              : inputs.promotion().map(Promotion::refuted).orElse(false) ? "; the server was made writable but "
                  + "the watcher's fresh view, read from the API server after that, records no failover to "
                  + config.site()
                  : inputs.promotion().isPresent() ? "; the server was made writable but no failover to "
                      + config.site() + " was recorded within the grace" : "");
      case FENCE_RULE2 -> "no answer from the watcher or any peer for "
          + Duration.between(inputs.lastContact(), inputs.now()).toMillis() + " ms (lease "
          + timing.leaseTimeout().toMillis() + " ms)";
      case FENCE_OPERATOR -> "the site is fenced (" + inputs.view().map(ActiveSiteView::fencedSites).orElse(null)
          + ", observed " + inputs.view().map(ActiveSiteView::observedAt).orElse(null) + ", from " + viewSource + ")";
      case FENCE_AT_BOOT -> inputs.view().isEmpty() ? "starting without a view of the active site"
          : "starting while the active site is " + inputs.view().get().activeSite();
      default -> action.name();
    };
  }

  private SidecarStatus snapshot(MysqlState state, Action action) {
    List<SidecarStatus.Link> peers = new ArrayList<>();
    for (URI peer : config.peerUrls()) {
      peers.add(new SidecarStatus.Link(Endpoints.describe(peer), Optional.ofNullable(lastPeerContacts.get(peer)),
          linkProblems.get(peer)));
    }
    Instant lastContact = FencingDecision.lastContact(startedAt, lastWatcherContact, lastPeerContacts.values());
    Timing current = timing;
    return new SidecarStatus(config.site(), config.namespace(), config.group(), view, viewSource,
        neverActive && view.isEmpty(), lastWatcherContact, peers, lastContact.plus(current.leaseTimeout()),
        current.leaseTimeout(), current.peerCheckInterval(), state, mysql.flavor(), mysql.startsReadOnly(),
        process.known().map(ServerProcess.Pid::pid), boot, action, lastFenceAt, ticks, ownFence,
        !FencingDecision.leaseExpired(lastContact, clock.instant(), current.leaseTimeout()), lastTickCompleted,
        current.healthBound(), processStartToFirstTick, lastFence, groupDeletedAt);
  }
}
