package io.shipstream.failover.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import io.shipstream.failover.testsupport.FreePorts;
import io.shipstream.failover.testsupport.MariaDbServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;

/**
 * Connections against real servers of both flavors: each flavor served by its own driver (MySQL
 * Connector/J, MariaDB Connector/J), the flavor read from the server's greeting once per endpoint
 * or taken from a declaration, a wrong declaration refused with a clear error; and one keeping
 * policy for both: a connection handed to the next session for the same server and login, never
 * when the session failed or set session state, and replaced when the server ended it while it
 * sat idle. Also the driver-level behaviour the module relies on, on each driver.
 */
class MysqlConnectionsIT {
  private static final Credentials LOGIN = new Credentials(MariaDbServer.ADMIN.user(), MariaDbServer.ADMIN.password(),
      MariaDbServer.REPLICATION.user(), MariaDbServer.REPLICATION.password());
  private static final Timeouts TIMEOUTS = new Timeouts(Duration.ofSeconds(2), Duration.ofSeconds(5));
  private static final Map<Flavor, DatabaseServer> SERVERS = new EnumMap<>(Flavor.class);

  private static synchronized DatabaseServer server(Flavor flavor) {
    flavor.assumeAvailable();
    return SERVERS.computeIfAbsent(flavor,
        f -> f.start(Path.of("target", "it-mysql-connections"), f.name().toLowerCase()));
  }

  @AfterAll
  static void stop() {
    SERVERS.values().forEach(DatabaseServer::close);
  }

  private static MysqlAddress target(DatabaseServer server) {
    return new MysqlAddress(server.host(), server.port(), "iad (" + server.host() + ":" + server.port() + ")");
  }

  private static ServerFlavor expected(Flavor flavor) {
    return flavor == Flavor.MYSQL ? ServerFlavor.MYSQL : ServerFlavor.MARIADB;
  }

  @FlavorTest
  void eachFlavorIsServedByItsOwnDriverAfterOneGreeting(Flavor flavor) throws Exception {
    DatabaseServer server = server(flavor);
    ServerFlavors flavors = new ServerFlavors();
    MysqlConnections connections = new MysqlConnections(Map.of(), false, flavors);
    for (int i = 0; i < 3; i++) {
      try (MysqlSession session = MysqlSession.open(connections, target(server), LOGIN, TIMEOUTS)) {
        assertThat(session.flavor()).isEqualTo(expected(flavor));
        assertThat(session.driverName())
            .isEqualTo(flavor == Flavor.MYSQL ? "MySQL Connector/J" : "MariaDB Connector/J");
        assertThat(session.dialect().flavor()).isEqualTo(expected(flavor).display());
        session.succeeded();
      }
    }
    assertThat(flavors.greetingsRead()).as("the greeting is read once per endpoint").isEqualTo(1);
  }

  @FlavorTest
  void theGreetingNamesTheFlavorWithoutALogin(Flavor flavor) throws Exception {
    DatabaseServer server = server(flavor);
    Greeting greeting = Greeting.read(server.host(), server.port(), TIMEOUTS);
    assertThat(greeting.protocolVersion()).isEqualTo(10);
    assertThat(greeting.flavor()).isEqualTo(expected(flavor));
    String version = server.queryString("SELECT VERSION()");
    assertThat(greeting.serverVersion()).endsWith(version);
    System.out.printf("%s greeting: %s (SELECT VERSION(): %s)%n", flavor, greeting.serverVersion(), version);
  }

  @FlavorTest
  void aDeclaredFlavorPicksTheDriverWithoutAGreetingAndAWrongOneIsRefusedClearly(Flavor flavor) throws Exception {
    DatabaseServer server = server(flavor);
    ServerFlavors flavors = new ServerFlavors();
    MysqlConnections connections = new MysqlConnections(Map.of(), false, flavors);
    try (MysqlSession session = MysqlSession.open(connections, target(server).withFlavor(expected(flavor)), LOGIN,
        TIMEOUTS)) {
      assertThat(session.flavor()).isEqualTo(expected(flavor));
    }
    assertThat(flavors.greetingsRead()).isZero();

    ServerFlavor wrong = expected(flavor) == ServerFlavor.MYSQL ? ServerFlavor.MARIADB : ServerFlavor.MYSQL;
    assertThatThrownBy(() -> MysqlSession.open(connections, target(server).withFlavor(wrong), LOGIN, TIMEOUTS))
        .isInstanceOfSatisfying(FlavorMismatchException.class, e -> {
          assertThat(e.declared()).isEqualTo(wrong);
          assertThat(e.actual()).isEqualTo(expected(flavor));
          assertThat(e.connectionProblem()).isFalse();
          System.out.printf("%s declared %s: %s%n", flavor, wrong.specValue(), e.getMessage());
        })
        .hasMessageContaining("declared flavor: " + wrong.specValue())
        .hasMessageContaining("but the server is " + expected(flavor).display());
  }

  @FlavorTest
  void aRememberedFlavorTheServerContradictsIsForgottenAndTheRightDriverUsed(Flavor flavor) throws Exception {
    DatabaseServer server = server(flavor);
    ServerFlavors flavors = new ServerFlavors();
    ServerFlavor wrong = expected(flavor) == ServerFlavor.MYSQL ? ServerFlavor.MARIADB : ServerFlavor.MYSQL;
    // As if another server of the other flavor had listened on this endpoint before.
    flavors.remember(server.host(), server.port(), wrong);
    MysqlConnections connections = new MysqlConnections(Map.of(), false, flavors);
    try (MysqlSession session = MysqlSession.open(connections, target(server), LOGIN, TIMEOUTS)) {
      assertThat(session.flavor()).isEqualTo(expected(flavor));
      assertThat(session.driverName()).isEqualTo(flavor == Flavor.MYSQL ? "MySQL Connector/J" : "MariaDB Connector/J");
    }
    assertThat(flavors.of(server.host(), server.port(), TIMEOUTS)).isEqualTo(expected(flavor));
  }

  @FlavorTest
  void theDriverReportsWhatTheModuleDecidesOn(Flavor flavor) throws Exception {
    DatabaseServer server = server(flavor);
    MysqlConnections connections = MysqlConnections.unpooled();
    try (MysqlSession session = MysqlSession.open(connections, target(server), LOGIN, TIMEOUTS)) {
      // The server's error number (AppSessions.kill tolerates 1094, ER_NO_SUCH_THREAD).
      assertThatThrownBy(() -> session.execute("KILL CONNECTION 999999999"))
          .isInstanceOfSatisfying(MysqlException.class, e -> {
            assertThat(e.errorCode()).isEqualTo(1094);
            assertThat(e.connectionProblem()).isFalse();
          });
      // Booleans and integers as the probes read them, as text.
      assertThat(session.queryString("SELECT @@global.read_only")).isIn("0", "1");
      assertThat(session.queryString("SELECT 1 = 1")).isEqualTo("1");
      assertThat(session.queryString("SELECT CAST(18446744073709551615 AS UNSIGNED)"))
          .isEqualTo("18446744073709551615");
      assertThat(session.queryString("SELECT ?", "it's")).isEqualTo("it's");
      assertThat(session.queryFlag("SELECT @@global.read_only")).isEqualTo(server.isReadOnly());
    }
    // The socket timeout bounds a statement, and is a connection problem.
    try (MysqlSession session = MysqlSession.open(connections, target(server), LOGIN,
        new Timeouts(Duration.ofSeconds(2), Duration.ofMillis(500)))) {
      long started = System.nanoTime();
      assertThatThrownBy(() -> session.queryString("SELECT SLEEP(5)"))
          .isInstanceOfSatisfying(MysqlException.class, e -> assertThat(e.connectionProblem()).isTrue());
      System.out.printf("%s socket timeout 500 ms: the statement failed after %d ms%n", flavor,
          (System.nanoTime() - started) / 1_000_000);
    }
    // Nothing listens: a connection problem, from the greeting when detected, from the driver when declared.
    int closed = FreePorts.next();
    for (MysqlAddress nowhere : new MysqlAddress[] {MysqlAddress.of("127.0.0.1", closed),
        MysqlAddress.of("127.0.0.1", closed).withFlavor(expected(flavor))}) {
      assertThatThrownBy(() -> MysqlSession.open(connections, nowhere, LOGIN, TIMEOUTS))
          .isInstanceOfSatisfying(MysqlException.class, e -> assertThat(e.connectionProblem()).isTrue());
    }
    // A refused login: the server's error, not a connection problem.
    Credentials wrongPassword = new Credentials(LOGIN.username(), "not-the-password", LOGIN.replicationUsername(),
        LOGIN.replicationPassword());
    assertThatThrownBy(() -> MysqlSession.open(connections, target(server), wrongPassword, TIMEOUTS))
        .isInstanceOfSatisfying(MysqlException.class, e -> assertThat(e.errorCode()).isEqualTo(1045));
  }

  @FlavorTest
  void aSessionThatSucceededHandsItsConnectionToTheNext(Flavor flavor) throws Exception {
    DatabaseServer server = server(flavor);
    MysqlConnections connections = new MysqlConnections();
    String first = connectionId(connections, server, true);
    assertThat(connectionId(connections, server, true)).isEqualTo(first);
    connections.closeIdle();
  }

  @FlavorTest
  void aSessionThatFailedOrSetSessionStateIsNotReused(Flavor flavor) throws Exception {
    DatabaseServer server = server(flavor);
    MysqlConnections connections = new MysqlConnections();
    String failed = connectionId(connections, server, false);
    String next = connectionId(connections, server, true);
    assertThat(next).isNotEqualTo(failed);

    String changed;
    try (MysqlSession session = MysqlSession.open(connections, target(server), LOGIN, TIMEOUTS)) {
      session.changedSessionState();
      session.execute("SET SESSION lock_wait_timeout = 5");
      changed = session.queryString("SELECT CONNECTION_ID()");
      session.succeeded();
    }
    assertThat(changed).as("the kept one was used").isEqualTo(next);
    assertThat(connectionId(connections, server, true)).isNotEqualTo(changed);
    connections.closeIdle();
  }

  @FlavorTest
  void aKeptConnectionTheServerEndedFailsItsPingAndIsReplaced(Flavor flavor) throws Exception {
    DatabaseServer server = server(flavor);
    // Every kept connection pinged, as one idle for more than FRESH is.
    MysqlConnections connections = new MysqlConnections(Map.of(), true, ServerFlavors.SHARED, Duration.ZERO);
    String kept = connectionId(connections, server, true);
    server.execute("KILL " + kept);

    try (MysqlSession session = MysqlSession.open(connections, target(server), LOGIN, TIMEOUTS)) {
      assertThat(session.unchecked()).as("pinged").isFalse();
      assertThat(session.queryString("SELECT CONNECTION_ID()")).isNotEqualTo(kept);
    }
    connections.closeIdle();
  }

  @FlavorTest
  void aFreshKeptConnectionIsHandedOutWithoutAPingAndRunReplacesItWhenTheServerEndedIt(Flavor flavor)
      throws Exception {
    DatabaseServer server = server(flavor);
    // A minute: however slow this machine is, the second use comes within it.
    MysqlConnections connections = new MysqlConnections(Map.of(), true, ServerFlavors.SHARED, Duration.ofMinutes(1));
    String kept = connectionId(connections, server, true);
    try (MysqlSession session = MysqlSession.open(connections, target(server), LOGIN, TIMEOUTS)) {
      assertThat(session.unchecked()).as("answered within FRESH: no ping").isTrue();
      assertThat(session.queryString("SELECT CONNECTION_ID()")).isEqualTo(kept);
      session.succeeded();
    }
    server.execute("KILL " + kept);

    java.util.List<Boolean> uncheckedAttempts = new java.util.ArrayList<>();
    String next = MysqlSession.run(connections, target(server), LOGIN, TIMEOUTS, session -> {
      uncheckedAttempts.add(session.unchecked());
      return session.queryString("SELECT CONNECTION_ID()");
    });
    assertThat(next).isNotEqualTo(kept);
    assertThat(uncheckedAttempts).as("the ended one, then a new one").containsExactly(true, false);
    connections.closeIdle();
  }

  @FlavorTest
  void severalStatementsGoAsOneExchangeAndEachResultComesBack(Flavor flavor) throws Exception {
    DatabaseServer server = server(flavor);
    MysqlConnections connections = new MysqlConnections();
    try (MysqlSession session = MysqlSession.open(connections, target(server), LOGIN, TIMEOUTS)) {
      var results = session.queryAll("SET @a = 1; SELECT @a + 1 AS b; SHOW VARIABLES LIKE 'no_such_variable%';"
          + " SELECT 3 AS c UNION ALL SELECT 4");
      assertThat(results).hasSize(3);
      assertThat(results.get(0)).containsExactly(Map.of("b", "2"));
      assertThat(results.get(1)).isEmpty();
      assertThat(results.get(2)).extracting(r -> r.get("c")).containsExactly("3", "4");
      assertThatThrownBy(() -> session.queryAll("SELECT 1; SELECT no_such_column FROM DUAL; SELECT 2"))
          .isInstanceOf(MysqlException.class);
    }
    connections.closeIdle();
  }

  @FlavorTest
  void withoutKeepingEveryConnectionIsNew(Flavor flavor) throws Exception {
    DatabaseServer server = server(flavor);
    MysqlConnections connections = new MysqlConnections(Map.of(), false);
    String first = connectionId(connections, server, true);
    assertThat(connectionId(connections, server, true)).isNotEqualTo(first);
  }

  private static String connectionId(MysqlConnections connections, DatabaseServer server, boolean succeed)
      throws Exception {
    try (MysqlSession session = MysqlSession.open(connections, target(server), LOGIN, TIMEOUTS)) {
      String id = session.queryString("SELECT CONNECTION_ID()");
      if (succeed) {
        session.succeeded();
      }
      return id;
    }
  }
}
