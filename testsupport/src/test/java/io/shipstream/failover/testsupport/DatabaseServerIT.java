package io.shipstream.failover.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;

/** The operator's steps a test does by hand, each in its flavor's own statements. */
class DatabaseServerIT {
  @TempDir
  Path work;

  /**
   * On one pair of servers (a cluster start is the expensive part): a delayed replica applies a
   * write only after the delay, and lifting the delay catches it up at once. Then the replica writes
   * a transaction of its own (an errant one, as a killed primary's last writes are), has it dropped
   * from its GTID history, replicates again from its source's position, and holds exactly the
   * source's GTIDs; the row it wrote stays.
   */
  @FlavorTest
  void aReplicaIsDelayedThenHasAnErrantTransactionDroppedFromItsGtidHistory(Flavor flavor) {
    flavor.assumeAvailable();
    try (DatabaseCluster cluster = DatabaseCluster.start(flavor, work, 2)) {
      DatabaseServer primary = cluster.primary();
      DatabaseServer replica = cluster.server(1);
      replica.delayReplication(30);
      primary.execute("INSERT INTO appdb.writes VALUES (1, NOW(6))");
      MariaDbServer.sleep(Duration.ofSeconds(1));
      assertThat(DatabaseCluster.writtenIds(replica)).isEmpty();
      long started = System.nanoTime();
      replica.delayReplication(0);
      replica.awaitCaughtUpWith(primary, Duration.ofSeconds(10));
      assertThat(DatabaseCluster.writtenIds(replica)).containsExactly(1L);
      assertThat(replica.replicaStatus().running()).isTrue();
      System.out.printf("%s: caught up %d ms after the delay was lifted%n", flavor,
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));

      replica.resetReplication();
      // As the operator's account, which read_only does not bind: binlogged with the replica's own id.
      replica.execute("CREATE TABLE appdb.errant (id INT PRIMARY KEY)", "INSERT INTO appdb.errant VALUES (1)");
      assertThat(replica.gtidExecuted()).isNotEqualTo(primary.gtidExecuted());

      replica.resetGtidHistoryTo(primary.gtidExecuted());
      replica.replicateFrom(primary);
      primary.execute("INSERT INTO appdb.writes VALUES (2, NOW(6))");
      replica.awaitCaughtUpWith(primary, Duration.ofSeconds(10));

      assertThat(replica.gtidExecuted()).isEqualTo(primary.gtidExecuted());
      assertThat(DatabaseCluster.writtenIds(replica)).containsExactly(1L, 2L);
      assertThat(replica.queryLong("SELECT COUNT(*) FROM appdb.errant")).isEqualTo(1);
    }
  }
}
