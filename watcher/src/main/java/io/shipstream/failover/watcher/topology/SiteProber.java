package io.shipstream.failover.watcher.topology;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.Probe;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Properties;

/**
 * Polls one site's server over JDBC: whether it is writable, its executed GTID set, its identity
 * and its replication threads. The watcher does not depend on the activities module, so this is
 * its own small probe, read-only except for {@link #fence}.
 *
 * <p>Connect and socket timeouts are {@code min(pollInterval, 2s)}: a dead server costs one
 * timeout on its own thread and never delays the polls of the other sites. The login comes from
 * the group's Secret through {@link SecretLogins} and is never logged.
 */
public final class SiteProber implements SiteConnector {
  static final Duration MAX_TIMEOUT = Duration.ofSeconds(2);

  private final SecretLogins logins;
  private final Clock clock;

  public SiteProber(SecretLogins logins, Clock clock) {
    this.logins = logins;
    this.clock = clock;
  }

  /** The connect and socket timeout of a poll. */
  static Duration timeout(Duration pollInterval) {
    return pollInterval.compareTo(MAX_TIMEOUT) < 0 ? pollInterval : MAX_TIMEOUT;
  }

  @Override
  public Probe probe(GroupRef group, GroupConfig config, SiteSpec site) {
    try (Connection c = open(group, config, site); Statement st = c.createStatement()) {
      boolean mysql = !version(st).toLowerCase(Locale.ROOT).contains("mariadb");
      boolean readOnly;
      String gtid;
      String serverId;
      // MariaDB: gtid_binlog_state, not gtid_binlog_pos. The position keeps only the newest GTID of
      // each domain, so once a new primary has written, an old primary's last GTID (same domain,
      // its own server id) no longer appears in it and looks divergent; the state keeps the newest
      // GTID of every server id, which is what the writer-aware comparison (GtidHistory) needs.
      String sql = mysql ? "SELECT @@read_only, @@super_read_only, @@gtid_executed, @@server_uuid"
          : "SELECT @@read_only, 0, @@global.gtid_binlog_state, @@server_id";
      try (ResultSet rs = st.executeQuery(sql)) {
        rs.next();
        readOnly = rs.getBoolean(1) || rs.getBoolean(2);
        // MySQL prints long sets over several lines.
        gtid = rs.getString(3) == null ? null : rs.getString(3).replace("\n", "");
        serverId = rs.getString(4);
      }
      Replication replication = replication(st, mysql);
      return new Probe(site.name(), true, readOnly, gtid, serverId, replication.running(), replication.lag(), null,
          clock.instant(), replication.sourceServerId());
    } catch (SQLException | RuntimeException e) {
      return Probe.unreachable(site.name(), describe(e), clock.instant());
    }
  }

  @Override
  public void fence(GroupRef group, GroupConfig config, SiteSpec site) throws SQLException {
    try (Connection c = open(group, config, site); Statement st = c.createStatement()) {
      boolean mysql = !version(st).toLowerCase(Locale.ROOT).contains("mariadb");
      // On MySQL super_read_only also stops accounts with SUPER; it implies read_only.
      st.execute(mysql ? "SET GLOBAL super_read_only = 1" : "SET GLOBAL read_only = 1");
    }
  }

  private Connection open(GroupRef group, GroupConfig config, SiteSpec site) throws SQLException {
    SecretLogins.Login login = logins.login(group, config.credentialsSecret());
    long timeout = timeout(config.pollInterval()).toMillis();
    Properties p = new Properties();
    p.setProperty("user", login.username());
    p.setProperty("password", login.password());
    p.setProperty("connectTimeout", Long.toString(timeout));
    p.setProperty("socketTimeout", Long.toString(timeout));
    p.setProperty("useServerPrepStmts", "false");
    return DriverManager.getConnection("jdbc:mariadb://" + site.mysql().host() + ":" + GroupConfig.mysqlPort(site)
        + "/", p);
  }

  private static String version(Statement st) throws SQLException {
    try (ResultSet rs = st.executeQuery("SELECT VERSION()")) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** {@code sourceServerId}: who it replicates from, once the IO thread has met its source. */
  private record Replication(boolean running, Long lag, String sourceServerId) {}

  /**
   * Both threads running, and the lag the server reports. MariaDB and MySQL before 8.0.22 name
   * the columns Slave and Master; newer MySQL only answers SHOW REPLICA STATUS with Replica and
   * Source.
   */
  private static Replication replication(Statement st, boolean mysql) throws SQLException {
    try (ResultSet rs = replicaStatus(st, mysql)) {
      if (!rs.next()) {
        return new Replication(false, null, null);
      }
      boolean io = "Yes".equalsIgnoreCase(column(rs, "Replica_IO_Running", "Slave_IO_Running"));
      boolean sql = "Yes".equalsIgnoreCase(column(rs, "Replica_SQL_Running", "Slave_SQL_Running"));
      String behind = column(rs, "Seconds_Behind_Source", "Seconds_Behind_Master");
      Long lag = behind == null ? null : Long.valueOf(behind);
      // MariaDB names the source by its server_id (0 before the IO thread connected), MySQL by its UUID.
      String source = mysql ? column(rs, "Source_UUID", "Master_UUID") : column(rs, "Master_Server_Id", "Master_Server_Id");
      if (source != null && (source.isBlank() || source.equals("0"))) {
        source = null;
      }
      return new Replication(io && sql, io && sql ? lag : null, source);
    }
  }

  private static ResultSet replicaStatus(Statement st, boolean mysql) throws SQLException {
    if (mysql) {
      try {
        return st.executeQuery("SHOW REPLICA STATUS");
      } catch (SQLException e) {
        return st.executeQuery("SHOW SLAVE STATUS");
      }
    }
    return st.executeQuery("SHOW SLAVE STATUS");
  }

  private static String column(ResultSet rs, String name, String oldName) throws SQLException {
    try {
      return rs.getString(name);
    } catch (SQLException e) {
      return rs.getString(oldName);
    }
  }

  /** The error for status and logs: the driver's message, which never carries the password. */
  private static String describe(Exception e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
