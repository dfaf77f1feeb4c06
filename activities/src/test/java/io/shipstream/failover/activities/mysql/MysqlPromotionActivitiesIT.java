package io.shipstream.failover.activities.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.mysql.Credentials;
import io.shipstream.failover.mysql.MysqlConnections;
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

/**
 * The MySQL activities that move the primary, against two real servers of each flavor (MySQL 9.7
 * and MariaDB 10.11; see {@link MysqlActivitiesFixture}): promotion with what was received,
 * re-pointing, drain and catch-up, a whole switchover, and servers that do not answer.
 */
class MysqlPromotionActivitiesIT extends MysqlActivitiesFixture {
  /**
   * The steps inside the write window (#19), each counted in exchanges with its server, since
   * across a WAN link each exchange is a round trip: with the connections warmed by the
   * validation's inspection, the fence (with the executed set and the sessions to drain) is one
   * exchange, the lag gate on a caught-up target one, the promotion two (read the replica's state;
   * stop it, forget the source, clear read-only and read it back), and none opens a connection.
   */
  @FlavorTest
  void theWindowsStepsAreOneExchangeEachOnConnectionsOpenedBeforeTheFence(Flavor flavor) throws SQLException {
    start(flavor);
    insert(openAppConnection(primary), 1);
    // The validation: every site inspected, which leaves a connection to each kept.
    activities.inspect(target("iad", primary));
    activities.inspect(target("pdx", replica));

    MysqlConnections.Counts before = connections.counts();
    FenceResult fenced = activities.fence(target("iad", primary));
    MysqlConnections.Counts fence = connections.counts().minus(before);
    replica.awaitReplicated(fenced.gtidExecuted(), Duration.ofSeconds(20));

    before = connections.counts();
    String held =
        activities.waitForGtidSet(target("pdx", replica), fenced.gtidExecuted(), Instant.now().plusSeconds(10));
    MysqlConnections.Counts lag = connections.counts().minus(before);

    before = connections.counts();
    PromoteResult promoted = activities.promote(target("pdx", replica), Instant.now().plusSeconds(10), null, false);
    MysqlConnections.Counts promote = connections.counts().minus(before);
    LOG.info("MEASURE {} window steps (opened, pinged, exchanges): fence {}, lag gate {}, promote {}; server-side"
        + " window {} ms", flavor, fence, lag, promote,
        Duration.between(fenced.fencedAt(), promoted.writableAt()).toMillis());

    assertThat(GtidSet.parse(held).contains(GtidSet.parse(fenced.gtidExecuted()))).isTrue();
    assertThat(fenced.appConnections()).isEqualTo(1);
    assertThat(List.of(fence.opened(), lag.opened(), promote.opened())).as("connections opened").containsOnly(0L);
    assertThat(List.of(fence.exchanges(), lag.exchanges(), promote.exchanges())).as("exchanges")
        .containsExactly(1L, 1L, 2L);
    assertThat(promoted.writableAt()).isAfter(fenced.fencedAt());
    assertThat(activities.inspect(target("pdx", replica)).readOnly()).isFalse();
    assertThat(activities.inspect(target("pdx", replica)).replicaConfigured()).isFalse();
    assertThat(activities.inspect(target("iad", primary)).readOnly()).isTrue();
    insert(openAppConnection(replica), 2);
  }

  /**
   * The planned promotion of a target that replicates directly from the fenced source, once the
   * lag gate saw it execute the fenced set (#19): nothing unapplied can be in its relay log, so the
   * promotion is one exchange (read its state, stop and forget the source, clear read-only, read
   * it back). A retry on the promoted server, no replica any more, still succeeds, also in one
   * exchange: neither flavor refuses STOP/RESET there (MySQL 9.7 warns 3084, "already stopped";
   * MariaDB 10.11 warns 1255, "Slave already has been stopped"; RESET ... ALL passes silently).
   */
  @FlavorTest
  void aTargetCaughtUpWithItsFencedDirectSourceIsPromotedInOneExchangeAndARetryStillSucceeds(Flavor flavor)
      throws SQLException {
    start(flavor);
    insert(openAppConnection(primary), 1);
    activities.inspect(target("iad", primary));
    activities.inspect(target("pdx", replica));
    FenceResult fenced = activities.fence(target("iad", primary));
    activities.waitForGtidSet(target("pdx", replica), fenced.gtidExecuted(), Instant.now().plusSeconds(10));

    MysqlConnections.Counts before = connections.counts();
    PromoteResult promoted = activities.promote(target("pdx", replica), Instant.now().plusSeconds(10), null, true);
    MysqlConnections.Counts promote = connections.counts().minus(before);

    assertThat(promote.opened()).as("connections opened").isZero();
    assertThat(promote.exchanges()).as("exchanges").isEqualTo(1L);
    assertThat(GtidSet.parse(promoted.gtidExecuted()).contains(GtidSet.parse(fenced.gtidExecuted()))).isTrue();
    assertThat(GtidSet.parse(promoted.relayAppliedUpTo()).contains(GtidSet.parse(fenced.gtidExecuted()))).isTrue();
    assertThat(promoted.writableAt()).isAfter(fenced.fencedAt());
    ServerState state = activities.inspect(target("pdx", replica));
    assertThat(state.readOnly()).isFalse();
    assertThat(state.replicaConfigured()).isFalse();
    assertThat(GtidSet.parse(state.gtidExecuted()).contains(GtidSet.parse(fenced.gtidExecuted()))).isTrue();
    assertThat(DatabaseCluster.writtenIds(replica)).containsExactly(1L);
    insert(openAppConnection(replica), 2);

    // A retry, as after a worker lost the answer: the server is no replica any more.
    before = connections.counts();
    PromoteResult again = activities.promote(target("pdx", replica), Instant.now().plusSeconds(10), null, true);
    MysqlConnections.Counts retry = connections.counts().minus(before);
    LOG.info("MEASURE {} promotion of a caught-up direct replica (opened, pinged, exchanges): {}; a retry on the"
        + " promoted server: {}", flavor, promote, retry);

    assertThat(again.gtidExecuted()).isEqualTo(replica.gtidExecuted());
    state = activities.inspect(target("pdx", replica));
    assertThat(state.readOnly()).isFalse();
    assertThat(state.replicaConfigured()).isFalse();
    insert(openAppConnection(replica), 3);
    assertThat(DatabaseCluster.writtenIds(replica)).containsExactly(1L, 2L, 3L);
  }

  @FlavorTest
  void promoteAppliesEverythingReceivedEvenWithTheSqlThreadStopped(Flavor flavor) throws SQLException {
    start(flavor);
    FenceResult fenced = fencedWithTheReplicaNotApplying(20);
    assertThat(DatabaseCluster.writtenIds(replica)).isEmpty();

    long started = System.nanoTime();
    PromoteResult promoted = activities.promote(target("pdx", replica), Instant.now().plusSeconds(10), null, false);
    LOG.info("MEASURE promote (20 relay-log transactions applied) took {} ms",
        (System.nanoTime() - started) / 1_000_000);

    assertThat(DatabaseCluster.writtenIds(replica)).hasSize(20);
    assertThat(GtidSet.parse(promoted.gtidExecuted()).contains(GtidSet.parse(fenced.gtidExecuted()))).isTrue();
    assertThat(promoted.relayAppliedUpTo()).isEqualTo(fenced.gtidExecuted());
    ServerState state = activities.inspect(target("pdx", replica));
    assertThat(state.replicaConfigured()).isFalse();
    assertThat(state.readOnly()).isFalse();
    insert(openAppConnection(replica), 21);
    // Promoting again only reports.
    PromoteResult again = activities.promote(target("pdx", replica), Instant.now().plusSeconds(10), null, false);
    assertThat(again.gtidExecuted()).isEqualTo(replica.gtidExecuted());
  }

  @FlavorTest
  void promoteKeepsTheRelayLogOfADeadSourceWhenBothThreadsAreStopped(Flavor flavor) {
    start(flavor);
    replica.stopReplicaSqlThread();
    for (int id = 1; id <= 10; id++) {
      primary.execute("INSERT INTO appdb.writes VALUES (" + id + ", NOW(6))");
    }
    String sourceGtid = primary.gtidExecuted();
    awaitReceived(replica, sourceGtid);
    replica.stopReplicaIoThread();
    // The relay log is now the only copy: the source cannot send anything again.
    primary.kill9();

    PromoteResult promoted = activities.promote(target("pdx", replica), Instant.now().plusSeconds(10), null, false);

    assertThat(DatabaseCluster.writtenIds(replica)).hasSize(10);
    assertThat(promoted.gtidExecuted()).isEqualTo(sourceGtid);
    ServerState state = activities.inspect(target("pdx", replica));
    assertThat(state.replicaConfigured()).isFalse();
    assertThat(state.readOnly()).isFalse();
  }

  @FlavorTest
  void drainAndStopThenCatchUpFromTheReplicaThatReceivedMore(Flavor flavor) {
    start(flavor, 3);
    DatabaseServer behind = cluster.server(2);
    behind.stopReplicaIoThread();
    replica.stopReplicaSqlThread();
    for (int id = 1; id <= 10; id++) {
      primary.execute("INSERT INTO appdb.writes VALUES (" + id + ", NOW(6))");
    }
    String written = primary.gtidExecuted();
    awaitReceived(replica, written);
    primary.kill9();

    StoppedReplica ahead = activities.drainAndStopReplica(target("pdx", replica), Instant.now().plusSeconds(10));
    StoppedReplica lagging = activities.drainAndStopReplica(target("dr", behind), Instant.now().plusSeconds(10));

    assertThat(ahead.wasReplica()).isTrue();
    assertThat(ahead.logsReplicaUpdates()).isTrue();
    assertThat(GtidSet.parse(ahead.gtidExecuted()).contains(GtidSet.parse(written))).isTrue();
    assertThat(DatabaseCluster.writtenIds(replica)).hasSize(10);
    assertThat(GtidSet.parse(lagging.gtidExecuted()).contains(GtidSet.parse(written))).isFalse();
    assertThat(activities.inspect(target("pdx", replica)).replicating()).isFalse();

    String caughtUp = activities.catchUpFrom(target("dr", behind), target("pdx", replica), ahead.gtidExecuted(),
        Instant.now().plusSeconds(15));

    assertThat(GtidSet.parse(caughtUp).contains(GtidSet.parse(written))).isTrue();
    assertThat(DatabaseCluster.writtenIds(behind)).hasSize(10);
    // Detached from the donor again, ready to be promoted.
    assertThat(activities.inspect(target("dr", behind)).replicaConfigured()).isFalse();
  }

  @FlavorTest
  void aSwitchoverThroughTheActivitiesLosesNoAcknowledgedWrite(Flavor flavor) {
    start(flavor);
    AtomicReference<String> service = new AtomicReference<>(primary.jdbcUrl());
    WriteLoad load = WriteLoad.start(service::get);
    try {
      load.awaitAcknowledged(100, Duration.ofSeconds(10));
      long started = System.nanoTime();

      FenceResult fenced = activities.fence(target("iad", primary));
      activities.killAppConnections(target("iad", primary), Instant.now().plusSeconds(2));
      activities.waitForGtidSet(target("pdx", replica), fenced.gtidExecuted(), Instant.now().plusSeconds(10));
      activities.promote(target("pdx", replica), Instant.now().plusSeconds(10), null, false);
      service.set(replica.jdbcUrl());
      activities.replicateFrom(target("iad", primary), target("pdx", replica));
      LOG.info("MEASURE switchover (fence, drain, wait, promote, repoint) took {} ms",
          (System.nanoTime() - started) / 1_000_000);

      int before = load.acknowledgedCount();
      load.awaitAcknowledged(before + 100, Duration.ofSeconds(10));
    } finally {
      load.stop();
    }
    LOG.info("MEASURE write unavailability during the switchover: {} ms ({} writes acknowledged, {} failed)",
        load.writeUnavailability().toMillis(), load.acknowledgedCount(), load.errors());
    assertThat(DatabaseCluster.writtenIds(replica)).containsAll(load.acknowledged());
    primary.awaitCaughtUpWith(replica, Duration.ofSeconds(10));
    assertThat(DatabaseCluster.writtenIds(primary)).containsAll(load.acknowledged());
    assertThat(load.writeUnavailability()).isLessThan(Duration.ofSeconds(5));
  }

  @FlavorTest
  void anUnreachableServerIsReportedFastAndFailsRetryably(Flavor flavor) {
    start(flavor);
    MysqlTarget nowhere = new MysqlTarget(GROUP, "gone", "127.0.0.1", FreePorts.next(), "mysql-credentials");

    long started = System.nanoTime();
    ServerState state = activities.inspect(nowhere);
    Duration took = Duration.ofNanos(System.nanoTime() - started);

    assertThat(state.reachable()).isFalse();
    assertThat(state.error()).isNotBlank();
    assertThat(took).isLessThan(Duration.ofSeconds(3));
    assertThatThrownBy(() -> activities.fence(nowhere))
        .isInstanceOfSatisfying(ActivityFailure.class, failure -> {
          ApplicationFailure cause = (ApplicationFailure) failure.getCause();
          assertThat(cause.getType()).isEqualTo("Unreachable");
          assertThat(cause.isNonRetryable()).isFalse();
        });
  }

  @FlavorTest
  void aFrozenServerIsReportedUnreachableWithinTheConnectTimeout(Flavor flavor) {
    start(flavor);
    // Its flavor read from its greeting (the greeting's wait), then declared (the driver's handshake).
    MysqlTarget detected = target("iad", primary);
    MysqlTarget declared = new MysqlTarget(GROUP, "iad", primary.host(), primary.port(), "mysql-credentials",
        flavor == Flavor.MYSQL ? "mysql" : "mariadb");
    // The first activity call of the JVM loads the activity environment's and the drivers' classes
    // (seconds on a loaded machine): made on the replica, so the measurement is the timeouts alone.
    assertThat(activities.inspect(target("pdx", replica)).reachable()).isTrue();
    for (MysqlTarget target : List.of(detected, declared)) {
      primary.pause();
      try {
        long started = System.nanoTime();
        ServerState state = activities.inspect(target);
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        LOG.info("MEASURE {} inspect of a SIGSTOPped server (flavor {}) returned after {} ms: {}", flavor,
            target.flavor() == null ? "detected" : "declared", took.toMillis(), state.error());
        assertThat(state.reachable()).isFalse();
        assertThat(took).isLessThan(Duration.ofSeconds(3));
      } finally {
        primary.resume();
      }
    }
  }

  /**
   * {@code rows} writes on the primary that the replica receives but does not apply (its SQL
   * thread stopped), then the primary fenced; returns the fence.
   */
  private FenceResult fencedWithTheReplicaNotApplying(int rows) {
    replica.stopReplicaSqlThread();
    for (int id = 1; id <= rows; id++) {
      primary.execute("INSERT INTO appdb.writes VALUES (" + id + ", NOW(6))");
    }
    FenceResult fenced = activities.fence(target("iad", primary));
    awaitReceived(replica, fenced.gtidExecuted());
    return fenced;
  }

  /**
   * The source dies while it sends a large transaction, so the candidate's relay log ends inside it.
   * On that partial transaction MySQL's multi-threaded applier (its default) holds STOP REPLICA for
   * 60 s, longer than the activity's 30 s read timeout, so this drain failed before. It stops at
   * once now, with the partial transaction rolled back and everything received whole applied.
   */
  @org.junit.jupiter.api.Test
  void aRelayLogThatEndsInsideATransactionIsStoppedAtOnce() {
    Flavor.MYSQL.assumeAvailable();
    start(Flavor.MYSQL);
    primary.execute("CREATE TABLE appdb.big (id INT PRIMARY KEY AUTO_INCREMENT, pad VARCHAR(255))",
        "INSERT INTO appdb.big (pad) VALUES (REPEAT('x', 255))");
    for (int i = 0; i < 13; i++) {
      primary.execute("INSERT INTO appdb.big (pad) SELECT pad FROM appdb.big");
    }
    awaitReceived(replica, primary.gtidExecuted());
    // Stop the receiver while an 8192-row update streams; a try whose update arrived whole is undone.
    String received = null;
    for (int attempt = 0; attempt < 5 && received == null; attempt++) {
      primary.execute("UPDATE appdb.big SET pad = REPEAT('" + (char) ('a' + attempt) + "', 255)");
      replica.stopReplicaIoThread();
      String got =
          replica.queryString("SELECT RECEIVED_TRANSACTION_SET FROM performance_schema.replication_connection_status"
              + " WHERE CHANNEL_NAME = ''").replaceAll("\\s+", "");
      if (GtidSet.parse(got).contains(GtidSet.parse(primary.gtidExecuted()))) {
        replica.execute("START REPLICA IO_THREAD");
        awaitReceived(replica, primary.gtidExecuted());
      } else {
        received = got;
      }
    }
    assertThat(received).as("the stream cut inside the update in one of 5 tries").isNotNull();
    primary.kill9();

    long started = System.nanoTime();
    StoppedReplica stopped = activities.drainAndStopReplica(target("pdx", replica), Instant.now().plusSeconds(10));
    System.out.printf("drain and stop with the relay log ending inside a transaction: %d ms%n",
        (System.nanoTime() - started) / 1_000_000);

    assertThat(GtidSet.parse(stopped.gtidExecuted()).toString()).isEqualTo(GtidSet.parse(received).toString());
    assertThat(GtidSet.parse(stopped.gtidReceived()).toString()).isEqualTo(GtidSet.parse(received).toString());
    assertThat(activities.inspect(target("pdx", replica)).replicating()).isFalse();
  }
}
