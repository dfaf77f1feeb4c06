package io.shipstream.failover.activities.mysql;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.model.GroupRef;
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
import org.slf4j.LoggerFactory;

/**
 * What the MySQL activity tests share: each test's servers of one flavor (primary and GTID
 * replica), the activities on them through Temporal's activity test environment, and helpers. The
 * tests are in two classes, {@link MysqlActivitiesIT} and {@link MysqlPromotionActivitiesIT}, so
 * that the build runs them side by side.
 */
abstract class MysqlActivitiesFixture {
  static final Logger LOG = LoggerFactory.getLogger(MysqlActivitiesFixture.class);
  static final GroupRef GROUP = new GroupRef("shop", "orders");
  static final int ER_OPTION_PREVENTS_STATEMENT = 1290;

  Flavor flavor;
  DatabaseCluster cluster;
  DatabaseServer primary;
  DatabaseServer replica;
  TestActivityEnvironment environment;
  /** The activities' connections, as the worker keeps them: their counts say what went over the network. */
  final MysqlConnections connections = new MysqlConnections();
  MysqlActivities activities;
  final List<String> heartbeats = new CopyOnWriteArrayList<>();
  final List<Connection> appConnections = new ArrayList<>();

  /** The first step of every test: the flavor's two servers and the activities on them. */
  void start(Flavor flavor) {
    start(flavor, 2);
  }

  void start(Flavor flavor, int servers) {
    this.flavor = flavor;
    flavor.assumeAvailable();
    cluster = DatabaseCluster.start(flavor, Path.of("target", "it-mysql-activities"), servers);
    primary = cluster.primary();
    replica = cluster.server(1);
    Credentials login = new Credentials(
        MariaDbServer.ADMIN.user(), MariaDbServer.ADMIN.password(),
        MariaDbServer.REPLICATION.user(), MariaDbServer.REPLICATION.password());
    environment = TestActivityEnvironment.newInstance();
    environment.registerActivitiesImplementations(
        new MysqlActivitiesImpl(new StaticCredentialsProvider(login), Clock.systemUTC(), connections,
            Heartbeat.temporal()));
    environment.setActivityHeartbeatListener(String.class, heartbeats::add);
    activities = environment.newActivityStub(
        MysqlActivities.class,
        ActivityOptions.newBuilder()
            .setStartToCloseTimeout(Duration.ofMinutes(1))
            .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
            .build());
  }

  @AfterEach
  void closeCluster() {
    for (Connection connection : appConnections) {
      try {
        connection.close();
      } catch (SQLException e) {
        // Killed by the test already.
      }
    }
    connections.closeIdle();
    if (environment != null) {
      environment.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  MysqlTarget target(String site, DatabaseServer server) {
    return new MysqlTarget(GROUP, site, server.host(), server.port(), "mysql-credentials");
  }

  Connection openAppConnection(DatabaseServer server) throws SQLException {
    Connection connection = server.appConnection();
    appConnections.add(connection);
    return connection;
  }

  static void insert(Connection connection, long id) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.executeUpdate("INSERT INTO appdb.writes VALUES (" + id + ", NOW(6))");
    }
  }

  /** Waits until the replica's IO thread has written {@code gtid} to its relay log. */
  static void awaitReceived(DatabaseServer server, String gtid) {
    server.awaitReceived(gtid, Duration.ofSeconds(10));
  }
}
