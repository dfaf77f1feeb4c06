package io.shipstream.failover.activities.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.mysql.Credentials;
import io.shipstream.failover.mysql.MysqlConnections;
import io.shipstream.failover.mysql.StaticCredentialsProvider;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.shipstream.failover.workflows.activities.MysqlActivities.FenceResult;
import io.shipstream.failover.workflows.activities.MysqlActivities.PromoteResult;
import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.shipstream.failover.workflows.activities.ServerState;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestActivityEnvironment;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.testcontainers.containers.Network;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.lifecycle.Startables;
import org.testcontainers.mysql.MySQLContainer;

/**
 * The MySQL 8 statements (super_read_only, gtid_executed, WAIT_FOR_EXECUTED_GTID_SET, the REPLICA
 * statements) against a real source and replica of MySQL 8.4 in containers. Skipped where there is
 * no Docker; MysqlActivitiesIT runs the whole activity body on MySQL 9.7 without Docker, and this
 * class stays for the 8.4 line where Docker exists. The tests run in order: they are the steps of
 * one failover.
 */
@Testcontainers(disabledWithoutDocker = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MySql8ActivitiesIT {
  private static final String IMAGE = "mysql:8.4";
  private static final String PASSWORD = "failover-secret";
  private static final GroupRef GROUP = new GroupRef("shop", "orders");
  private static final int ER_OPTION_PREVENTS_STATEMENT = 1290;

  private static Network network;
  private static MySQLContainer source;
  private static MySQLContainer replica;
  private static TestActivityEnvironment environment;
  private static MysqlActivities activities;

  @BeforeAll
  static void startSourceAndReplica() throws SQLException {
    network = Network.newNetwork();
    source = server("source", 1);
    replica = server("replica", 2);
    Startables.deepStart(source, replica).join();
    // The image's own setup runs with sql_log_bin=0, so both start with an empty gtid_executed.
    execute(source,
        "CREATE USER 'repl'@'%' IDENTIFIED BY 'repl-secret'",
        "GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%'",
        "CREATE USER 'app'@'%' IDENTIFIED BY 'app-secret'",
        "GRANT SELECT, INSERT, UPDATE, DELETE ON appdb.* TO 'app'@'%'",
        "CREATE TABLE appdb.writes (id BIGINT PRIMARY KEY, at TIMESTAMP(6) NOT NULL)");
    execute(replica,
        "SET GLOBAL super_read_only = 1",
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'source', SOURCE_PORT = 3306, SOURCE_USER = 'repl',"
            + " SOURCE_PASSWORD = 'repl-secret', SOURCE_AUTO_POSITION = 1, GET_SOURCE_PUBLIC_KEY = 1",
        "START REPLICA");
    awaitApplied(replica, gtidExecuted(source));

    environment = TestActivityEnvironment.newInstance();
    // caching_sha2_password needs TLS or the server's RSA key; the image has TLS with its own CA.
    MysqlConnections connections = new MysqlConnections(Map.of("sslMode", "trust", "allowPublicKeyRetrieval", "true"));
    environment.registerActivitiesImplementations(new MysqlActivitiesImpl(
        new StaticCredentialsProvider(new Credentials("root", PASSWORD, "repl", "repl-secret")),
        Clock.systemUTC(), connections, Heartbeat.temporal()));
    activities = environment.newActivityStub(MysqlActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofMinutes(1))
        .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
        .build());
  }

  private static MySQLContainer server(String alias, int serverId) {
    return new MySQLContainer(IMAGE)
        .withUsername("root")
        .withPassword(PASSWORD)
        .withDatabaseName("appdb")
        .withNetwork(network)
        .withNetworkAliases(alias)
        .withCommand("--server-id=" + serverId, "--gtid-mode=ON", "--enforce-gtid-consistency=ON");
  }

  @AfterAll
  static void stop() {
    if (environment != null) {
      environment.close();
    }
    for (MySQLContainer container : new MySQLContainer[] {replica, source}) {
      if (container != null) {
        container.stop();
      }
    }
    if (network != null) {
      network.close();
    }
  }

  @Test
  @Order(1)
  void inspectSeesAMySqlSourceAndItsReplica() {
    ServerState sourceState = activities.inspect(target("iad", source));
    ServerState replicaState = activities.inspect(target("pdx", replica));

    assertThat(sourceState.flavor()).isEqualTo("MySQL");
    assertThat(sourceState.readOnly()).isFalse();
    assertThat(sourceState.replicaConfigured()).isFalse();
    assertThat(replicaState.readOnly()).isTrue();
    assertThat(replicaState.replicating()).isTrue();
  }

  @Test
  @Order(2)
  void fenceThenWaitThenPromoteAppliesEveryTransaction() throws SQLException {
    insertAsApp(source, 1);
    awaitApplied(replica, gtidExecuted(source));
    execute(replica, "STOP REPLICA SQL_THREAD");
    insertAsApp(source, 2);
    insertAsApp(source, 3);

    FenceResult fenced = activities.fence(target("iad", source));
    awaitReceived(replica, fenced.gtidExecuted());
    assertThatThrownBy(() -> insertAsApp(source, 4))
        .isInstanceOfSatisfying(SQLException.class,
            e -> assertThat(e.getErrorCode()).isEqualTo(ER_OPTION_PREVENTS_STATEMENT));

    // With the SQL thread stopped the replica cannot catch up: LagTimeout, naming what is missing.
    assertThatThrownBy(
        () -> activities.waitForGtidSet(target("pdx", replica), fenced.gtidExecuted(), Instant.now().plusSeconds(2)))
        .isInstanceOfSatisfying(ActivityFailure.class, failure -> {
          ApplicationFailure cause = (ApplicationFailure) failure.getCause();
          assertThat(cause.getType()).isEqualTo("LagTimeout");
          assertThat(cause.getOriginalMessage()).contains("missing 2 transaction(s)");
        });

    PromoteResult promoted = activities.promote(target("pdx", replica), Instant.now().plusSeconds(30), null, false);

    assertThat(GtidSet.parse(promoted.gtidExecuted()).contains(GtidSet.parse(fenced.gtidExecuted()))).isTrue();
    assertThat(count(replica)).isEqualTo(3);
    ServerState promotedState = activities.inspect(target("pdx", replica));
    assertThat(promotedState.replicaConfigured()).isFalse();
    assertThat(promotedState.readOnly()).isFalse();
    insertAsApp(replica, 5);
  }

  private static MysqlTarget target(String site, MySQLContainer container) {
    return new MysqlTarget(GROUP, site, container.getHost(), container.getMappedPort(3306), "mysql-credentials");
  }

  private static Connection connect(MySQLContainer container, String user, String password) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", user);
    properties.setProperty("password", password);
    properties.setProperty("sslMode", "trust");
    properties.setProperty("allowPublicKeyRetrieval", "true");
    return DriverManager.getConnection(
        "jdbc:mariadb://" + container.getHost() + ":" + container.getMappedPort(3306) + "/", properties);
  }

  private static void execute(MySQLContainer container, String... sql) throws SQLException {
    try (Connection connection = connect(container, "root", PASSWORD);
        Statement statement = connection.createStatement()) {
      for (String each : sql) {
        statement.execute(each);
      }
    }
  }

  private static void insertAsApp(MySQLContainer container, long id) throws SQLException {
    try (Connection connection = connect(container, "app", "app-secret");
        Statement statement = connection.createStatement()) {
      statement.executeUpdate("INSERT INTO appdb.writes VALUES (" + id + ", NOW(6))");
    }
  }

  private static String gtidExecuted(MySQLContainer container) throws SQLException {
    try (Connection connection = connect(container, "root", PASSWORD);
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT @@global.gtid_executed")) {
      rows.next();
      return rows.getString(1).replaceAll("\\s+", "");
    }
  }

  private static void awaitApplied(MySQLContainer container, String gtidSet) throws SQLException {
    try (Connection connection = connect(container, "root", PASSWORD);
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT WAIT_FOR_EXECUTED_GTID_SET('" + gtidSet + "', 30)")) {
      rows.next();
      assertThat(rows.getInt(1)).as("%s applies %s", container.getNetworkAliases(), gtidSet).isZero();
    }
  }

  /** Waits until the replica's IO thread has written {@code gtidSet} to its relay log. */
  private static void awaitReceived(MySQLContainer container, String gtidSet) throws SQLException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    try (Connection connection = connect(container, "root", PASSWORD);
        Statement statement = connection.createStatement()) {
      while (true) {
        String received;
        try (ResultSet rows = statement.executeQuery("SHOW REPLICA STATUS")) {
          rows.next();
          received = rows.getString("Retrieved_Gtid_Set").replaceAll("\\s+", "");
        }
        if (GtidSet.parse(received).contains(GtidSet.parse(gtidSet))) {
          return;
        }
        assertThat(System.nanoTime()).as("relay log reaches %s", gtidSet).isLessThan(deadline);
        try {
          Thread.sleep(50);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
    }
  }

  private static long count(MySQLContainer container) throws SQLException {
    try (Connection connection = connect(container, "root", PASSWORD);
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM appdb.writes")) {
      rows.next();
      return rows.getLong(1);
    }
  }
}
