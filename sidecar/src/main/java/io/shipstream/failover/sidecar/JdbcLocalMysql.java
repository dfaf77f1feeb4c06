package io.shipstream.failover.sidecar;

import io.shipstream.failover.sidecar.FencingDecision.MysqlState;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local server over JDBC (mariadb-java-client for both flavors). One short connection per
 * call: the server is on the same pod, so it costs about a millisecond, and no pooled connection
 * can outlive a restart of the server. A look at the server gives up after {@link #PROBE_TIMEOUT}
 * in every phase (a frozen server accepts the TCP connection in the kernel and never greets), so
 * the sidecar can watch a frozen server closely and sees it the moment it resumes.
 */
final class JdbcLocalMysql implements LocalMysql {
  private static final Logger LOG = LoggerFactory.getLogger(JdbcLocalMysql.class);
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);
  /** How long a look at the server waits for any answer, the greeting included. */
  static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);
  /** Long enough for a fence that waits out lock_wait_timeout once, kills and retries. */
  private static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(10);
  /** How long SET GLOBAL read_only may wait for open transactions before they are killed. */
  private static final int LOCK_WAIT_SECONDS = 2;
  private static final int ER_LOCK_WAIT_TIMEOUT = 1205;
  private static final int ER_NO_SUCH_THREAD = 1094;
  /**
   * Server threads, and connections still in their handshake: those have no account yet (so the
   * spared ones cannot be told apart), hold no transaction, and cannot write once connected.
   */
  private static final Set<String> SYSTEM_USERS = Set.of("system user", "event_scheduler", "unauthenticated user");
  /** Server threads, replication, handshakes and sessions already on their way out are not the application's. */
  private static final Set<String> NON_APP_COMMANDS = Set.of("binlog dump", "binlog dump gtid", "daemon",
      "slave_io", "slave_sql", "slave_worker", "killed", "connect");

  private final String url;
  private final String user;
  private final String password;
  private final Set<String> spareUsers;
  private volatile String flavor = "unknown";
  private volatile Optional<Boolean> startsReadOnly = Optional.empty();

  JdbcLocalMysql(String host, int port, String user, String password, Set<String> spareUsers) {
    this.url = "jdbc:mariadb://" + host + ":" + port + "/";
    this.user = user;
    this.password = password;
    Set<String> spared = new HashSet<>(spareUsers);
    spared.add(user);
    this.spareUsers = Set.copyOf(spared);
  }

  @Override
  public MysqlState state() {
    try (Connection connection = open(PROBE_TIMEOUT); Statement statement = connection.createStatement()) {
      boolean mariaDb = detectFlavor(statement);
      // super_read_only implies read_only on MySQL, so read_only alone says whether applications can write.
      ReadOnlyOrigin origin;
      try (ResultSet rows = statement.executeQuery(mariaDb ? MARIADB_READ_ONLY : MYSQL_READ_ONLY)) {
        rows.next();
        origin = ReadOnlyOrigin.classify(rows.getLong(1) != 0, mariaDb ? List.of(nullToEmpty(rows.getString(2)))
            : List.of(nullToEmpty(rows.getString(2)), nullToEmpty(rows.getString(3))));
      }
      origin.startsReadOnly().ifPresent(known -> startsReadOnly = Optional.of(known));
      LOG.trace("{} {}", mariaDb ? "MariaDB" : "MySQL", origin);
      if (!origin.readOnly()) {
        return MysqlState.WRITABLE;
      }
      return origin.untouchedSinceStart() && replicatesFromNobody(statement, mariaDb) ? MysqlState.STARTUP_READ_ONLY
          : MysqlState.READ_ONLY;
    } catch (SQLException e) {
      LOG.debug("local MySQL unreachable: {}", e.getMessage());
      return MysqlState.UNREACHABLE;
    }
  }

  @Override
  public Optional<Boolean> startsReadOnly() {
    return startsReadOnly;
  }

  /**
   * Whether read_only is on, and whether it is still what the server's configuration set when it
   * started: MariaDB's SYSTEM_VARIABLES says SQL and MySQL's variables_info says DYNAMIC once any
   * SET GLOBAL touched it, so no mark of the sidecar's own is needed to tell a restarted server's
   * start-up read-only from a fence that anybody applied since.
   */
  record ReadOnlyOrigin(boolean readOnly, boolean untouchedSinceStart, Optional<Boolean> startsReadOnly) {
    private static final Set<String> SET_AT_RUNTIME = Set.of("SQL", "DYNAMIC");

    /** {@code origins}: where the value of each read-only variable came from; empty when unknown. */
    static ReadOnlyOrigin classify(boolean readOnly, List<String> origins) {
      boolean untouched = origins.stream().noneMatch(o -> o.isEmpty() || SET_AT_RUNTIME.contains(o.toUpperCase(Locale.ROOT)));
      return new ReadOnlyOrigin(readOnly, untouched, untouched ? Optional.of(readOnly) : Optional.empty());
    }
  }

  private static final String MARIADB_READ_ONLY = "SELECT @@global.read_only, (SELECT GLOBAL_VALUE_ORIGIN "
      + "FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = 'READ_ONLY')";
  private static final String MYSQL_READ_ONLY = "SELECT @@global.read_only, "
      + "(SELECT VARIABLE_SOURCE FROM performance_schema.variables_info WHERE VARIABLE_NAME = 'read_only'), "
      + "(SELECT VARIABLE_SOURCE FROM performance_schema.variables_info WHERE VARIABLE_NAME = 'super_read_only')";

  /** No replication channel is configured: a primary's, never a replica's, even one with its threads stopped. */
  private static boolean replicatesFromNobody(Statement statement, boolean mariaDb) throws SQLException {
    try (ResultSet rows = statement.executeQuery(mariaDb ? "SHOW ALL SLAVES STATUS" : "SHOW REPLICA STATUS")) {
      return !rows.next();
    }
  }

  private static String nullToEmpty(String value) {
    return value == null ? "" : value;
  }

  @Override
  public int fence() throws SQLException {
    try (Connection connection = open(SOCKET_TIMEOUT); Statement statement = connection.createStatement()) {
      String fence = detectFlavor(statement) ? "SET GLOBAL read_only = 1" : "SET GLOBAL super_read_only = 1";
      statement.execute("SET SESSION lock_wait_timeout = " + LOCK_WAIT_SECONDS);
      int killed = 0;
      try {
        statement.execute(fence);
      } catch (SQLException e) {
        if (e.getErrorCode() != ER_LOCK_WAIT_TIMEOUT) {
          throw e;
        }
        // An application holding a transaction open must not hold the fence up.
        killed += killAppSessions(statement);
        statement.execute(fence);
      }
      killed += killAppSessions(statement);
      return killed;
    }
  }

  @Override
  public void unfence() throws SQLException {
    try (Connection connection = open(SOCKET_TIMEOUT); Statement statement = connection.createStatement()) {
      if (!detectFlavor(statement)) {
        statement.execute("SET GLOBAL super_read_only = 0");
      }
      statement.execute("SET GLOBAL read_only = 0");
    }
  }

  @Override
  public String flavor() {
    return flavor;
  }

  private Connection open(Duration socketTimeout) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", user);
    properties.setProperty("password", password);
    properties.setProperty("connectTimeout", Long.toString(CONNECT_TIMEOUT.toMillis()));
    properties.setProperty("socketTimeout", Long.toString(socketTimeout.toMillis()));
    // SET GLOBAL and KILL are sent as text; they are not all preparable.
    properties.setProperty("useServerPrepStmts", "false");
    return DriverManager.getConnection(url, properties);
  }

  /** True for MariaDB, whose fence is read_only; MySQL's is super_read_only. */
  private boolean detectFlavor(Statement statement) throws SQLException {
    try (ResultSet rows = statement.executeQuery("SELECT VERSION()")) {
      rows.next();
      boolean mariaDb = rows.getString(1).toLowerCase(Locale.ROOT).contains("mariadb");
      flavor = mariaDb ? "MariaDB" : "MySQL";
      return mariaDb;
    }
  }

  private static boolean queryFlag(Statement statement, String sql) throws SQLException {
    try (ResultSet rows = statement.executeQuery(sql)) {
      return rows.next() && rows.getLong(1) != 0;
    }
  }

  private int killAppSessions(Statement statement) throws SQLException {
    List<Long> ids = new ArrayList<>();
    try (ResultSet rows = statement.executeQuery(
        "SELECT ID, USER, COMMAND FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID()")) {
      while (rows.next()) {
        String sessionUser = rows.getString(2) == null ? "" : rows.getString(2);
        String command = rows.getString(3) == null ? "" : rows.getString(3).toLowerCase(Locale.ROOT);
        if (!SYSTEM_USERS.contains(sessionUser) && !spareUsers.contains(sessionUser)
            && !NON_APP_COMMANDS.contains(command)) {
          ids.add(rows.getLong(1));
        }
      }
    }
    int killed = 0;
    for (long id : ids) {
      try {
        statement.execute("KILL CONNECTION " + id);
        killed++;
      } catch (SQLException e) {
        if (e.getErrorCode() != ER_NO_SUCH_THREAD) {
          throw e;
        }
      }
    }
    return killed;
  }
}
