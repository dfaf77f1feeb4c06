package io.shipstream.failover.dev;

import io.shipstream.failover.model.topology.SemiSyncSettings;
import io.shipstream.failover.mysql.Credentials;
import io.shipstream.failover.mysql.MysqlAddress;
import io.shipstream.failover.mysql.MysqlConnections;
import io.shipstream.failover.mysql.MysqlSession;
import io.shipstream.failover.mysql.SemiSync;
import io.shipstream.failover.mysql.Timeouts;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.FileTrees;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.MariaDbServer;
import io.shipstream.failover.testsupport.TcpProxy;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The commit latency semi-sync adds: a primary and one replica, single-row autocommit INSERTs
 * from one client timed one by one (after a warm-up), with semi-sync off and then on (the replica
 * acknowledging, wait point AFTER_SYNC), on loopback and with the replica's link to the primary
 * through a proxy adding a round trip, as a replica in another region has. Printed, never asserted.
 */
final class SemiSyncLatency {
  static final int COMMITS = 1000;
  private static final Credentials LOGIN = new Credentials(MariaDbServer.ADMIN.user(), MariaDbServer.ADMIN.password(),
      MariaDbServer.REPLICATION.user(), MariaDbServer.REPLICATION.password());

  private SemiSyncLatency() {}

  record Latency(long rttMs, double asyncMedian, double asyncP99, double semiMedian, double semiP99) {}

  /** {@code SemiSyncLatency mariadb|mysql 0,70}: the latency table alone. */
  public static void main(String[] args) throws IOException {
    Flavor flavor = BenchmarkTable.flavors(args[0]).get(0);
    List<Long> rtts = java.util.Arrays.stream(args[1].split(",")).map(Long::valueOf).toList();
    System.out.println(table(Path.of(System.getProperty("benchmark.work", "temporal-dev/target/bench-latency")), flavor,
        rtts));
  }

  static String table(Path work, Flavor flavor, List<Long> rtts) throws IOException {
    List<Latency> rows = measure(work, flavor, rtts);
    StringBuilder out = new StringBuilder(String.format("single-row INSERT commit latency, %d commits each, one"
        + " client, a %s primary and one replica%n", COMMITS, BenchmarkTable.servers(flavor)));
    out.append("| replica link | async median (ms) | async p99 (ms) | semi-sync median (ms) | semi-sync p99 (ms) |"
        + " added median (ms) | added p99 (ms) |\n|---|---|---|---|---|---|---|\n");
    for (Latency l : rows) {
      out.append(String.format("| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |%n",
          l.rttMs() == 0 ? "loopback" : l.rttMs() + " ms round trip", l.asyncMedian(), l.asyncP99(), l.semiMedian(),
          l.semiP99(), l.semiMedian() - l.asyncMedian(), l.semiP99() - l.asyncP99()));
    }
    return out.toString();
  }

  static List<Latency> measure(Path work, Flavor flavor, List<Long> rtts) throws IOException {
    FileTrees.delete(work);
    List<Latency> out = new ArrayList<>();
    try (DatabaseCluster cluster = DatabaseCluster.start(flavor, work.resolve("latency"), 2)) {
      DatabaseServer primary = cluster.primary();
      DatabaseServer replica = cluster.replicas().get(0);
      for (long rtt : rtts) {
        TcpProxy proxy = null;
        try {
          if (rtt > 0) {
            proxy = TcpProxy.start(primary.host(), primary.port()).delay(Duration.ofMillis(rtt / 2));
            replica.stopReplication();
            replica.startReplicationFrom(proxy.host(), proxy.port());
          }
          set(primary, new SemiSyncSettings(false, false, null, null));
          set(replica, new SemiSyncSettings(false, false, null, null));
          double[] async = commits(primary, 1_000_000 * (out.size() * 2 + 1));
          set(primary, new SemiSyncSettings(true, false, 1, 10_000L));
          set(replica, new SemiSyncSettings(false, true, null, null));
          awaitClient(primary, replica);
          double[] semi = commits(primary, 1_000_000 * (out.size() * 2 + 2));
          out.add(new Latency(rtt, async[0], async[1], semi[0], semi[1]));
        } finally {
          if (proxy != null) {
            replica.stopReplication();
            replica.startReplicationFrom(primary.host(), primary.port());
            proxy.close();
          }
        }
      }
    } finally {
      FileTrees.delete(work);
    }
    return out;
  }

  private static void set(DatabaseServer server, SemiSyncSettings settings) {
    try (MysqlSession session = open(server)) {
      SemiSync.apply(session, settings);
    } catch (Exception e) {
      throw new IllegalStateException(server.name() + ": " + e.getMessage(), e);
    }
  }

  private static void awaitClient(DatabaseServer primary, DatabaseServer replica) {
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    long id = -1_000_000;
    while (System.nanoTime() < until) {
      try (MysqlSession session = open(primary)) {
        var s = SemiSync.read(session);
        if (s.sourceActive() && s.clients() != null && s.clients() >= 1) {
          return;
        }
        // A commit brings a fallen-back source back once the replica acknowledges it.
        primary.execute("INSERT INTO " + DatabaseCluster.WRITES_TABLE + " (id, at) VALUES (" + (id--) + ", NOW(6))");
      } catch (Exception e) {
        // starting: ask again
      }
      Playground.sleep(50);
    }
    String states;
    try (MysqlSession p = open(primary); MysqlSession r = open(replica)) {
      states = SemiSync.read(p) + " / " + SemiSync.read(r) + " / " + replica.replicaStatus();
    } catch (Exception e) {
      states = e.toString();
    }
    throw new IllegalStateException("no semi-sync replica connected to " + primary.name() + ": " + states);
  }

  private static MysqlSession open(DatabaseServer server) throws Exception {
    return MysqlSession.open(MysqlConnections.unpooled(), MysqlAddress.of(server.host(), server.port()), LOGIN,
        new Timeouts(Duration.ofSeconds(2), Duration.ofSeconds(30)));
  }

  /** Median and p99 in ms of {@link #COMMITS} timed commits, after 100 untimed ones. */
  private static double[] commits(DatabaseServer primary, long firstId) {
    List<Double> ms = new ArrayList<>();
    try (Connection c = primary.appConnection();
        PreparedStatement insert = c.prepareStatement("INSERT INTO " + DatabaseCluster.WRITES_TABLE
            + " (id, at) VALUES (?, NOW(6))")) {
      for (int i = 0; i < COMMITS + 100; i++) {
        insert.setLong(1, firstId + i);
        long t0 = System.nanoTime();
        insert.executeUpdate();
        if (i >= 100) {
          ms.add((System.nanoTime() - t0) / 1e6);
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException(primary.name() + ": " + e.getMessage(), e);
    }
    ms.sort(null);
    return new double[] {BenchmarkTable.median(ms), ms.get((int) Math.ceil(ms.size() * 0.99) - 1)};
  }
}
