package io.shipstream.failover.workflows.planned;

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
 * and was not done to which server.
 */
final class FakeMysql implements MysqlActivities {
  static final class Server {
    volatile boolean reachable = true;
    volatile boolean readOnly = true;
    volatile boolean replicating = true;
    volatile long seqno;
    volatile String replicatesFrom;
    volatile int appConnections = 2;
    /** When set, waits for this server's GTID block here until released. */
    volatile CountDownLatch waitGate;
    /** When set, the server never catches up: waits end in LagTimeout. */
    volatile boolean lagging;
    volatile boolean promoteFails;
    /** The server dies the moment it is fenced, as a source crashing mid-drain would. */
    volatile boolean crashOnFence;

    String gtid() {
      return "0-1-" + seqno;
    }
  }

  final Map<String, Server> servers = new ConcurrentHashMap<>();
  /** Runs at the start of every promote, to observe the world at that moment. */
  volatile Runnable beforePromote = () -> {};
  final List<String> calls = new CopyOnWriteArrayList<>();

  Server add(String site, boolean primary, long seqno) {
    Server s = new Server();
    s.readOnly = !primary;
    s.replicating = !primary;
    s.seqno = seqno;
    servers.put(site, s);
    return s;
  }

  Server server(String site) {
    return servers.get(site);
  }

  List<String> callsTo(String verb) {
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
    Server s = servers.get(t.site());
    if (s == null || !s.reachable) {
      return ServerState.unreachable(t.site(), "connection refused");
    }
    return new ServerState(t.site(), true, null, "mariadb", "10.11.6-MariaDB", s.readOnly, s.replicating,
        s.replicating, s.replicating, s.replicatesFrom, 3306, s.gtid(), s.gtid(), s.replicating ? 0L : null,
        s.appConnections);
  }

  @Override
  public FenceResult fence(MysqlTarget t) {
    calls.add("fence " + t.site());
    Server s = reach(t);
    if (s.crashOnFence) {
      s.reachable = false;
      throw ApplicationFailure.newFailure(t + " closed the connection", "Unreachable");
    }
    s.readOnly = true;
    return new FenceResult(s.gtid(), s.appConnections);
  }

  @Override
  public void unfence(MysqlTarget t) {
    calls.add("unfence " + t.site());
    reach(t).readOnly = false;
  }

  @Override
  public DrainResult killAppConnections(MysqlTarget t, Instant deadline) {
    calls.add("kill " + t.site());
    Server s = reach(t);
    int killed = s.appConnections;
    s.appConnections = 0;
    return new DrainResult(killed, 0);
  }

  @Override
  public String waitForGtidSet(MysqlTarget t, String gtidSet, Instant deadline) {
    calls.add("wait " + t.site() + " " + gtidSet);
    Server s = reach(t);
    CountDownLatch gate = s.waitGate;
    if (gate != null) {
      try {
        while (!gate.await(100, TimeUnit.MILLISECONDS)) {
          Activity.getExecutionContext().heartbeat(null);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    long wanted = Long.parseLong(gtidSet.substring(gtidSet.lastIndexOf('-') + 1));
    if (s.lagging) {
      throw ApplicationFailure.newNonRetryableFailure(t.site() + " is " + (wanted - s.seqno)
          + " transactions behind at the deadline", "LagTimeout");
    }
    s.seqno = Math.max(s.seqno, wanted);
    return s.gtid();
  }

  @Override
  public PromoteResult promote(MysqlTarget t, Instant relayDrainDeadline) {
    calls.add("promote " + t.site());
    beforePromote.run();
    Server s = reach(t);
    if (s.promoteFails) {
      throw ApplicationFailure.newNonRetryableFailure("SET GLOBAL read_only=0 refused", "PromoteFailed");
    }
    s.replicating = false;
    s.replicatesFrom = null;
    s.readOnly = false;
    return new PromoteResult(s.gtid(), s.gtid());
  }

  @Override
  public void replicateFrom(MysqlTarget replica, MysqlTarget source) {
    calls.add("replicate " + replica.site() + " from " + source.site());
    Server s = reach(replica);
    s.readOnly = true;
    s.replicating = true;
    s.replicatesFrom = source.site();
  }
}
