package io.shipstream.failover.mysql;

import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.MariaDbServer;
import java.time.Duration;

/** The operator's session on a test server, as the procedures of this module are given one. */
final class AdminSessions {
  static final Credentials LOGIN = new Credentials(MariaDbServer.ADMIN.user(), MariaDbServer.ADMIN.password(),
      MariaDbServer.REPLICATION.user(), MariaDbServer.REPLICATION.password());

  private AdminSessions() {}

  /** A new admin session on {@code server}, whose statements may wait {@code socketTimeout} for an answer. */
  static MysqlSession open(DatabaseServer server, Duration socketTimeout) throws MysqlException {
    return MysqlSession.open(MysqlConnections.unpooled(), MysqlAddress.of(server.host(), server.port()), LOGIN,
        new Timeouts(Duration.ofSeconds(2), socketTimeout));
  }
}
