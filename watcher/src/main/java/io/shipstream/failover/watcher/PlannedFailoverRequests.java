package io.shipstream.failover.watcher;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.PlannedFailoverAnnotation;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.topology.GroupDeletion;
import io.shipstream.failover.model.topology.PauseAnnotation;
import io.shipstream.failover.watcher.WatcherMetrics.RequestOutcome;
import io.shipstream.failover.watcher.groups.GroupChanges;
import io.shipstream.failover.workflows.contract.WorkflowTypes;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the planned-failover annotation into workflow starts and cancels.
 *
 * <p>Informers re-deliver events (resyncs, reconnects, status writes of the workflow itself), so
 * the rule is: one start per appearance of an annotation value. The value is remembered when its
 * workflow starts and forgotten when the annotation is seen gone (which the workflow does itself
 * when it ends) or changed. Removing or changing the value withdraws the request: a run that is
 * still going gets the cancel signal, and rolls back unless it is past Promoting. A changed value
 * is then a new request; like any value that arrives while another planned failover runs, it is
 * retried until that one ends. One that arrives while an emergency failover runs is refused as
 * ConcurrentOperation. Events are handled on one thread, in order, always against the latest
 * cached object.
 *
 * <p>Only the leading watcher replica has one: it is created when the replica starts leading
 * (the informers then hand it every cached group, so requests that arrived before are handled)
 * and closed when it stops, which drops whatever it still meant to retry.
 */
public final class PlannedFailoverRequests implements GroupChanges, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PlannedFailoverRequests.class);
  static final Duration RETRY = Duration.ofSeconds(2);
  /**
   * The first retry of a request that found a planned failover still running. That run is usually
   * in its last instant (it clears its annotation just before it ends), so the retries start
   * quickly and back off to {@link #RETRY}.
   */
  static final Duration FIRST_RETRY = Duration.ofMillis(50);

  private final FailoverStarter starter;
  private final RequestRejections rejections;
  private final Function<GroupRef, Optional<MysqlFailoverGroup>> latest;
  private final WatcherMetrics metrics;
  /**
   * What this handler started for a group: the annotation value and the run it became;
   * {@code pauseWithdrawn} once that run was cancelled because the group was paused while it waited.
   */
  private record Start(String annotation, String runId, boolean pauseWithdrawn) {
    Start(String annotation, String runId) {
      this(annotation, runId, false);
    }
  }

  private final Map<GroupRef, Start> started = new ConcurrentHashMap<>();
  // The value each group's request is waiting with, so a wait of many retries counts once.
  private final Map<GroupRef, String> waiting = new ConcurrentHashMap<>();
  // The value last refused here, until the annotation is seen gone: the refusal's own status write
  // comes back as a change before the annotation's removal does, and must not refuse it twice.
  private final Map<GroupRef, String> refused = new ConcurrentHashMap<>();
  private final HandlerQueue queue = new HandlerQueue("planned-failover-requests");

  private final Clock clock;

  public PlannedFailoverRequests(FailoverStarter starter, RequestRejections rejections,
      Function<GroupRef, Optional<MysqlFailoverGroup>> latest, WatcherMetrics metrics) {
    this(starter, rejections, latest, metrics, Clock.systemUTC());
  }

  /** {@code clock} judges a scheduled request's time ({@link PlannedFailoverAnnotation#scheduleProblem}). */
  PlannedFailoverRequests(FailoverStarter starter, RequestRejections rejections,
      Function<GroupRef, Optional<MysqlFailoverGroup>> latest, WatcherMetrics metrics, Clock clock) {
    this.clock = clock;
    this.starter = starter;
    this.rejections = rejections;
    this.latest = latest;
    this.metrics = metrics;
  }

  @Override
  public void changed(GroupRef ref) {
    enqueue(ref);
  }

  @Override
  public void deleted(GroupRef ref) {
    queue.submit(() -> {
      waiting.remove(ref);
      refused.remove(ref);
      Start remembered = started.remove(ref);
      if (remembered != null && starter.cancelPlanned(ref, remembered.runId(), "resource deleted")) {
        metrics.request(RequestOutcome.CANCELLED);
      }
    });
  }

  private void enqueue(GroupRef ref) {
    queue.submit(() -> handle(ref));
  }

  private final Map<GroupRef, Long> retryDelays = new ConcurrentHashMap<>();

  private void retryLater(GroupRef ref) {
    long delay =
        retryDelays.merge(ref, FIRST_RETRY.toMillis(), (previous, first) -> Math.min(previous * 2, RETRY.toMillis()));
    queue.schedule(() -> handle(ref), delay);
  }

  /** Visible for tests: processes one group now, on the caller's thread. */
  void handle(GroupRef ref) {
    try {
      Optional<MysqlFailoverGroup> current = latest.apply(ref);
      String annotation = current.map(PlannedFailoverRequests::annotation).orElse(null);
      Start remembered = started.get(ref);
      if (remembered != null && remembered.annotation().equals(annotation)) {
        withdrawIfPausedWhileWaiting(ref, current, remembered);
        return;
      }
      if (remembered != null) {
        withdraw(ref, current, remembered, PlannedFailoverAnnotation.withdrawal(annotation));
      }
      if (annotation == null) {
        waiting.remove(ref);
        retryDelays.remove(ref);
        refused.remove(ref);
        return;
      }
      if (annotation.equals(refused.get(ref))) {
        return;
      }
      refused.remove(ref);
      // Parsed once for this request: empty when malformed, which the workflow refuses as
      // InvalidAnnotation, saying why; here it names no target and has no schedule to judge.
      Optional<PlannedFailoverAnnotation> request = parse(annotation);
      Optional<String> target = request.map(PlannedFailoverAnnotation::targetSite);
      if (current.map(PlannedFailoverRequests::paused).orElse(false)) {
        Optional<String> serving = remembered == null && plannedInFlight(current)
            ? starter.runs().runningPlannedServing(ref, annotation) : Optional.empty();
        if (serving.isPresent()) {
          adopt(ref, current, annotation, serving.get());
          return;
        }
        waiting.remove(ref);
        retryDelays.remove(ref);
        rejections.reject(ref, annotation, target.orElse(null), Reason.Paused.name(),
            "the group is paused (" + PauseAnnotation.ANNOTATION + "=true): no failover starts until the annotation is "
                + "removed; request refused");
        refused.put(ref, annotation);
        metrics.request(RequestOutcome.REJECTED);
        metrics.plannedRejected(target.orElse(null));
        return;
      }
      Optional<String> badTime = plannedInFlight(current) ? Optional.empty()
          : request.flatMap(r -> r.scheduleProblem(clock.instant()));
      if (badTime.isPresent()) {
        // Refused before any workflow starts, as the workflow itself would (it judges again in
        // workflow time). Not while a planned failover is under way: after a restart this handler
        // meets its running scheduled request again, whose time may have passed meanwhile.
        waiting.remove(ref);
        retryDelays.remove(ref);
        rejections.reject(ref, annotation, target.orElse(null), Reason.InvalidSchedule.name(),
            badTime.get() + "; request refused");
        refused.put(ref, annotation);
        metrics.request(RequestOutcome.REJECTED);
        metrics.plannedRejected(target.orElse(null));
        return;
      }
      if (current.map(GroupDeletion::deleting).orElse(false)) {
        // A group being deleted starts no failover: its finalizer waits for none to run.
        log.info("{}: planned failover '{}' not started: the group is being deleted", ref, annotation);
        waiting.remove(ref);
        retryDelays.remove(ref);
        refused.put(ref, annotation);
        return;
      }
      var outcome = starter.startPlanned(ref, annotation, target);
      if (outcome instanceof FailoverStarter.Started start) {
        waiting.remove(ref);
        retryDelays.remove(ref);
        started.put(ref, new Start(annotation, start.runId()));
        metrics.request(RequestOutcome.STARTED);
      } else if (outcome instanceof FailoverStarter.AlreadyRunning running) {
        Optional<String> serving = remembered == null && WorkflowTypes.PLANNED_FAILOVER.equals(running.workflowType())
            ? starter.runs().runningPlannedServing(ref, annotation) : Optional.empty();
        if (serving.isPresent()) {
          adopt(ref, current, annotation, serving.get());
        } else if (WorkflowTypes.PLANNED_FAILOVER.equals(running.workflowType())) {
          if (!annotation.equals(waiting.put(ref, annotation))) {
            log.info("{}: planned failover request '{}' waits for the running planned failover to end", ref,
                annotation);
            metrics.request(RequestOutcome.ALREADY_RUNNING);
          }
          retryLater(ref);
        } else {
          waiting.remove(ref);
          rejections.reject(ref, annotation, target.orElse(null), Reason.ConcurrentOperation.name(),
              "a " + running.workflowType() + " workflow is running for this group; request refused");
          // Remembered as refused only once the refusal is written: a write that failed (the API
          // server down) is made again on the retry, never skipped as already refused.
          refused.put(ref, annotation);
          metrics.request(RequestOutcome.REJECTED);
          metrics.plannedRejected(target.orElse(null));
        }
      }
    } catch (RuntimeException e) {
      // The watcher must outlive a Temporal or API outage: try the group again shortly.
      log.warn("{}: could not handle planned-failover request: {}", ref, e.toString());
      retryLater(ref);
    }
  }

  /**
   * The annotation the run serves was removed or changed: unless the run already ended by itself,
   * it gets the cancel signal with {@code why}. The run is forgotten only once that is done, so a
   * Temporal outage retries the cancel and not only the new start: a changed value would otherwise
   * wait, unannounced, for the whole of the old run's lag wait.
   */
  private void withdraw(GroupRef ref, Optional<MysqlFailoverGroup> current, Start start, String why) {
    if (endedByItself(current, start)) {
      log.debug("{}: the planned failover {} ended by itself before its request was withdrawn ({})", ref,
          start.runId(), why);
    } else if (starter.cancelPlanned(ref, start.runId(), why)) {
      metrics.request(RequestOutcome.CANCELLED);
    }
    started.remove(ref);
  }

  /**
   * Whether the run we started wrote its end into the status before the annotation went: the
   * workflow writes its terminal phase and then clears the annotation itself. Such a run needs no
   * cancel signal, and counting one would report a cancel for every failover that finished.
   */
  private static boolean endedByItself(Optional<MysqlFailoverGroup> current, Start start) {
    MysqlFailoverGroupStatus status = current.map(MysqlFailoverGroup::getStatus).orElse(null);
    if (status == null || status.workflow() == null || status.plannedFailover() == null
        || !start.runId().equals(status.workflow().runId())) {
      return false;
    }
    return Phase.named(status.plannedFailover().phase()).map(Phase::isTerminal).orElse(false);
  }

  /**
   * The request was started before this handler was (a watcher restart, a new leader), and its run
   * still serves it, maybe Scheduled for days: taken as ours, so that withdrawing it cancels it at
   * once and pausing the group withdraws it, as for a request this handler started.
   */
  private void adopt(GroupRef ref, Optional<MysqlFailoverGroup> current, String annotation, String runId) {
    waiting.remove(ref);
    retryDelays.remove(ref);
    Start adopted = new Start(annotation, runId);
    started.put(ref, adopted);
    log.info("{}: planned failover request '{}' is already served by run {}", ref, annotation, runId);
    withdrawIfPausedWhileWaiting(ref, current, adopted);
  }

  /**
   * A paused group starts nothing, so a request of ours that still only waits (Scheduled for its
   * time, Deferred for the cooldown: {@link Phase#isWaiting}) must not fire while it is paused:
   * it gets the cancel signal, once, and ends Cancelled having touched nothing. A run past waiting
   * goes on to its end, as any failover already running when a group is paused.
   */
  private void withdrawIfPausedWhileWaiting(GroupRef ref, Optional<MysqlFailoverGroup> current, Start start) {
    if (start.pauseWithdrawn() || !current.map(PlannedFailoverRequests::paused).orElse(false)) {
      return;
    }
    MysqlFailoverGroupStatus status = current.map(MysqlFailoverGroup::getStatus).orElse(null);
    if (status == null || status.workflow() == null || status.plannedFailover() == null
        || !start.runId().equals(status.workflow().runId()) || !Phase.isWaiting(status.plannedFailover().phase())) {
      return;
    }
    if (starter.cancelPlanned(ref, start.runId(), "the group was paused (" + PauseAnnotation.ANNOTATION
        + "=true) while the request waited (" + status.plannedFailover().phase() + ")")) {
      metrics.request(RequestOutcome.CANCELLED);
    }
    started.put(ref, new Start(start.annotation(), start.runId(), true));
  }

  /** Whether the status shows a planned failover under way (a phase that is not an end). */
  private static boolean plannedInFlight(Optional<MysqlFailoverGroup> current) {
    MysqlFailoverGroupStatus status = current.map(MysqlFailoverGroup::getStatus).orElse(null);
    String phase = status == null || status.plannedFailover() == null ? null : status.plannedFailover().phase();
    return Phase.named(phase).map(p -> !p.isTerminal()).orElse(false);
  }

  /** Visible for tests: returns once everything queued before the call has been handled. */
  void awaitQueued() throws InterruptedException {
    queue.awaitQueued();
  }

  static String annotation(MysqlFailoverGroup group) {
    return group.annotation(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION);
  }

  private static boolean paused(MysqlFailoverGroup group) {
    return PauseAnnotation.pauses(PauseAnnotation.read(group.annotation(PauseAnnotation.ANNOTATION)));
  }

  /** The request {@code annotation} makes; empty when it is malformed. */
  private static Optional<PlannedFailoverAnnotation> parse(String annotation) {
    try {
      return Optional.of(PlannedFailoverAnnotation.parse(annotation));
    } catch (IllegalArgumentException malformed) {
      return Optional.empty();
    }
  }

  @Override
  public void close() {
    queue.close();
  }
}
