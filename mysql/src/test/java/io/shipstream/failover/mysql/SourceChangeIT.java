package io.shipstream.failover.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.gtid.MariaDbGtidSet;
import io.shipstream.failover.testsupport.MariaDbCluster;
import io.shipstream.failover.testsupport.MariaDbServer;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The change of source the activities and the watcher's rejoin share, against real mariadbd: a
 * former primary with transactions of its own in two domains is pointed at the server promoted in
 * its place, positioned after its newest GTID of every domain, so it asks for exactly what it lacks.
 */
class SourceChangeIT {
  private static MariaDbCluster cluster;

  @BeforeAll
  static void start() {
    cluster = MariaDbCluster.start(Path.of("target", "it-source-change"), 2);
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aFormerPrimaryRejoinsAfterItsNewestGtidOfEveryDomain() throws Exception {
    MariaDbServer iad = cluster.primary();
    MariaDbServer pdx = cluster.replicas().get(0);
    iad.execute("INSERT INTO " + MariaDbCluster.WRITES_TABLE + " (id, at) VALUES (1, NOW(6))");
    iad.execute("SET SESSION gtid_domain_id = 1",
        "INSERT INTO " + MariaDbCluster.WRITES_TABLE + " (id, at) VALUES (2, NOW(6))");
    pdx.awaitCaughtUpWith(iad, Duration.ofSeconds(15));
    pdx.execute("STOP SLAVE", "RESET SLAVE ALL", "SET GLOBAL read_only = 0");
    pdx.execute("INSERT INTO " + MariaDbCluster.WRITES_TABLE + " (id, at) VALUES (3, NOW(6))");
    String iadOwn = MariaDbGtidSet.parse(iad.gtidBinlogPos()).perDomainMax().toString();

    iad.setReadOnly(true);
    try (MysqlSession session = ItSessions.open(iad)) {
      ItSessions.replicateFrom(session, pdx);
    }
    iad.awaitCaughtUpWith(pdx, Duration.ofSeconds(15));

    assertThat(MariaDbGtidSet.parse(iad.queryString("SELECT @@global.gtid_slave_pos")).contains(
        MariaDbGtidSet.parse(iadOwn))).as("positioned after its own newest GTID of each domain").isTrue();
    assertThat(MariaDbCluster.writtenIds(iad)).containsExactly(1L, 2L, 3L);
    assertThat(iad.replicaStatus().running()).isTrue();
  }
}
