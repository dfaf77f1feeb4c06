package io.shipstream.failover.mysql;

import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.MariaDbServer;
import java.time.Duration;

/** The login the module's ITs use on the servers testsupport starts, and the sessions they open with it. */
final class ItSessions {
  /** The admin and replication accounts every server testsupport starts has, of either flavor. */
  static final Credentials LOGIN = new Credentials(MariaDbServer.ADMIN.user(), MariaDbServer.ADMIN.password(),
      MariaDbServer.REPLICATION.user(), MariaDbServer.REPLICATION.password());

  static final Timeouts TIMEOUTS = new Timeouts(Duration.ofSeconds(5), Duration.ofSeconds(10));

  private ItSessions() {}

  static MysqlAddress address(DatabaseServer server) {
    return MysqlAddress.of(server.host(), server.port());
  }

  /** An unpooled admin session on {@code server}, with {@link #TIMEOUTS}. */
  static MysqlSession open(DatabaseServer server) throws MysqlException {
    return MysqlSession.open(MysqlConnections.unpooled(), address(server), LOGIN, TIMEOUTS);
  }

  /** Points the replica of {@code session} at {@code source}, as the activities do, and waits until it replicates. */
  static void replicateFrom(MysqlSession session, DatabaseServer source) throws MysqlException {
    SourceChange.replicateFrom(session, address(source), LOGIN);
    new ReplicationStart(session, beat -> {}).awaitRunning(session.address(), address(source));
  }
}
