package io.shipstream.failover.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import io.shipstream.failover.testsupport.MariaDbServer;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;

/**
 * The emergency relay drain of a delayed replica (MASTER_DELAY / SOURCE_DELAY) whose source was
 * killed, on real servers of both flavors, in the order {@code drainAndStopReplica} takes: the
 * delay lifted while the IO thread still retries, the IO thread stopped, the relay log drained.
 * Every transaction the replica had received is applied within a drain deadline far shorter than
 * the delay; waiting out the delay (as the drain did before) left them all out.
 */
class DelayedRelayDrainIT {
  private static final Credentials LOGIN = new Credentials(MariaDbServer.ADMIN.user(), MariaDbServer.ADMIN.password(),
      MariaDbServer.REPLICATION.user(), MariaDbServer.REPLICATION.password());
  private static final Timeouts TIMEOUTS = new Timeouts(Duration.ofSeconds(2), Duration.ofSeconds(10));

  @FlavorTest
  void aDelayedReplicaOfADeadSourceAppliesEverythingItReceivedAtOnce(Flavor flavor, @TempDir Path work)
      throws Exception {
    flavor.assumeAvailable();
    try (DatabaseCluster cluster = DatabaseCluster.start(flavor, work, 2)) {
      DatabaseServer source = cluster.primary();
      DatabaseServer replica = cluster.replicas().get(0);
      replica.delayReplication(300);
      List<Long> written = new ArrayList<>();
      for (long id = 1; id <= 50; id++) {
        source.execute("INSERT INTO " + DatabaseCluster.WRITES_TABLE + " (id, at) VALUES (" + id + ", NOW(6))");
        written.add(id);
      }
      String sent = source.gtidExecuted();
      long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!io.shipstream.failover.model.gtid.GtidSet.parse(sent).subtract(
          io.shipstream.failover.model.gtid
          .GtidUnion.of(replica.gtidExecuted(), replica.replicaStatus().gtidIoPos()))
          .isEmpty()) {
        assertThat(System.nanoTime()).as("the replica receives " + sent).isLessThan(until);
        Thread.sleep(20);
      }
      assertThat(DatabaseCluster.writtenIds(replica)).as("nothing applied yet: 300 s late").isEmpty();
      source.kill9();

      long started = System.nanoTime();
      String executed;
      try (MysqlSession session = MysqlSession.open(MysqlConnections.unpooled(), MysqlAddress.of(replica.host(),
          replica.port()), LOGIN, TIMEOUTS)) {
        SqlDialect dialect = session.dialect();
        ReplicaStatus status = dialect.replicaStatus(session).orElseThrow();
        assertThat(status.sqlDelay()).isEqualTo(300L);
        dialect.liftDelayWhileReceiving(session, status);
        dialect.stopIoThread(session);
        status = dialect.replicaStatus(session).orElseThrow();
        executed = new RelayLogDrain(session, Clock.systemUTC(), beat -> {}).drain(status,
            Clock.systemUTC().instant().plusSeconds(10));
      }
      long millis = Duration.ofNanos(System.nanoTime() - started).toMillis();
      System.out.printf("%s: a replica 300 s late applied its %d received transactions in %d ms after its source "
          + "died%n", flavor, written.size(), millis);
      assertThat(DatabaseCluster.writtenIds(replica)).as("executed " + executed).containsExactlyElementsOf(written);
    }
  }
}
