package io.shipstream.failover.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.topology.SemiSyncSettings;
import io.shipstream.failover.model.topology.SemiSyncState;
import io.shipstream.failover.testsupport.ClusterPerFlavor;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import io.shipstream.failover.testsupport.MariaDbServer;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;

/**
 * Semi-sync read and applied on real servers of both flavors: the primary's source side (after
 * sync, timeout, wait count on MySQL), the replica's replica side with its IO thread restarted so
 * it acknowledges at once, a second apply that writes nothing, and the replica side off again.
 * On MySQL the plugins are installed by the first apply, also on a super_read_only replica, which
 * stays read-only.
 */
class SemiSyncIT {
  private static final Credentials LOGIN = new Credentials(MariaDbServer.ADMIN.user(), MariaDbServer.ADMIN.password(),
      MariaDbServer.REPLICATION.user(), MariaDbServer.REPLICATION.password());
  private static final Timeouts TIMEOUTS = new Timeouts(Duration.ofSeconds(2), Duration.ofSeconds(10));
  private static final ClusterPerFlavor CLUSTERS = new ClusterPerFlavor(Path.of("target", "it-semisync"), 2);

  @AfterAll
  static void stop() {
    CLUSTERS.close();
  }

  private static MysqlSession open(DatabaseServer server) throws MysqlException {
    return MysqlSession.open(MysqlConnections.unpooled(), MysqlAddress.of(server.host(), server.port()), LOGIN,
        TIMEOUTS);
  }

  @FlavorTest
  void thePrimaryWaitsForTheReplicasAcknowledgementOnceBothSidesAreOn(Flavor flavor) throws Exception {
    flavor.assumeAvailable();
    DatabaseCluster cluster = CLUSTERS.of(flavor);
    DatabaseServer primary = cluster.primary();
    DatabaseServer replica = cluster.replicas().get(0);
    boolean mysql = flavor == Flavor.MYSQL;
    if (mysql) {
      replica.execute("SET GLOBAL super_read_only = 1");
    }
    SemiSyncSettings source = new SemiSyncSettings(true, true, mysql ? 1 : null, 3000L);
    SemiSyncSettings acker = new SemiSyncSettings(false, true, null, null);

    try (MysqlSession p = open(primary); MysqlSession r = open(replica)) {
      SemiSync.Outcome sourceSet = SemiSync.apply(p, source);
      // The source first: a replica connects as semi-synchronous only to a source that has the source side.
      SemiSync.Outcome ackerSet = SemiSync.apply(r, acker);
      assertThat(ackerSet.changes()).contains("IO thread restarted");
      assertThat(ackerSet.after().replicaEnabled()).isTrue();
      assertThat(sourceSet.after().sourceEnabled()).isTrue();
      assertThat(sourceSet.after().waitPoint()).isEqualTo(SemiSyncState.AFTER_SYNC);
      assertThat(sourceSet.after().timeoutMillis()).isEqualTo(3000L);
      if (mysql) {
        assertThat(sourceSet.after().waitCount()).isEqualTo(1);
        assertThat(primary.queryString("SELECT VARIABLE_VALUE FROM performance_schema.persisted_variables"
            + " WHERE VARIABLE_NAME = 'rpl_semi_sync_source_enabled'")).as("SET PERSIST").isEqualTo("ON");
      }

      primary.execute("INSERT INTO " + DatabaseCluster.WRITES_TABLE + " (id, at) VALUES (1, NOW(6))");
      SemiSyncState now = awaitClients(p);
      assertThat(now.sourceActive()).as("semi-sync active on the primary").isTrue();
      assertThat(now.clients()).isEqualTo(1);
      assertThat(SemiSync.read(r).replicaActive()).as("the replica acknowledges").isTrue();

      assertThat(SemiSync.apply(p, source).changes()).as("nothing to write the second time").isEmpty();
      assertThat(SemiSync.apply(r, acker).changes()).isEmpty();

      SemiSync.Outcome off = SemiSync.apply(r, new SemiSyncSettings(false, false, null, null));
      assertThat(off.changes()).contains("IO thread restarted");
      assertThat(off.after().replicaEnabled()).isFalse();
      // With no acknowledging replica the next commit waits the timeout, then the primary falls back.
      primary.execute("INSERT INTO " + DatabaseCluster.WRITES_TABLE + " (id, at) VALUES (2, NOW(6))");
      SemiSyncState fallen = SemiSync.read(p);
      assertThat(fallen.fallenBack()).as("fallen back to asynchronous").isTrue();
      // Back on: the replica catches up and the primary returns to semi-sync.
      SemiSync.apply(r, acker);
      primary.execute("INSERT INTO " + DatabaseCluster.WRITES_TABLE + " (id, at) VALUES (3, NOW(6))");
      assertThat(awaitClients(p).fallenBack()).isFalse();
      assertThat(replica.isReadOnly()).as("the replica stays read-only").isTrue();
    }
  }

  private static SemiSyncState awaitClients(MysqlSession session) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    SemiSyncState s = SemiSync.read(session);
    while ((s.clients() == null || s.clients() < 1 || !s.sourceActive()) && System.nanoTime() < deadline) {
      Thread.sleep(100);
      s = SemiSync.read(session);
    }
    return s;
  }
}
