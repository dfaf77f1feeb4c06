package io.shipstream.failover.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster whose servers are configured to start read-only, as the playground's serve runs them:
 * every server read-only, with read_only still as its configuration set it (no statement touched
 * it, so a sidecar sees a start-up read-only), set up nonetheless (MySQL's super_read_only refuses
 * even the operator's statements), and read-only again after any restart.
 */
class ReadOnlyStartIT {
  @TempDir
  Path work;

  @FlavorTest
  void everyServerStartsReadOnlyAsConfiguredAndIsSetUp(Flavor flavor) {
    flavor.assumeAvailable();
    try (DatabaseCluster cluster = DatabaseCluster.startReadOnly(flavor, work, 2)) {
      for (DatabaseServer server : cluster.servers()) {
        assertThat(server.isReadOnly()).as(server.name()).isTrue();
        assertThat(origins(flavor, server)).as(server.name() + ": where read_only came from")
            .noneMatch(o -> o.equalsIgnoreCase("SQL") || o.equalsIgnoreCase("DYNAMIC"));
      }
      DatabaseServer replica = cluster.replicas().get(0);
      assertThat(replica.replicaStatus().running()).isTrue();
      assertThat(DatabaseCluster.writtenIds(replica)).as("appdb.writes exists on the replica").isEmpty();

      DatabaseServer primary = cluster.primary();
      if (flavor == Flavor.MYSQL) {
        primary.execute("SET GLOBAL super_read_only = 0, GLOBAL read_only = 0");
      } else {
        primary.setReadOnly(false);
      }
      primary.execute("INSERT INTO " + DatabaseCluster.WRITES_TABLE + " VALUES (1, NOW(6))");
      cluster.awaitReplicasCaughtUp(java.time.Duration.ofSeconds(10));
      assertThat(DatabaseCluster.writtenIds(replica)).containsExactly(1L);

      primary.restart();
      assertThat(primary.isReadOnly()).as("read-only again after a restart").isTrue();
      if (flavor == Flavor.MYSQL) {
        assertThat(primary.queryLong("SELECT @@global.super_read_only")).isEqualTo(1);
      }
    }
  }

  private static java.util.List<String> origins(Flavor flavor, DatabaseServer server) {
    return flavor == Flavor.MYSQL
        ? java.util.List.of(server.queryString("SELECT VARIABLE_SOURCE FROM performance_schema.variables_info"
            + " WHERE VARIABLE_NAME = 'read_only'"), server.queryString(
                "SELECT VARIABLE_SOURCE FROM"
                    + " performance_schema.variables_info WHERE VARIABLE_NAME = 'super_read_only'"))
        : java.util.List.of(server.queryString("SELECT GLOBAL_VALUE_ORIGIN FROM information_schema.SYSTEM_VARIABLES"
            + " WHERE VARIABLE_NAME = 'READ_ONLY'"));
  }
}
