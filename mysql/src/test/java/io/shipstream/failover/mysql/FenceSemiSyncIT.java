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
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
    DatabaseCluster cluster = CLUSTERS.of(flavor);
    DatabaseServer primary = cluster.primary();
    DatabaseServer replica = cluster.replicas().get(0);
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
      try (MysqlSession p = open(primary)) {
        SemiSync.apply(p, new SemiSyncSettings(false, false, null, null));
      }
    }
  }

  private static void awaitWaitingForAck(DatabaseServer server) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (server.queryLong("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE STATE LIKE '%semi-sync ACK%'")
        == 0) {
      assertThat(System.nanoTime()).as("a commit waiting for a semi-sync acknowledgement").isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private static MysqlSession open(DatabaseServer server) throws MysqlException {
    return MysqlSession.open(MysqlConnections.unpooled(), MysqlAddress.of(server.host(), server.port()), LOGIN, TIMEOUTS);
  }
}
