package io.shipstream.failover.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.testsupport.MariaDbServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Connections kept between activities, against a real mariadbd: handed to the next session for
 * the same server and login, never when the session failed or set session state, and replaced
 * when the server ended them while they sat idle.
 */
class MysqlConnectionsIT {
  private static final Credentials LOGIN = new Credentials(MariaDbServer.ADMIN.user(), MariaDbServer.ADMIN.password(),
      MariaDbServer.REPLICATION.user(), MariaDbServer.REPLICATION.password());
  private static final Timeouts TIMEOUTS = new Timeouts(Duration.ofSeconds(2), Duration.ofSeconds(5));
  private static MariaDbServer server;
  private static MysqlAddress target;

  @BeforeAll
  static void start() {
    server = MariaDbServer.start(Path.of("target", "it-mysql-connections"));
    target = new MysqlAddress(server.host(), server.port(), "iad (" + server.host() + ":" + server.port() + ")");
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void aSessionThatSucceededHandsItsConnectionToTheNext() throws Exception {
    MysqlConnections connections = new MysqlConnections();
    String first = connectionId(connections, true);
    assertThat(connectionId(connections, true)).isEqualTo(first);
    connections.closeIdle();
  }

  @Test
  void aSessionThatFailedOrSetSessionStateIsNotReused() throws Exception {
    MysqlConnections connections = new MysqlConnections();
    String failed = connectionId(connections, false);
    String next = connectionId(connections, true);
    assertThat(next).isNotEqualTo(failed);

    String changed;
    try (MysqlSession session = MysqlSession.open(connections, target, LOGIN, TIMEOUTS)) {
      session.changedSessionState();
      session.execute("SET SESSION lock_wait_timeout = 5");
      changed = session.queryString("SELECT CONNECTION_ID()");
      session.succeeded();
    }
    assertThat(changed).as("the kept one was used").isEqualTo(next);
    assertThat(connectionId(connections, true)).isNotEqualTo(changed);
    connections.closeIdle();
  }

  @Test
  void aKeptConnectionTheServerEndedFailsItsPingAndIsReplaced() throws Exception {
    MysqlConnections connections = new MysqlConnections();
    String kept = connectionId(connections, true);
    server.execute("KILL " + kept);

    String next = connectionId(connections, true);
    assertThat(next).isNotEqualTo(kept);
    connections.closeIdle();
  }

  @Test
  void withoutKeepingEveryConnectionIsNew() throws Exception {
    MysqlConnections connections = new MysqlConnections(Map.of(), false);
    String first = connectionId(connections, true);
    assertThat(connectionId(connections, true)).isNotEqualTo(first);
  }

  private static String connectionId(MysqlConnections connections, boolean succeed) throws Exception {
    try (MysqlSession session = MysqlSession.open(connections, target, LOGIN, TIMEOUTS)) {
      String id = session.queryString("SELECT CONNECTION_ID()");
      if (succeed) {
        session.succeeded();
      }
      return id;
    }
  }
}
