package io.shipstream.failover.activities.mysql;

import io.shipstream.failover.workflows.activities.MysqlTarget;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;

/**
 * The one place that opens connections to the servers, with mariadb-java-client for both flavors.
 * There is no pool: every activity opens one connection, does a few statements and closes it,
 * which costs a millisecond next to the seconds a failover step takes, and a pool would hand out
 * connections to a server that was restarted or fenced in the meantime.
 *
 * <p>The connect timeout is short (2 s) so an unreachable server is reported quickly; the socket
 * timeout is given per call, sized to the longest statement that call runs. Extra driver
 * properties (TLS: {@code sslMode}, {@code serverSslCert}; or {@code allowPublicKeyRetrieval} for
 * MySQL 8's caching_sha2_password without TLS) come from the worker's configuration.
 */
public final class MysqlConnections {
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

  private final Map<String, String> driverProperties;

  public MysqlConnections() {
    this(Map.of());
  }

  public MysqlConnections(Map<String, String> driverProperties) {
    this.driverProperties = Map.copyOf(driverProperties);
  }

  public Connection open(MysqlTarget target, Credentials credentials, Duration socketTimeout) throws SQLException {
    Properties properties = new Properties();
    properties.putAll(driverProperties);
    properties.setProperty("user", credentials.username());
    properties.setProperty("password", credentials.password());
    properties.setProperty("connectTimeout", Long.toString(CONNECT_TIMEOUT.toMillis()));
    properties.setProperty("socketTimeout", Long.toString(socketTimeout.toMillis()));
    // Statements are sent as text: SET GLOBAL, KILL and CHANGE MASTER are not all preparable.
    properties.setProperty("useServerPrepStmts", "false");
    return DriverManager.getConnection("jdbc:mariadb://" + target.host() + ":" + target.port() + "/", properties);
  }
}
