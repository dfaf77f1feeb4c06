package io.shipstream.failover.mysql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One admin connection to one server, opened with its flavor's driver (see {@link
 * MysqlConnections}), with the dialect its version names (a MariaDB version string says so;
 * anything else is MySQL). Every statement the project sends to a
 * server goes through one; the driver's errors leave it as {@link MysqlException}.
 */
public final class MysqlSession implements AutoCloseable {
  private final MysqlConnections connections;
  private final MysqlAddress address;
  private final Credentials credentials;
  private final Timeouts timeouts;
  private final Connection connection;
  private final String version;
  private final SqlDialect dialect;
  private final ServerFlavor flavor;
  // Whether the connection may serve the next activity: the work finished without an error
  // (see succeeded()) and set no session variable (see changedSessionState()).
  private boolean succeeded;
  private boolean sessionStateChanged;
  // When the last statement was sent and its answer read (System.nanoTime), for lastExchangeMiddle.
  private long lastSentNanos;
  private long lastAnsweredNanos;

  private final boolean unchecked;

  private MysqlSession(MysqlConnections connections, MysqlAddress address, Credentials credentials,
      Timeouts timeouts, Connection connection, String version, boolean unchecked) {
    this.unchecked = unchecked;
    this.connections = connections;
    this.address = address;
    this.credentials = credentials;
    this.timeouts = timeouts;
    this.connection = connection;
    this.version = version;
    this.dialect = SqlDialect.forVersion(version);
    this.flavor = ServerFlavor.ofVersion(version);
  }

  public static MysqlSession open(MysqlConnections connections, MysqlAddress address, Credentials credentials,
      Timeouts timeouts) throws MysqlException {
    Connection connection;
    boolean unchecked;
    try {
      MysqlConnections.Opened opened = connections.open(address, credentials, timeouts);
      connection = opened.connection();
      unchecked = opened.unchecked();
    } catch (MysqlConnections.WrongFlavor e) {
      throw new FlavorMismatchException(e.address, e.declared, e.actual, e.version);
    } catch (SQLException e) {
      throw new MysqlException(e);
    }
    try {
      // The server's version string as its handshake sent it, the same text SELECT VERSION()
      // returns, without the round trip: a server across a WAN link costs one per statement.
      String version = connection.getMetaData().getDatabaseProductVersion();
      return new MysqlSession(connections, address, credentials, timeouts, connection, version, unchecked);
    } catch (SQLException e) {
      MysqlConnections.closeQuietly(connection);
      throw new MysqlException(e);
    } catch (RuntimeException e) {
      MysqlConnections.closeQuietly(connection);
      throw e;
    }
  }

  /**
   * Runs {@code work} on a session of {@code connections} and keeps its connection for the next
   * use if the work succeeded. A kept connection handed out without a ping ({@link
   * MysqlConnections#FRESH}) that the server had ended (a restart, a KILL) fails the work's first
   * statement at once: the work is then run again on another connection, so the answer comes from
   * the server as it is now. A failure that took a timeout is not tried again (a frozen server costs
   * one timeout, as a ping would have), nor any other failure.
   */
  public static <T> T run(MysqlConnections connections, MysqlAddress address, Credentials credentials,
      Timeouts timeouts, KeptSessions.Work<T> work) throws MysqlException {
    while (true) {
      try (MysqlSession session = open(connections, address, credentials, timeouts)) {
        try {
          T result = work.apply(session);
          session.succeeded();
          return result;
        } catch (MysqlException e) {
          if (!session.unchecked || !e.connectionProblem() || KeptSessions.tookTimeout(e)) {
            throw e;
          }
          // The kept connection had been ended: once more, on the next kept one or a new one.
        }
      }
    }
  }

  /**
   * A second session to the same server with the same login, for a step that must wait on one
   * connection while this one acts (the fence behind commits waiting for a semi-synchronous
   * acknowledgement, {@link AckWaitFence}).
   */
  public MysqlSession another(Timeouts timeouts) throws MysqlException {
    return open(connections, address, credentials, timeouts);
  }

  /** The timeouts this session was opened with. */
  public Timeouts timeouts() {
    return timeouts;
  }

  /** Whether the connection was handed out without a ping, having answered within {@link MysqlConnections#FRESH}. */
  public boolean unchecked() {
    return unchecked;
  }

  /** The server, named as the caller named it: for log lines and messages. */
  public MysqlAddress address() {
    return address;
  }

  public Credentials credentials() {
    return credentials;
  }

  public String version() {
    return version;
  }

  public SqlDialect dialect() {
    return dialect;
  }

  /** The server's flavor, which picked the driver of this session. */
  public ServerFlavor flavor() {
    return flavor;
  }

  /** The JDBC driver that serves this session, as it names itself: for tests and diagnostics. */
  public String driverName() throws MysqlException {
    try {
      return connection.getMetaData().getDriverName();
    } catch (SQLException e) {
      throw new MysqlException(e);
    }
  }

  public void execute(String sql) throws MysqlException {
    try (Statement statement = connection.createStatement()) {
      sent();
      statement.execute(sql);
      answered();
    } catch (SQLException e) {
      throw new MysqlException(e);
    }
  }

  private void sent() {
    connections.exchanged();
    lastSentNanos = System.nanoTime();
  }

  private void answered() {
    lastAnsweredNanos = System.nanoTime();
  }

  /**
   * The middle of the last statement's exchange, on {@code clock}: the best guess from this side
   * of the link of when the server did what it asked (the answer travels back as long as the
   * statement travelled there). Null before any statement answered.
   */
  public java.time.Instant lastExchangeMiddle(java.time.Clock clock) {
    if (lastAnsweredNanos == 0) {
      return null;
    }
    long middle = lastSentNanos + (lastAnsweredNanos - lastSentNanos) / 2;
    return clock.instant().minusNanos(System.nanoTime() - middle);
  }

  /**
   * Runs a statement with {@code ?} placeholders. The connection prepares client-side (see {@link
   * MysqlConnections}), so the driver inlines each value as a correctly escaped literal: this works
   * for statements the server cannot prepare, such as CHANGE MASTER, and keeps passwords and host
   * names from breaking the SQL.
   */
  public void execute(String sql, Object... parameters) throws MysqlException {
    try (PreparedStatement statement = prepare(sql, parameters)) {
      sent();
      statement.execute();
      answered();
    } catch (SQLException e) {
      throw new MysqlException(e);
    }
  }

  /** Like {@link #execute(String, Object...)} for a query; the first column of the first row. */
  public String queryString(String sql, Object... parameters) throws MysqlException {
    sent();
    try (PreparedStatement statement = prepare(sql, parameters);
        ResultSet rows = statement.executeQuery()) {
      answered();
      return rows.next() ? rows.getString(1) : null;
    } catch (SQLException e) {
      throw new MysqlException(e);
    }
  }

  private PreparedStatement prepare(String sql, Object... parameters) throws SQLException {
    PreparedStatement statement = connection.prepareStatement(sql);
    try {
      for (int i = 0; i < parameters.length; i++) {
        statement.setObject(i + 1, parameters[i]);
      }
      return statement;
    } catch (SQLException | RuntimeException e) {
      statement.close();
      throw e;
    }
  }

  /** The first column of the first row, or null when there is no row. */
  public String queryString(String sql) throws MysqlException {
    sent();
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      answered();
      return rows.next() ? rows.getString(1) : null;
    } catch (SQLException e) {
      throw new MysqlException(e);
    }
  }

  public boolean queryFlag(String sql) throws MysqlException {
    return flag(queryString(sql));
  }

  /** A server's boolean as text: anything but null, 0, OFF and false is on. */
  public static boolean flag(String value) {
    return value != null && !"0".equals(value) && !"OFF".equalsIgnoreCase(value) && !"false".equalsIgnoreCase(value);
  }

  /** Every row as column label to string value, for statements like SHOW ... STATUS. */
  public List<Map<String, String>> queryRows(String sql) throws MysqlException {
    List<Map<String, String>> out = new ArrayList<>();
    sent();
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      answered();
      out.addAll(rowsOf(rows));
    } catch (SQLException e) {
      throw new MysqlException(e);
    }
    return out;
  }

  /**
   * Several statements separated by {@code ;}, sent as one exchange (the connections allow multiple
   * statements, see {@link MysqlConnections}): the server runs them in order and stops at the first
   * error, which is thrown. Returns the rows of each statement that returned rows, in order; the
   * statements that returned none (SET, STOP SLAVE) add nothing. For the steps whose every round
   * trip counts, across a WAN link inside the write window. Only constant SQL or values the caller
   * has validated (GTID sets, numbers) may be put into {@code sql}.
   */
  public List<List<Map<String, String>>> queryAll(String sql) throws MysqlException {
    List<List<Map<String, String>>> out = new ArrayList<>();
    sent();
    try (Statement statement = connection.createStatement()) {
      boolean rows = statement.execute(sql);
      answered();
      while (true) {
        if (rows) {
          try (ResultSet set = statement.getResultSet()) {
            out.add(rowsOf(set));
          }
        } else if (statement.getUpdateCount() == -1) {
          break;
        }
        rows = statement.getMoreResults();
      }
    } catch (SQLException e) {
      throw new MysqlException(e);
    }
    return out;
  }

  private static List<Map<String, String>> rowsOf(ResultSet rows) throws SQLException {
    List<Map<String, String>> out = new ArrayList<>();
    ResultSetMetaData meta = rows.getMetaData();
    while (rows.next()) {
      Map<String, String> row = new LinkedHashMap<>();
      for (int i = 1; i <= meta.getColumnCount(); i++) {
        row.put(meta.getColumnLabel(i), rows.getString(i));
      }
      out.add(row);
    }
    return out;
  }

  public Optional<Map<String, String>> queryFirstRow(String sql) throws MysqlException {
    List<Map<String, String>> rows = queryRows(sql);
    return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
  }

  /** The work is done and nothing failed: the connection may be kept for the next activity. */
  public void succeeded() {
    succeeded = true;
  }

  /** A session variable was set: the connection is closed after this session, never reused. */
  public void changedSessionState() {
    sessionStateChanged = true;
  }

  @Override
  public void close() {
    if (succeeded && !sessionStateChanged) {
      connections.release(address, flavor, credentials, connection);
      return;
    }
    MysqlConnections.closeQuietly(connection);
  }
}
