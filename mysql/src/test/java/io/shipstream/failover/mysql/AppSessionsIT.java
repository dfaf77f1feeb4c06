package io.shipstream.failover.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.io.TempDir;

/**
 * The drain of a fenced primary's application sessions ({@link AppSessions#drainWhileFenced}) on
 * real servers of both flavors: every application session is killed, the admin's own is not, and a
 * writable server (a rolled-back failover) is left alone.
 */
class AppSessionsIT {
  @FlavorTest
  void aFencedPrimarysApplicationSessionsAreKilledAndAWritableOnesLeftAlone(Flavor flavor, @TempDir Path work)
      throws Exception {
    flavor.assumeAvailable();
    List<Object> beats = new CopyOnWriteArrayList<>();
    try (DatabaseCluster cluster = DatabaseCluster.start(flavor, work, 1);
        MysqlSession session = AdminSessions.open(cluster.primary(), Duration.ofSeconds(10))) {
      DatabaseServer server = cluster.primary();
      Connection idle = server.appConnection();
      Connection inTransaction = server.appConnection();
      inTransaction.setAutoCommit(false);
      inTransaction.createStatement().executeUpdate("INSERT INTO " + DatabaseCluster.WRITES_TABLE
          + " (id, at) VALUES (1, NOW(6))");

      AppSessions.Drained writable = AppSessions.drainWhileFenced(session, Instant.now().plusSeconds(5),
          Clock.systemUTC(), Duration.ofMillis(75), beats::add);
      assertThat(writable).isEqualTo(new AppSessions.Drained(0, 2));
      assertThat(beats).isEmpty();

      Fence.apply(session, 2, Set.of());
      AppSessions.Drained fenced = AppSessions.drainWhileFenced(session, Instant.now().plusSeconds(5),
          Clock.systemUTC(), Duration.ofMillis(75), beats::add);

      assertThat(fenced).isEqualTo(new AppSessions.Drained(2, 0));
      assertThat(beats).containsExactly(2);
      assertThat(idle.isValid(1)).isFalse();
      assertThat(inTransaction.isValid(1)).isFalse();
      assertThat(DatabaseCluster.writtenIds(server)).as("the uncommitted row died with its session").isEmpty();
    }
  }
}
