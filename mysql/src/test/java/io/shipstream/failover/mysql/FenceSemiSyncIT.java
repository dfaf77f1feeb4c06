package io.shipstream.failover.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.topology.SemiSyncSettings;
import io.shipstream.failover.testsupport.ClusterPerFlavor;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import io.shipstream.failover.testsupport.MariaDbServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;

/**
 * A primary with semi-sync on whose replica has stopped acknowledging (a region cut off: issue
 * 33), an application's commit waiting for the acknowledgement, and the fence a cut-off sidecar
 * applies. The fence must not wait behind that commit: waiting out its lock wait (here 5 s) would
 * outlast the semi-sync timeout (2 s), the server would fall back to asynchronous and acknowledge
 * a commit no replica has. Before the fix the client was told its INSERT succeeded.
 */
class FenceSemiSyncIT {
  private static final Credentials LOGIN = new Credentials(MariaDbServer.ADMIN.user(), MariaDbServer.ADMIN.password(),
      MariaDbServer.REPLICATION.user(), MariaDbServer.REPLICATION.password());
  private static final Timeouts TIMEOUTS = new Timeouts(Duration.ofSeconds(2), Duration.ofSeconds(30));
  private static final ClusterPerFlavor CLUSTERS = new ClusterPerFlavor(Path.of("target", "it-fence-semisync"), 2);

  @AfterAll
  static void stop() {
    CLUSTERS.close();
  }

  @FlavorTest
  void aCommitWaitingForAnAcknowledgementIsKilledNotAcknowledgedByTheFence(Flavor flavor) throws Exception {
    flavor.assumeAvailable();
    DatabaseServer primary = CLUSTERS.of(flavor).primary();
    DatabaseServer replica = CLUSTERS.of(flavor).replicas().get(0);
    boolean mysql = flavor == Flavor.MYSQL;
    if (mysql) {
      replica.execute("SET GLOBAL super_read_only = 1");
    }
    try (MysqlSession p = open(primary); MysqlSession r = open(replica)) {
      // Semi-sync with a 2 s timeout, waiting also while no replica is connected.
      SemiSync.apply(p, new SemiSyncSettings(true, true, mysql ? 1 : null, 2000L, true));
      SemiSync.apply(r, new SemiSyncSettings(false, true, null, null));
      primary.execute("INSERT INTO " + DatabaseCluster.WRITES_TABLE + " (id, at) VALUES (1, NOW(6))");
      // The replica stops acknowledging, as when its region goes dark.
      replica.stopReplicaIoThread();

      CompletableFuture<String> commit = CompletableFuture.supplyAsync(() -> {
        try (Connection app = primary.appConnection(); Statement s = app.createStatement()) {
          s.execute("INSERT INTO " + DatabaseCluster.WRITES_TABLE + " (id, at) VALUES (2, NOW(6))");
          return "acknowledged";
        } catch (SQLException e) {
          return "failed: " + e.getMessage();
        }
      });
      awaitWaitingForAck(primary);

      int killed = Fence.apply(p, 5, Set.of());

      assertThat(commit.get(30, TimeUnit.SECONDS)).as("the commit waiting for an acknowledgement at the fence")
          .startsWith("failed");
      assertThat(killed).isGreaterThanOrEqualTo(1);
      assertThat(primary.isReadOnly()).isTrue();
    } finally {
      restore(primary, replica);
    }
  }

  /**
   * The region-outage failure (issue 33) as it happened on MySQL: semi-sync {@code required} with
   * a timeout far past the fence (30 s), the replica's IO thread stopped so no acknowledgement can
   * come, and an application that commits, is killed by the fence, reconnects at once and commits
   * again. On MySQL a killed session's commit goes on waiting for its acknowledgement, holding the
   * commit lock super_read_only needs; before the fix the fence landed only at the semi-sync
   * timeout, when the server fell back to asynchronous and acknowledged the reconnected writer's
   * commit, which no replica had. The fence must land long before the timeout (a correctness
   * property here: after it the server acknowledges without a replica), and no commit the writer
   * saw acknowledged may be missing from the replica.
   */
  @FlavorTest
  void anIsolatedPrimaryStopsAcknowledgingAtTheFenceNotAtTheSemiSyncTimeout(Flavor flavor) throws Exception {
    isolatedPrimaryFenced(flavor, 30_000, 1, 2);
  }

  /**
   * As above with four writers and a semi-sync timeout (4 s) shorter than the fence's lock wait
   * (5 s): a writer that reconnects, or was between statements, when the waiting sessions are
   * killed commits and waits in turn, and a fence sent after the kill waits behind that commit.
   * Before the fix MariaDB's fence did (the region drill at load 15-18 once landed past its
   * timeout so), here for its whole lock wait, past the timeout, and the server acknowledged what
   * no replica had; the fence queued before the kill lets no write start.
   */
  @FlavorTest
  void writersReconnectingBetweenTheKillAndTheFenceAreNotAcknowledged(Flavor flavor) throws Exception {
    isolatedPrimaryFenced(flavor, 4_000, 4, 5);
  }

  private static void isolatedPrimaryFenced(Flavor flavor, long semiSyncTimeoutMillis, int writerCount,
      int lockWaitSeconds) throws Exception {
    flavor.assumeAvailable();
    DatabaseCluster cluster = CLUSTERS.of(flavor);
    DatabaseServer primary = cluster.primary();
    DatabaseServer replica = cluster.replicas().get(0);
    List<AckWriter> writers = new ArrayList<>();
    List<Thread> writing = new ArrayList<>();
    for (int i = 0; i < writerCount; i++) {
      writers.add(new AckWriter(primary, 1_000_000L * (i + 1) + semiSyncTimeoutMillis * 10));
      writing.add(new Thread(writers.get(i), "ack-writer-" + i));
    }
    try (MysqlSession p = open(primary); MysqlSession r = open(replica)) {
      p.dialect().clearReadOnly(p);
      SemiSync.apply(p,
          new SemiSyncSettings(true, true, flavor == Flavor.MYSQL ? 1 : null, semiSyncTimeoutMillis, true));
      SemiSync.apply(r, new SemiSyncSettings(false, true, null, null));
      cluster.awaitReplicasCaughtUp(Duration.ofSeconds(30));
      // The replica stops acknowledging, as when its region goes dark.
      replica.stopReplicaIoThread();
      // Before the first commit can wait: the semi-sync timeout runs from its wait's start.
      long firstWait = System.nanoTime();
      writing.forEach(Thread::start);
      awaitWaitingForAck(primary);

      // As the sidecar does: the fence each tick until the server is read-only.
      long fenceStart = System.nanoTime();
      int attempts = 0;
      long deadline = firstWait + Duration.ofMillis(semiSyncTimeoutMillis).plusSeconds(10).toNanos();
      while (!primary.isReadOnly() && System.nanoTime() < deadline) {
        attempts++;
        try (MysqlSession fence = open(primary)) {
          Fence.apply(fence, lockWaitSeconds, Set.of());
        } catch (MysqlException e) {
          System.out.printf("%s fence attempt %d failed after %d ms: %s%n", flavor, attempts,
              Duration.ofNanos(System.nanoTime() - fenceStart).toMillis(), e.getMessage());
          Thread.sleep(1000);
        }
      }
      long landed = System.nanoTime();
      boolean readOnly = primary.isReadOnly();
      // The writers go on trying for a while against the fenced server.
      Thread.sleep(1000);
      writers.forEach(AckWriter::stop);
      for (Thread t : writing) {
        t.join(60_000);
      }

      Set<Long> onReplica = new HashSet<>(DatabaseCluster.writtenIds(replica));
      List<Long> acknowledged = writers.stream().flatMap(w -> w.acknowledged.stream()).toList();
      List<Long> acknowledgedNotReplicated =
          acknowledged.stream().filter(id -> !onReplica.contains(id)).sorted().toList();
      int failed = writers.stream().mapToInt(w -> w.failed.get()).sum();
      System.out.printf("%s, %d writers: fence landed %d ms after it started (%d attempts), %d ms after the first"
          + " commit waited for an acknowledgement (semi-sync timeout %d ms, lock wait %d s); %d acknowledged,"
          + " %d failed; acknowledged but on no replica: %d %s%n",
          flavor, writerCount, Duration.ofNanos(landed - fenceStart).toMillis(), attempts,
          Duration.ofNanos(landed - firstWait).toMillis(), semiSyncTimeoutMillis, lockWaitSeconds, acknowledged.size(),
          failed, acknowledgedNotReplicated.size(), acknowledgedNotReplicated.stream().limit(5).toList());

      assertThat(readOnly).as("the primary read-only").isTrue();
      assertThat(Duration.ofNanos(landed - firstWait).toMillis())
          .as("the fence landed before the semi-sync timeout (after it the server acknowledges without a replica)")
          .isLessThan(semiSyncTimeoutMillis);
      assertThat(failed).as("the writers' commits after the fence failed").isGreaterThan(0);
      assertThat(acknowledgedNotReplicated.size()).as("commits acknowledged to a writer that no replica received")
          .isZero();
    } finally {
      writers.forEach(AckWriter::stop);
      for (Thread t : writing) {
        t.join(60_000);
      }
      restore(primary, replica);
    }
  }

  /**
   * An application writer: one INSERT after another, each id recorded as acknowledged only when
   * the server said it committed; on any error it drops the connection and reconnects at once,
   * as a pool would.
   */
  private static final class AckWriter implements Runnable {
    private final DatabaseServer server;
    private final AtomicLong nextId;
    private final AtomicBoolean stopped = new AtomicBoolean();
    final Queue<Long> acknowledged = new ConcurrentLinkedQueue<>();
    final AtomicInteger failed = new AtomicInteger();
    final AtomicInteger reconnects = new AtomicInteger();

    AckWriter(DatabaseServer server, long firstId) {
      this.server = server;
      this.nextId = new AtomicLong(firstId);
    }

    void stop() {
      stopped.set(true);
    }

    @Override
    public void run() {
      while (!stopped.get()) {
        try (Connection app = server.connect(MariaDbServer.APP, Duration.ofSeconds(2), Duration.ofSeconds(60));
            Statement s = app.createStatement()) {
          while (!stopped.get()) {
            long id = nextId.getAndIncrement();
            try {
              s.execute("INSERT INTO " + DatabaseCluster.WRITES_TABLE + " (id, at) VALUES (" + id + ", NOW(6))");
            } catch (SQLException e) {
              failed.incrementAndGet();
              throw e;
            }
            acknowledged.add(id);
          }
        } catch (SQLException e) {
          reconnects.incrementAndGet();
          try {
            Thread.sleep(5);
          } catch (InterruptedException interrupted) {
            return;
          }
        }
      }
    }
  }

  /** Writable again, semi-sync off on both, the replica's IO thread running: the next test starts clean. */
  private static void restore(DatabaseServer primary, DatabaseServer replica) throws MysqlException {
    try (MysqlSession p = open(primary); MysqlSession r = open(replica)) {
      SemiSync.apply(p, new SemiSyncSettings(false, false, null, null));
      p.dialect().clearReadOnly(p);
      if (!r.dialect().replicaStatus(r).orElseThrow().ioActive()) {
        r.dialect().startIoThread(r);
      }
    }
  }

  private static void awaitWaitingForAck(DatabaseServer server) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (server
        .queryLong("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE STATE LIKE '%semi-sync ACK%'")
        == 0) {
      assertThat(System.nanoTime()).as("a commit waiting for a semi-sync acknowledgement").isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private static MysqlSession open(DatabaseServer server) throws MysqlException {
    return MysqlSession.open(MysqlConnections.unpooled(), MysqlAddress.of(server.host(), server.port()), LOGIN,
        TIMEOUTS);
  }
}
