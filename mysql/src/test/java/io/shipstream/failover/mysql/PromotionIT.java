package io.shipstream.failover.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The promotion's two forms ({@link Promotion}) and a failed source's replica's drain-and-stop
 * ({@link RelayLogDrain#drainAndStop}) on real servers of both flavors. The activities' tests
 * ({@code MysqlPromotionActivitiesIT}) run them through the activities; these run them alone.
 */
class PromotionIT {
  private static final Duration RECEIVED = Duration.ofSeconds(10);

  /**
   * A caller that said "caught up" wrongly (possible only if someone re-pointed the target during
   * the failover): the promotion in one exchange does not look before it stops replication, so what
   * was received but not applied goes with the relay log. It is not undone, and the promotion
   * stands, but an ERROR names what may have been discarded.
   */
  @FlavorTest
  void aPromotionAsCaughtUpThatFindsTheRelayLogUnappliedNamesWhatWasDiscarded(Flavor flavor, @TempDir Path work)
      throws Exception {
    try (DatabaseCluster cluster = primaryAndReplica(flavor, work)) {
      DatabaseServer replica = cluster.server(1);
      String fenced = fencedWithTheReplicaNotApplying(cluster.primary(), replica, 5);
      Logger logger = (Logger) LoggerFactory.getLogger(Promotion.class);
      ListAppender<ILoggingEvent> logged = new ListAppender<>();
      logged.start();
      logger.addAppender(logged);
      Promotion.Promoted promoted;
      try (MysqlSession session = open(replica)) {
        promoted = new Promotion(session, Clock.systemUTC(), beat -> {}).run(Instant.now().plusSeconds(10), null,
            true);
      } finally {
        logger.detachAppender(logged);
      }

      assertThat(replica.queryString("SELECT @@global.read_only")).isEqualTo("0");
      assertThat(GtidSet.parse(promoted.gtidExecuted()).contains(GtidSet.parse(fenced))).isFalse();
      assertThat(logged.list).filteredOn(e -> e.getLevel() == Level.ERROR)
          .singleElement().satisfies(e -> assertThat(e.getFormattedMessage())
              .contains("had received transactions it had not applied").contains("discarded"));
    }
  }

  /**
   * Step by step, the relay log is applied before replication ends, with the SQL thread stopped;
   * a retry of either form on the promoted server only reports what it has.
   */
  @FlavorTest
  void stepByStepAppliesTheRelayLogFirstAndARetryOnlyReports(Flavor flavor, @TempDir Path work) throws Exception {
    try (DatabaseCluster cluster = primaryAndReplica(flavor, work)) {
      DatabaseServer replica = cluster.server(1);
      String fenced = fencedWithTheReplicaNotApplying(cluster.primary(), replica, 20);
      assertThat(DatabaseCluster.writtenIds(replica)).isEmpty();

      try (MysqlSession session = open(replica)) {
        Promotion promotion = new Promotion(session, Clock.systemUTC(), beat -> {});
        Instant started = Instant.now();
        Promotion.Promoted promoted = promotion.run(Instant.now().plusSeconds(10), null, false);
        Instant ended = Instant.now();

        assertThat(DatabaseCluster.writtenIds(replica)).hasSize(20);
        assertThat(GtidSet.parse(promoted.gtidExecuted()).contains(GtidSet.parse(fenced))).isTrue();
        assertThat(promoted.relayAppliedUpTo()).isEqualTo(fenced);
        assertThat(session.dialect().replicaStatus(session)).isEmpty();
        assertThat(replica.queryString("SELECT @@global.read_only")).isEqualTo("0");
        assertThat(promoted.writableAt()).isBetween(started, ended);

        replica.execute("INSERT INTO " + DatabaseCluster.WRITES_TABLE + " (id, at) VALUES (21, NOW(6))");
        assertThat(promotion.run(Instant.now().plusSeconds(10), null, false).gtidExecuted())
            .isEqualTo(replica.gtidExecuted());
        Promotion.Promoted again = promotion.run(Instant.now().plusSeconds(10), null, true);
        assertThat(again.gtidExecuted()).isEqualTo(replica.gtidExecuted());
        assertThat(again.relayAppliedUpTo()).isEqualTo(replica.gtidExecuted());
      }
    }
  }

  /**
   * A replica of a dead source applies everything its relay log holds and stops replicating, and
   * says so; a server that is no replica is left as it is and says it was none.
   */
  @FlavorTest
  void drainAndStopAppliesWhatADeadSourceSentAndLeavesANonReplicaAlone(Flavor flavor, @TempDir Path work)
      throws Exception {
    try (DatabaseCluster cluster = primaryAndReplica(flavor, work)) {
      DatabaseServer primary = cluster.primary();
      DatabaseServer replica = cluster.server(1);
      try (MysqlSession session = open(primary)) {
        RelayLogDrain.Stopped none = new RelayLogDrain(session, Clock.systemUTC(), beat -> {})
            .drainAndStop(Instant.now().plusSeconds(10));
        assertThat(none.wasReplica()).isFalse();
        assertThat(none.gtidReceived()).isNull();
        assertThat(GtidSet.parse(none.gtidExecuted()).contains(GtidSet.parse(primary.gtidExecuted()))).isTrue();
      }
      replica.stopReplicaSqlThread();
      for (int id = 1; id <= 10; id++) {
        primary.execute("INSERT INTO " + DatabaseCluster.WRITES_TABLE + " (id, at) VALUES (" + id + ", NOW(6))");
      }
      String written = primary.gtidExecuted();
      replica.awaitReceived(written, RECEIVED);
      primary.kill9();

      try (MysqlSession session = open(replica)) {
        RelayLogDrain.Stopped stopped = new RelayLogDrain(session, Clock.systemUTC(), beat -> {})
            .drainAndStop(Instant.now().plusSeconds(10));

        assertThat(stopped.wasReplica()).isTrue();
        assertThat(stopped.logsReplicaUpdates()).isTrue();
        assertThat(GtidSet.parse(stopped.gtidExecuted()).contains(GtidSet.parse(written))).isTrue();
        assertThat(GtidSet.parse(stopped.gtidReceived()).contains(GtidSet.parse(written))).isTrue();
        ReplicaStatus status = session.dialect().replicaStatus(session).orElseThrow();
        assertThat(status.ioRunning()).isFalse();
        assertThat(status.sqlRunning()).isFalse();
      }
      assertThat(DatabaseCluster.writtenIds(replica)).hasSize(10);
    }
  }

  /** The flavor's primary and its replica; the test is skipped where the flavor is not installed. */
  private static DatabaseCluster primaryAndReplica(Flavor flavor, Path work) {
    flavor.assumeAvailable();
    return DatabaseCluster.start(flavor, work, 2);
  }

  /** {@code rows} written on the primary, then fenced; the replica received them without applying any. */
  private static String fencedWithTheReplicaNotApplying(DatabaseServer primary, DatabaseServer replica, int rows)
      throws MysqlException {
    replica.stopReplicaSqlThread();
    for (int id = 1; id <= rows; id++) {
      primary.execute("INSERT INTO " + DatabaseCluster.WRITES_TABLE + " (id, at) VALUES (" + id + ", NOW(6))");
    }
    String fenced;
    try (MysqlSession session = open(primary)) {
      fenced = Fence.applyAndRead(session, 5, Set.of()).gtidExecuted();
    }
    replica.awaitReceived(fenced, RECEIVED);
    return fenced;
  }

  private static MysqlSession open(DatabaseServer server) throws MysqlException {
    return AdminSessions.open(server, Duration.ofSeconds(30));
  }
}
