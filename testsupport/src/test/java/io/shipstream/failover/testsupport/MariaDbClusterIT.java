package io.shipstream.failover.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class MariaDbClusterIT {
  private static MariaDbCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = MariaDbCluster.start(Path.of("target", "it-cluster"), 3);
  }

  @AfterAll
  static void closeCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void replicasAreReadOnlyAndReplicateThePrimary() {
    assertThat(cluster.primary().isReadOnly()).isFalse();
    for (MariaDbServer replica : cluster.replicas()) {
      assertThat(replica.isReadOnly()).isTrue();
      ReplicaStatus status = replica.replicaStatus();
      assertThat(status.running()).isTrue();
      assertThat(status.sourcePort()).isEqualTo(cluster.primary().port());
    }
    cluster.primary().execute("INSERT INTO appdb.writes VALUES (1, NOW(6)), (2, NOW(6))");
    cluster.awaitReplicasCaughtUp(Duration.ofSeconds(10));
    for (MariaDbServer replica : cluster.replicas()) {
      assertThat(MariaDbCluster.writtenIds(replica))
          .contains(1L, 2L)
          .isEqualTo(MariaDbCluster.writtenIds(cluster.primary()));
      // The replica's binlog holds exactly the primary's transactions: no GTID of its own.
      assertThat(replica.gtidBinlogPos()).isEqualTo(cluster.primary().gtidBinlogPos());
    }
  }

  @Test
  void aFormerPrimaryCanFollowItsOldReplica() {
    MariaDbServer oldPrimary = cluster.primary();
    MariaDbServer newPrimary = cluster.server(1);
    MariaDbServer other = cluster.server(2);
    oldPrimary.setReadOnly(true);
    newPrimary.awaitCaughtUpWith(oldPrimary, Duration.ofSeconds(10));
    newPrimary.execute("STOP SLAVE", "RESET SLAVE ALL");
    newPrimary.setReadOnly(false);
    oldPrimary.replicateFrom(newPrimary);
    other.replicateFrom(newPrimary);
    newPrimary.execute("INSERT INTO appdb.writes VALUES (10, NOW(6))");
    oldPrimary.awaitCaughtUpWith(newPrimary, Duration.ofSeconds(10));
    other.awaitCaughtUpWith(newPrimary, Duration.ofSeconds(10));
    assertThat(MariaDbCluster.writtenIds(oldPrimary)).contains(10L);
    assertThat(MariaDbCluster.writtenIds(other)).contains(10L);
    // Put things back for the other test, whichever order they run in.
    oldPrimary.execute("STOP SLAVE", "RESET SLAVE ALL");
    newPrimary.setReadOnly(true);
    oldPrimary.setReadOnly(false);
    newPrimary.replicateFrom(oldPrimary);
    other.replicateFrom(oldPrimary);
  }
}
