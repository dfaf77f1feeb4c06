package io.shipstream.failover.dev;

import com.google.protobuf.util.Timestamps;
import io.shipstream.failover.dev.faults.WritableWatch;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.WriteLoad;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The region that holds the watcher leader and a worker goes dark, on a {@link RegionStack}: a
 * second watcher and worker ({@link ControlPlane.Replica}) are placed in that region, their links
 * to Temporal and to the API server through its links to the control plane's region, and made
 * the leader; the stack's own watcher and worker, beside Temporal and the API server, are the
 * others. Darkening the region cuts the leader and its worker off. What to expect:
 *
 * <ul>
 *   <li>the other watcher takes the Lease once the last renewal is a Lease duration old: within
 *       the Lease plus one retry period (with fabric8's jitter, 1.2 of it) of the cut;
 *   <li>every task Temporal hands to a poll the cut-off worker had open waits out its timeout
 *       before it is retried on the other worker (the test server, like a real one, cannot tell
 *       a silent worker from a slow one): a workflow task its 10 s, an activity attempt its
 *       start-to-close or, for the heartbeating steps, heartbeat timeout. Each open poll takes one
 *       task at most, so the delay is bounded by the cut-off worker's pollers times those timeouts;
 *       the run reads what happened from the workflow's history ({@link Stuck}).
 * </ul>
 */
public final class LeaderOutage {
  private static final Duration TIMEOUT = Duration.ofMinutes(4);

  /**
   * The control plane's side of one outage, ms from the cut (-1: not seen): the other watcher led
   * ({@code takeoverMs}); the cut-off leader stopped acting ({@code stepDownMs}, by its own
   * renew deadline); activity attempts the cut-off worker began after the cut and the other
   * worker began during the failover; the tasks that waited out a timeout.
   */
  public record Takeover(String region, double takeoverMs, double stepDownMs, long darkWorkerAttempts,
      long otherWorkerAttempts, Stuck stuck) {}

  /**
   * The failover's tasks that waited out a timeout, from its workflow history: workflow tasks
   * timed out (and the longest wait, started to timed out), activity attempts that no worker ever
   * began (handed to a poll of the cut-off worker) and the longest wait of such an activity from
   * being scheduled to the attempt that ran.
   */
  public record Stuck(int workflowTasksTimedOut, double longestWorkflowTaskMs, int activityAttemptsLost,
      double longestActivityWaitMs, String detail) {}

  /**
   * Drill 3, the primary elsewhere: during the outage nothing failed over and the primary stayed;
   * then a switchover requested completed ({@code outcome} its phase, {@code switchoverMs} from
   * the request); the writer's acknowledged writes all on the new primary.
   */
  public record SwitchoverRun(Takeover takeover, String from, String to, int failoversWhileDark, String activeWhileDark,
      String outcome, double switchoverMs, int most, String watchDetail, long acknowledged, long lost,
      long unaccounted) {}

  private final RegionStack regions;
  private final FailoverStack stack;
  private final RegionNetwork network;

  public LeaderOutage(RegionStack regions) {
    this.regions = regions;
    this.stack = regions.stack();
    this.network = regions.network();
  }

  /**
   * The region of the site that is neither the primary nor the switchover's target (the dr-only
   * site) holds the watcher leader and a worker and goes dark; once the other watcher leads and
   * the monitor has had three detection periods to act wrongly, a switchover to the other
   * candidate is requested and must complete. One writer in the control plane's region writes
   * where the primary Service routes throughout.
   */
  public SwitchoverRun leaderRegionDark() {
    String from = stack.api().resource().getStatus().activeSite();
    String to = "iad".equals(from) ? "pdx" : "iad";
    String bystander = stack.servers().keySet().stream().filter(s -> !s.equals(from) && !s.equals(to)).findFirst()
        .orElseThrow();
    String region = network.regionOf(bystander);
    long base = regions.nextIds();
    // The region is lit again before the replica goes: its close releases the Lease if it can.
    try (RegionReplica placed = placeLeader(region)) {
      return switchoverWhileDark(placed, region, from, to, base);
    }
  }

  private SwitchoverRun switchoverWhileDark(RegionReplica placed, String region, String from, String to, long base) {
    Leaders leaders = null;
    try (WriteLoad writer = WriteLoad.start(() -> network.routedJdbcUrl(RegionStack.CONTROL_PLANE_REGION),
        Duration.ofMillis(5), base);
        WritableWatch watch = WritableWatch.start(stack.servers())) {
      writer.awaitAcknowledged(50, Duration.ofSeconds(30));
      Map<String, Integer> eventsBefore = regions.eventCounts();
      leaders = Leaders.watch(stack.controlPlane(), placed.replica());
      network.darken(region);
      long darkAt = network.darkSince(region);
      RegionStack.await(() -> stack.controlPlane().watcherLeads(), "the watcher in "
          + RegionStack.CONTROL_PLANE_REGION + " leading after " + region + " went dark");
      // Three detection periods after the takeover: the monitor has seen the dark site and must
      // have done nothing about it but report it.
      Playground.sleep(io.shipstream.failover.model.Durations.parse(regions.knobs().pollInterval()).toMillis()
          * regions.knobs().failureThreshold() * 3);
      int failoversWhileDark = regions.started(eventsBefore);
      String activeWhileDark = stack.api().resource().getStatus().activeSite() + ", writable "
          + stack.writableSites();
      String before = Instant.now().toString();
      long requested = System.nanoTime();
      stack.api().annotate(to);
      PlannedFailoverStatus end = stack.waits().plannedEnd(before, TIMEOUT);
      double switchoverMs = (System.nanoTime() - requested) / 1e6;
      int ackedAfter = writer.acknowledgedCount();
      writer.awaitAcknowledged(ackedAfter + 20, Duration.ofSeconds(120));
      writer.stop();
      watch.close();
      leaders.close();
      Takeover takeover = takeover(region, darkAt, requested, leaders, placed);
      WritableWatch.Verdict seen = watch.verdict();
      String active = stack.api().resource().getStatus().activeSite();
      Set<Long> onNew = new HashSet<>(DatabaseCluster.writtenIds(stack.server(active)));
      Set<Long> onOld = new HashSet<>(DatabaseCluster.writtenIds(stack.server(from)));
      List<Long> acked = writer.acknowledged();
      long lost = acked.stream().filter(id -> !onNew.contains(id)).count();
      long unaccounted = acked.stream().filter(id -> !onNew.contains(id) && !onOld.contains(id)).count();
      return new SwitchoverRun(takeover, from, to, failoversWhileDark, activeWhileDark, end.phase() + " " + from
          + " -> " + active + (end.reason() == null ? "" : "/" + end.reason()), switchoverMs, seen.most(),
          seen.most() > 1 ? "two writable: " + seen.firstOverlap() : seen.answers() + " answers"
              + (seen.closestHandOver() == null ? "" : "; " + seen.closestHandOver()),
          acked.size(), lost,
          unaccounted);
    } finally {
      if (leaders != null) {
        leaders.close();
      }
      network.restore(region);
    }
  }

  /**
   * The primary's region holds the watcher leader and a worker and goes dark: {@link
   * RegionStack#primaryRegionDark} with the control plane's leader cut off with it; the other
   * watcher must take the Lease and the emergency failover complete on the other worker. The
   * region then comes back, the cut-off watcher and worker with it (judged as a return).
   */
  public RegionStack.DarkRun leaderAndPrimaryRegionDark(Takeover[] takeover) {
    String region = network.regionOf(stack.api().resource().getStatus().activeSite());
    try (RegionReplica placed = placeLeader(region)) {
      Leaders leaders = Leaders.watch(stack.controlPlane(), placed.replica());
      long before = System.nanoTime();
      RegionStack.DarkRun run;
      try {
        run = regions.primaryRegionDark(true);
      } finally {
        leaders.close();
      }
      long darkAt = network.darkSince(region);
      takeover[0] = takeover(region, darkAt > before ? darkAt : -1, darkAt, leaders, placed);
      return run;
    }
  }

  private Takeover takeover(String region, long darkAt, long workFrom, Leaders leaders, RegionReplica placed) {
    return new Takeover(region, since(leaders.otherLedAt(), darkAt), since(leaders.replicaStoppedAt(), darkAt),
        darkAt < 0 ? -1 : placed.attempts().since(darkAt), regions.attempts().since(workFrom),
        stuck(stack.controlPlane().client().fetchHistory(stack.api().ref().workflowId()).getEvents(),
            union(regions.attempts().keys(), placed.attempts().keys())));
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> all = new HashSet<>(a);
    all.addAll(b);
    return all;
  }

  /**
   * What waited out a timeout in a failover's history, {@code begun} the {@link
   * ActivityAttempts#key}s of the attempts the workers began: an earlier attempt of an activity
   * that none began was handed to a poll nobody answered; one that a worker began and that failed
   * (a server in the dark region not answering) is an ordinary retry and not counted.
   */
  static Stuck stuck(List<HistoryEvent> events, Set<String> begun) {
    Map<Long, HistoryEvent> byId = events.stream().collect(Collectors.toMap(HistoryEvent::getEventId,
        Function.identity()));
    int workflowTasks = 0;
    double longestTask = 0;
    int lost = 0;
    double longestWait = 0;
    List<String> detail = new ArrayList<>();
    for (HistoryEvent e : events) {
      if (e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT) {
        var a = e.getWorkflowTaskTimedOutEventAttributes();
        HistoryEvent started = byId.get(a.getStartedEventId());
        double ms = started == null ? -1 : millisBetween(started, e);
        String poller = started == null ? "?" : started.getWorkflowTaskStartedEventAttributes().getIdentity();
        workflowTasks++;
        longestTask = Math.max(longestTask, ms);
        detail.add(String.format("workflow task handed to %s timed out (%s) after %.0f ms", poller,
            a.getTimeoutType().name().replace("TIMEOUT_TYPE_", "").toLowerCase(java.util.Locale.ROOT), ms));
      } else if (e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
          && e.getActivityTaskStartedEventAttributes().getAttempt() > 1) {
        var a = e.getActivityTaskStartedEventAttributes();
        HistoryEvent scheduled = byId.get(a.getScheduledEventId());
        if (scheduled == null) {
          continue;
        }
        var s = scheduled.getActivityTaskScheduledEventAttributes();
        List<Integer> unanswered = new ArrayList<>();
        for (int attempt = 1; attempt < a.getAttempt(); attempt++) {
          if (!begun.contains(ActivityAttempts.key(s.getActivityId(), attempt))) {
            unanswered.add(attempt);
          }
        }
        if (unanswered.isEmpty()) {
          continue;
        }
        double ms = millisBetween(scheduled, e);
        lost += unanswered.size();
        longestWait = Math.max(longestWait, ms);
        detail.add(String.format("%s attempt %s begun by no worker, attempt %d ran %.0f ms after it was scheduled",
            s.getActivityType().getName(), unanswered.stream().map(String::valueOf).collect(Collectors.joining(",")),
            a.getAttempt(), ms));
      }
    }
    return new Stuck(workflowTasks, longestTask, lost, longestWait, detail.isEmpty() ? "no task waited out a"
        + " timeout" : String.join("; ", detail));
  }

  private static double millisBetween(HistoryEvent from, HistoryEvent to) {
    return Timestamps.toMillis(to.getEventTime()) - Timestamps.toMillis(from.getEventTime());
  }

  /**
   * Starts a watcher and a worker in {@code region}, reaching Temporal and the API server through
   * that region's links, and makes that watcher the leader: the stack's own watcher steps down
   * (its close releases the Lease), the new one takes the Lease, and the stack's own comes back
   * as the standby.
   */
  private RegionReplica placeLeader(String region) {
    ControlPlane control = stack.controlPlane();
    RegionReplica placed = RegionReplica.place(regions, region, true);
    try {
      control.killWatcher();
      RegionStack.await(placed.replica()::watcherLeads, "the watcher in " + region + " leading");
      control.startWatcher();
      return placed;
    } catch (RuntimeException e) {
      control.startWatcher();
      placed.close();
      throw e;
    }
  }

  /** Polls, every 10 ms, when the stack's watcher first led and when the replica's first stopped leading. */
  private static final class Leaders implements AutoCloseable {
    private final Thread thread;
    private volatile long otherLedAt = -1;
    private volatile long replicaStoppedAt = -1;
    private volatile boolean stop;

    private Leaders(ControlPlane control, ControlPlane.Replica replica) {
      thread = new Thread(() -> {
        while (!stop) {
          long now = System.nanoTime();
          if (otherLedAt < 0 && control.watcherLeads()) {
            otherLedAt = now;
          }
          if (replicaStoppedAt < 0 && !replica.watcherLeads()) {
            replicaStoppedAt = now;
          }
          Playground.sleep(10);
        }
      }, "leader-watch");
      thread.setDaemon(true);
    }

    static Leaders watch(ControlPlane control, ControlPlane.Replica replica) {
      Leaders leaders = new Leaders(control, replica);
      leaders.thread.start();
      return leaders;
    }

    long otherLedAt() {
      return otherLedAt;
    }

    long replicaStoppedAt() {
      return replicaStoppedAt;
    }

    @Override
    public void close() {
      stop = true;
      try {
        thread.join(1_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static double since(long nanos, long from) {
    return nanos < 0 || from < 0 ? -1 : (nanos - from) / 1e6;
  }
}
