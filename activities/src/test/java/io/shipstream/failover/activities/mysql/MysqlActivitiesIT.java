package io.shipstream.failover.activities.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.mysql.Credentials;
import io.shipstream.failover.mysql.StaticCredentialsProvider;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import io.shipstream.failover.testsupport.FreePorts;
import io.shipstream.failover.testsupport.MariaDbServer;
import io.shipstream.failover.testsupport.WriteLoad;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.shipstream.failover.workflows.activities.MysqlActivities.DrainResult;
import io.shipstream.failover.workflows.activities.MysqlActivities.FenceResult;
import io.shipstream.failover.workflows.activities.MysqlActivities.PromoteResult;
import io.shipstream.failover.workflows.activities.MysqlActivities.StoppedReplica;
import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.shipstream.failover.workflows.activities.ServerState;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestActivityEnvironment;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MySQL activities against two real servers (primary and GTID replica) of each flavor, MySQL
 * 9.7 and MariaDB 10.11, run through Temporal's activity test environment so heartbeats and
 * failures behave as in a worker. Each test runs once per flavor, named {@code MYSQL} or {@code
 * MARIADB}; MYSQL is skipped, with the reason, where its root cannot be had.
 */
class MysqlActivitiesIT extends MysqlActivitiesFixture {
  @FlavorTest
  void inspectDescribesPrimaryAndReplica(Flavor flavor) throws SQLException {
    start(flavor);
    primary.execute("INSERT INTO appdb.writes VALUES (1, NOW(6))");
    replica.awaitCaughtUpWith(primary, Duration.ofSeconds(10));
    openAppConnection(primary);
    openAppConnection(primary);

    // As after a server start: MySQL's caching_sha2_password has no login cached, so the first
    // login without TLS needs the server's RSA key (MySQL 9 has no other password plugin).
    primary.execute("FLUSH LOCAL PRIVILEGES");
    replica.execute("FLUSH LOCAL PRIVILEGES");
    ServerState primaryState = activities.inspect(target("iad", primary));
    ServerState replicaState = activities.inspect(target("pdx", replica));

    assertThat(primaryState.reachable()).isTrue();
    if (flavor == Flavor.MYSQL) {
      assertThat(primaryState.flavor()).isEqualTo("MySQL");
      assertThat(primaryState.version()).startsWith("9.7.");
    } else {
      assertThat(primaryState.flavor()).isEqualTo("MariaDB");
      assertThat(primaryState.version()).contains("MariaDB");
    }
    assertThat(primaryState.readOnly()).isFalse();
    assertThat(primaryState.replicaConfigured()).isFalse();
    assertThat(primaryState.gtidExecuted()).isEqualTo(primary.gtidExecuted());
    // Two application sessions; the replica's binlog dump and our own session are not counted.
    assertThat(primaryState.appConnections()).isEqualTo(2);

    assertThat(replicaState.readOnly()).isTrue();
    assertThat(replicaState.replicating()).isTrue();
    assertThat(replicaState.sourceHost()).isEqualTo(primary.host());
    assertThat(replicaState.sourcePort()).isEqualTo(primary.port());
    assertThat(replicaState.gtidExecuted()).isEqualTo(primary.gtidExecuted());
    assertThat(replicaState.gtidReceived()).isEqualTo(primary.gtidExecuted());
    // MySQL's multi-threaded applier updates Seconds_Behind_Source at its checkpoints (every
    // 300 ms), so a replica that has just caught up may still show a second or two before (2 seen
    // on a loaded CI machine); caught up is what gtidExecuted above already proves.
    assertThat(replicaState.secondsBehindSource()).isBetween(0L, flavor == Flavor.MYSQL ? 3L : 0L);
    assertThat(replicaState.appConnections()).isZero();
  }

  @FlavorTest
  void fenceRefusesApplicationWritesAndKeepsAdminWorking(Flavor flavor) throws SQLException {
    start(flavor);
    Connection app = openAppConnection(primary);
    insert(app, 1);

    long started = System.nanoTime();
    FenceResult fenced = activities.fence(target("iad", primary));
    LOG.info("MEASURE fence took {} ms", (System.nanoTime() - started) / 1_000_000);

    assertThat(fenced.gtidExecuted()).isEqualTo(primary.gtidExecuted());
    assertThat(fenced.appConnections()).isEqualTo(1);
    assertThatThrownBy(() -> insert(app, 2))
        .isInstanceOfSatisfying(SQLException.class,
            e -> assertThat(e.getErrorCode()).isEqualTo(ER_OPTION_PREVENTS_STATEMENT));
    // Fencing again changes nothing and returns the same final GTID set.
    // (fencedAt, the time of each fence, is the one thing that differs.)
    assertThat(activities.fence(target("iad", primary))).usingRecursiveComparison().ignoringFields("fencedAt")
        .isEqualTo(fenced);
    if (flavor == Flavor.MYSQL) {
      // MySQL's fence is super_read_only: it binds the operator's account (SUPER) as well.
      assertThatThrownBy(() -> primary.execute("INSERT INTO appdb.writes VALUES (3, NOW(6))"))
          .hasMessageContaining("--super-read-only");
    } else {
      // MariaDB's read_only does not bind the operator's account (READ_ONLY ADMIN).
      primary.execute("INSERT INTO appdb.writes VALUES (3, NOW(6))");
    }

    activities.unfence(target("iad", primary));
    insert(app, 4);
    assertThat(DatabaseCluster.writtenIds(primary))
        .isEqualTo(flavor == Flavor.MYSQL ? List.of(1L, 4L) : List.of(1L, 3L, 4L));
  }

  @FlavorTest
  void killAppConnectionsDrainsApplicationSessionsOnly(Flavor flavor) throws SQLException {
    start(flavor);
    Connection idle = openAppConnection(primary);
    Connection inTransaction = openAppConnection(primary);
    inTransaction.setAutoCommit(false);
    insert(inTransaction, 1);
    openAppConnection(primary);
    try (Connection admin = primary.adminConnection()) {
      activities.fence(target("iad", primary));

      DrainResult drained = activities.killAppConnections(target("iad", primary), Instant.now().plusSeconds(5));

      assertThat(drained.killed()).isEqualTo(3);
      assertThat(drained.remaining()).isZero();
      assertThat(idle.isValid(1)).isFalse();
      assertThat(inTransaction.isValid(1)).isFalse();
      assertThat(admin.isValid(1)).isTrue();
      assertThat(activities.inspect(target("pdx", replica)).replicating()).isTrue();
      // The uncommitted row died with its session.
      assertThat(DatabaseCluster.writtenIds(primary)).isEmpty();
    }
    // Nothing left: a second drain returns at once.
    assertThat(activities.killAppConnections(target("iad", primary), Instant.now().plusSeconds(5)))
        .isEqualTo(new DrainResult(0, 0));
  }

  @FlavorTest
  void waitForGtidSetReturnsOnceTheReplicaHasCaughtUp(Flavor flavor) {
    start(flavor);
    primary.execute("INSERT INTO appdb.writes VALUES (1, NOW(6))", "INSERT INTO appdb.writes VALUES (2, NOW(6))");
    FenceResult fenced = activities.fence(target("iad", primary));

    String reached =
        activities.waitForGtidSet(target("pdx", replica), fenced.gtidExecuted(), Instant.now().plusSeconds(10));

    assertThat(GtidSet.parse(reached).contains(GtidSet.parse(fenced.gtidExecuted()))).isTrue();
    assertThat(DatabaseCluster.writtenIds(replica)).containsExactly(1L, 2L);
  }

  @FlavorTest
  void waitForGtidSetFailsWithLagTimeoutSayingHowManyTransactionsAreMissing(Flavor flavor) {
    start(flavor);
    replica.stopReplicaSqlThread();
    primary.execute(
        "INSERT INTO appdb.writes VALUES (1, NOW(6))",
        "INSERT INTO appdb.writes VALUES (2, NOW(6))",
        "INSERT INTO appdb.writes VALUES (3, NOW(6))");
    String wanted = activities.fence(target("iad", primary)).gtidExecuted();

    long started = System.nanoTime();
    assertThatThrownBy(() -> activities.waitForGtidSet(target("pdx", replica), wanted, Instant.now().plusSeconds(2)))
        .isInstanceOfSatisfying(ActivityFailure.class, failure -> {
          ApplicationFailure cause = (ApplicationFailure) failure.getCause();
          assertThat(cause.getType()).isEqualTo("LagTimeout");
          assertThat(cause.isNonRetryable()).isTrue();
          assertThat(cause.getOriginalMessage()).contains("missing 3 transaction(s)");
        });
    Duration waited = Duration.ofNanos(System.nanoTime() - started);
    assertThat(waited).isBetween(Duration.ofMillis(1500), Duration.ofSeconds(5));
    // The activity heartbeated what the replica had executed while it waited.
    assertThat(heartbeats).isNotEmpty().allSatisfy(details -> assertThat(details).isEqualTo(replica.gtidExecuted()));
  }

  @FlavorTest
  void replicateFromRepointsTheFormerPrimaryAndNewWritesFlow(Flavor flavor) throws SQLException {
    start(flavor);
    primary.execute("INSERT INTO appdb.writes VALUES (1, NOW(6))");
    FenceResult fenced = activities.fence(target("iad", primary));
    activities.waitForGtidSet(target("pdx", replica), fenced.gtidExecuted(), Instant.now().plusSeconds(10));
    activities.promote(target("pdx", replica), Instant.now().plusSeconds(10), null, false);
    insert(openAppConnection(replica), 2);

    activities.replicateFrom(target("iad", primary), target("pdx", replica));
    insert(openAppConnection(replica), 3);
    primary.awaitCaughtUpWith(replica, Duration.ofSeconds(10));

    assertThat(DatabaseCluster.writtenIds(primary)).containsExactly(1L, 2L, 3L);
    ServerState oldPrimary = activities.inspect(target("iad", primary));
    assertThat(oldPrimary.replicating()).isTrue();
    assertThat(oldPrimary.readOnly()).isTrue();
    assertThat(oldPrimary.sourcePort()).isEqualTo(replica.port());
    // Again: nothing to do, and replication keeps running.
    activities.replicateFrom(target("iad", primary), target("pdx", replica));
    assertThat(activities.inspect(target("iad", primary)).replicating()).isTrue();
  }

  /**
   * The emergency path after the primary died: each replica applies what it received and stops,
   * and the one that received less catches up from the other, which serves it from its own
   * binary log (log_slave_updates / log_replica_updates).
   */
}
