package io.shipstream.failover.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;

/**
 * The unfence ({@link Fence#lift}) on real servers of both flavors, whose statements differ (MySQL
 * clears super_read_only too): after the fence an application's write is refused, after the lift
 * it is taken, with the flags read back or not.
 */
class FenceLiftIT {
  @FlavorTest
  void aLiftedFenceTakesTheApplicationsWritesAgain(Flavor flavor, @TempDir Path work) throws Exception {
    flavor.assumeAvailable();
    try (DatabaseCluster cluster = DatabaseCluster.start(flavor, work, 1);
        Connection app = cluster.primary().appConnection()) {
      DatabaseServer server = cluster.primary();
      for (boolean readBack : new boolean[] {true, false}) {
        try (MysqlSession session = open(server)) {
          Fence.apply(session, 2, Set.of());
        }
        assertThat(server.queryString("SELECT @@global.read_only")).isEqualTo("1");
        assertThatThrownBy(() -> insert(app, readBack ? 1 : 2)).isInstanceOf(SQLException.class);

        boolean writable;
        try (MysqlSession session = open(server)) {
          writable = Fence.lift(session, readBack);
        }

        assertThat(writable).as("read back: %s", readBack).isTrue();
        assertThat(server.queryString("SELECT @@global.read_only")).isEqualTo("0");
        if (flavor == Flavor.MYSQL) {
          assertThat(server.queryString("SELECT @@global.super_read_only")).isEqualTo("0");
        }
        insert(app, readBack ? 1 : 2);
      }
      assertThat(DatabaseCluster.writtenIds(server)).containsExactly(1L, 2L);
    }
  }

  private static void insert(Connection connection, long id) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.executeUpdate("INSERT INTO " + DatabaseCluster.WRITES_TABLE + " (id, at) VALUES (" + id + ", NOW(6))");
    }
  }

  private static MysqlSession open(DatabaseServer server) throws MysqlException {
    return AdminSessions.open(server, Duration.ofSeconds(10));
  }
}
