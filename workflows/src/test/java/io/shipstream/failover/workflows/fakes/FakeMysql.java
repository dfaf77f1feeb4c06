package io.shipstream.failover.workflows.fakes;

import io.shipstream.failover.model.crd.ChannelCheck;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.shipstream.failover.workflows.activities.ServerState;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationFailure;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Servers as a workflow test needs them: each site has a MariaDB-style GTID position, a
 * read-only flag and a replication state, and every call is recorded so a test can say what was
 * and was not done to which server. Shared by the planned and the emergency workflow tests.
 */
public final class FakeMysql implements MysqlActivities {
  /** The semi-sync settings each promoted site was given (empty: none, left alone). */
  public final java.util.Map<String, java.util.Optional<io.shipstream.failover.model.topology.SemiSyncSettings>>
      promotedWith =
      new java.util.concurrent.ConcurrentHashMap<>();
  /** Whether each promoted site was promoted as caught up with its fenced direct source (in one exchange). */
  public final Map<String, Boolean> promotedCaughtUp = new ConcurrentHashMap<>();
  public static final class Server {
    public volatile boolean reachable = true;
    public volatile boolean readOnly = true;
    public volatile boolean replicating = true;
    /** Seconds_Behind_Source while replicating: 1 by default, a replica behind (0 and a few short is current). */
    public volatile long secondsBehind = 1;
    public volatile long seqno;
    public volatile String replicatesFrom;
    public volatile int appConnections = 2;
    /** When set, waits for this server's GTID block (or its catch-up from another server) here until released. */
    public volatile CountDownLatch waitGate;
    /** When set, the server never catches up: waits end in LagTimeout. */
    public volatile boolean lagging;
    /** How many waits for this server still end in LagTimeout (it catches up after them). */
    public final java.util.concurrent.atomic.AtomicInteger lagTimeouts =
        new java.util.concurrent.atomic.AtomicInteger();
    public volatile boolean promoteFails;
    /** How many promotes still fail as a refused connection would (retryable) before one gets through. */
    public final java.util.concurrent.atomic.AtomicInteger promoteRefusals =
        new java.util.concurrent.atomic.AtomicInteger();
    /** When set, every fence of this server fails for good, as if the server never answered in time. */
    public volatile boolean fenceFails;
    /** The server dies the moment it is fenced, as a source crashing mid-drain would. */
    public volatile boolean crashOnFence;
    /** When set, the session drain of this server blocks here until released, as sessions that keep reconnecting. */
    public volatile CountDownLatch drainGate;
    /** When set, a fence of this server blocks here until released, so a test can act meanwhile. */
    public volatile CountDownLatch fenceGate;
    /** When set, an unfence (a rollback's) of this server blocks here until released. */
    public volatile CountDownLatch unfenceGate;
    /** Received but not yet applied (a relay-log backlog, say with the SQL thread stopped); 0 means none. */
    public volatile long receivedSeqno;
    /** Whether it binlogs what it replicates, so another server can catch up from it. */
    public volatile boolean logsReplicaUpdates = true;
    /** When set, catching this server up from another one ends in LagTimeout, having applied nothing. */
    public volatile boolean catchUpFails;
    /** When set, its channel reads back not as the group asks, for this reason ({@link #readChannel}). */
    public volatile String channelProblem;
    /** When set, pointing this server at a source fails for good, as a replication error would. */
    public volatile boolean replicateFails;
    /**
     * How many inspections of this server still find it unreachable while every other call reaches
     * it: a server that came back just after it was looked at, as an emergency failover's failed
     * primary that its check before the fence found dead and its fence then reaches.
     */
    public final java.util.concurrent.atomic.AtomicInteger missedInspections =
        new java.util.concurrent.atomic.AtomicInteger();

    public String gtid() {
      return "0-1-" + seqno;
    }

    String receivedGtid() {
      return "0-1-" + Math.max(seqno, receivedSeqno);
    }
  }

  public final Map<String, Server> servers = new ConcurrentHashMap<>();
  /** Runs at the start of every promote, to observe the world at that moment. */
  public volatile Runnable beforePromote = () -> {};
  /** Run as a replica is pointed at a source (the old primary's rejoin, say), so a test can act meanwhile. */
  public volatile Runnable beforeReplicate = () -> {};
  /** What fence and promote report as the instants their statement took effect (null: not measured). */
  public volatile java.time.Instant fenceAppliedAt;
  public volatile java.time.Instant becameWritableAt;
  public final List<String> calls = new CopyOnWriteArrayList<>();
  /** The queue a worker of its own polls with this fake ({@link RealTimeTestServer}); what {@link #connectionsQueue} says. */
  public static final String OWN_QUEUE = "fake-worker-connections";
  /** What {@link #connectionsQueue} answers: a queue nobody polls stands for a worker that is gone. */
  public volatile String connectionsQueue = OWN_QUEUE;
  /** The task queue each fence, lag wait and promotion ran from, as "fence iad" -> queue. */
  public final Map<String, String> stepQueues = new ConcurrentHashMap<>();
  /** In {@link #stepQueues}: the step ran as a local activity, in the worker running the workflow task. */
  public static final String LOCAL = "local activity";

  @Override
  public String connectionsQueue() {
    return connectionsQueue;
  }

  private void ranFrom(String step) {
    try {
      var info = Activity.getExecutionContext().getInfo();
      stepQueues.put(step, info.isLocal() ? LOCAL : info.getActivityTaskQueue());
    } catch (IllegalStateException notAnActivity) {
      // Called directly by a test, not through Temporal.
    }
  }
  /**
   * Where each site's server listens, as the workflow addressed it: inspect reports a replica's
   * source by these, as a real server reports the host and port it was pointed at.
   */
  private final Map<String, MysqlTarget> endpoints = new ConcurrentHashMap<>();

  /**
   * Reports a replica's source at the address the group gives it even before the workflow
   * addressed that source: a run that inspects every site at once may read a replica first.
   */
  public void addressed(MysqlTarget source) {
    endpoints.put(source.site(), source);
  }

  public Server add(String site, boolean primary, long seqno) {
    Server s = new Server();
    s.readOnly = !primary;
    s.replicating = !primary;
    s.seqno = seqno;
    servers.put(site, s);
    return s;
  }

  public Server server(String site) {
    return servers.get(site);
  }

  public List<String> callsTo(String verb) {
    return calls.stream().filter(c -> c.startsWith(verb + " ")).toList();
  }

  private Server reach(MysqlTarget t) {
    Server s = servers.get(t.site());
    if (s == null || !s.reachable) {
      throw ApplicationFailure.newFailure(t + " unreachable: connection refused", "Unreachable");
    }
    return s;
  }

  @Override
  public ServerState inspect(MysqlTarget t) {
    calls.add("inspect " + t.site());
    endpoints.put(t.site(), t);
    Server s = servers.get(t.site());
    if (s == null || !s.reachable || (s.missedInspections.getAndUpdate(n -> Math.max(0, n - 1)) > 0)) {
      return ServerState.unreachable(t.site(), "connection refused");
    }
    // A source the workflow never addressed is reported by its site name on the default port.
    MysqlTarget source = s.replicatesFrom == null ? null
        : endpoints.getOrDefault(s.replicatesFrom, new MysqlTarget(t.group(), s.replicatesFrom, s.replicatesFrom, 3306,
            t.credentialsSecret()));
    return new ServerState(t.site(), true, null, "mariadb", "10.11.6-MariaDB", s.readOnly,
        s.replicating || source != null, s.replicating, s.replicating, source == null ? null : source.host(),
        source == null ? null : source.port(), s.gtid(), s.receivedGtid(),
        s.replicating ? (Long) s.secondsBehind : null,
        s.appConnections);
  }

  @Override
  public FenceResult fence(MysqlTarget t) {
    calls.add("fence " + t.site());
    ranFrom("fence " + t.site());
    Server s = reach(t);
    if (s.fenceFails) {
      throw ApplicationFailure.newNonRetryableFailure(t + " unreachable: connection refused", "Unreachable");
    }
    await(s.fenceGate);
    if (s.crashOnFence) {
      s.reachable = false;
      throw ApplicationFailure.newFailure(t + " closed the connection", "Unreachable");
    }
    s.readOnly = true;
    return new FenceResult(s.gtid(), s.appConnections, fenceAppliedAt);
  }

  @Override
  public void unfence(MysqlTarget t) {
    calls.add("unfence " + t.site());
    Server s = reach(t);
    await(s.unfenceGate);
    s.readOnly = false;
  }

  @Override
  public DrainResult killAppConnections(MysqlTarget t, Instant deadline) {
    calls.add("kill " + t.site());
    Server s = reach(t);
    await(s.drainGate);
    int killed = s.appConnections;
    s.appConnections = 0;
    return new DrainResult(killed, 0);
  }

  @Override
  public String waitForGtidSet(MysqlTarget t, String gtidSet, Instant deadline) {
    return waitFor("wait", t, gtidSet, deadline);
  }

  /** As the lag gate: a lagging server lags before the fence too. */
  @Override
  public String catchUpBeforeFence(MysqlTarget t, String gtidSet, Instant deadline) {
    return waitFor("catch-up", t, gtidSet, deadline);
  }

  private String waitFor(String verb, MysqlTarget t, String gtidSet, Instant deadline) {
    calls.add(verb + " " + t.site() + " " + gtidSet);
    ranFrom(verb + " " + t.site());
    Server s = reach(t);
    long wanted = Long.parseLong(gtidSet.substring(gtidSet.lastIndexOf('-') + 1));
    if (!awaitUntil(s.waitGate, deadline) || s.lagTimeouts.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw ApplicationFailure.newNonRetryableFailure(t.site() + " is " + (wanted - s.seqno)
          + " transactions behind at the deadline", "LagTimeout");
    }
    if (s.lagging) {
      throw ApplicationFailure.newNonRetryableFailure(t.site() + " is " + (wanted - s.seqno)
          + " transactions behind at the deadline", "LagTimeout");
    }
    s.seqno = Math.max(s.seqno, wanted);
    return s.gtid();
  }

  @Override
  public PromoteResult promote(MysqlTarget t, Instant relayDrainDeadline,
      io.shipstream.failover.model.topology.SemiSyncSettings semiSync, boolean caughtUpFromFencedSource) {
    calls.add("promote " + t.site());
    ranFrom("promote " + t.site());
    promotedWith.put(t.site(), java.util.Optional.ofNullable(semiSync));
    promotedCaughtUp.put(t.site(), caughtUpFromFencedSource);
    beforePromote.run();
    Server s = reach(t);
    if (s.promoteRefusals.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw ApplicationFailure.newFailure(t + " unreachable: connection refused", "Unreachable");
    }
    if (s.promoteFails) {
      throw ApplicationFailure.newNonRetryableFailure("SET GLOBAL read_only=0 refused", "PromoteFailed");
    }
    // What promote does first: apply everything already received.
    s.seqno = Math.max(s.seqno, s.receivedSeqno);
    s.replicating = false;
    s.replicatesFrom = null;
    s.readOnly = false;
    return new PromoteResult(s.gtid(), s.gtid(), becameWritableAt);
  }

  @Override
  public StoppedReplica drainAndStopReplica(MysqlTarget t, Instant relayDrainDeadline) {
    calls.add("drainAndStop " + t.site());
    Server s = reach(t);
    boolean wasReplica = s.replicating;
    String received = wasReplica ? s.receivedGtid() : null;
    s.seqno = Math.max(s.seqno, s.receivedSeqno);
    s.replicating = false;
    return new StoppedReplica(s.gtid(), received, wasReplica, s.logsReplicaUpdates);
  }

  @Override
  public String catchUpFrom(MysqlTarget replica, MysqlTarget donor, String donorGtid, Instant deadline) {
    calls.add("catchUp " + replica.site() + " from " + donor.site() + " " + donorGtid);
    Server s = reach(replica);
    reach(donor);
    await(s.waitGate);
    long wanted = Long.parseLong(donorGtid.substring(donorGtid.lastIndexOf('-') + 1));
    if (s.catchUpFails) {
      throw ApplicationFailure.newNonRetryableFailure(replica.site() + " is still missing " + (wanted - s.seqno)
          + " transaction(s) of " + donor.site() + " at the deadline", "LagTimeout");
    }
    s.seqno = Math.max(s.seqno, wanted);
    s.replicatesFrom = null;
    return s.gtid();
  }

  @Override
  public void replicateFrom(MysqlTarget replica, MysqlTarget source) {
    calls.add("replicate " + replica.site() + " from " + source.site());
    beforeReplicate.run();
    endpoints.put(source.site(), source);
    Server s = reach(replica);
    if (s.replicateFails) {
      throw ApplicationFailure.newNonRetryableFailure(replica + " cannot replicate from " + source
          + ": IO thread: Got fatal error 1236 from master", "ReplicationFailed");
    }
    s.readOnly = true;
    s.replicating = true;
    s.replicatesFrom = source.site();
  }

  /**
   * A plaintext channel (the fake's groups ask for no TLS), connected while the server replicates
   * from {@code source}. Not among {@link #calls}: it only reads, after the run's steps.
   */
  @Override
  public ChannelCheck readChannel(MysqlTarget replica, MysqlTarget source) {
    Server s = servers.get(replica.site());
    if (s == null || !s.reachable) {
      return ChannelCheck.unreadable(replica.site(), source.site(), "disabled", "connection refused");
    }
    boolean connected = s.replicating && source.site().equals(s.replicatesFrom);
    String problem = s.channelProblem != null ? s.channelProblem : connected ? null : "IO thread not connected";
    return new ChannelCheck(replica.site(), source.site(), "disabled", false, null, null, false, connected,
        problem == null, problem);
  }

  /** Blocks on the gate, if any, heartbeating so a heartbeat timeout does not fire meanwhile. */
  /** As {@link #await}, giving up at {@code deadline} (real time), as a wait with a deadline does; false then. */
  private static boolean awaitUntil(CountDownLatch gate, Instant deadline) {
    if (gate == null) {
      return true;
    }
    try {
      while (!gate.await(100, TimeUnit.MILLISECONDS)) {
        if (Instant.now().isAfter(deadline)) {
          return false;
        }
        Activity.getExecutionContext().heartbeat(null);
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static void await(CountDownLatch gate) {
    if (gate == null) {
      return;
    }
    try {
      while (!gate.await(100, TimeUnit.MILLISECONDS)) {
        Activity.getExecutionContext().heartbeat(null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
