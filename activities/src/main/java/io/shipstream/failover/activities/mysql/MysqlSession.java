package io.shipstream.failover.activities.mysql;

import io.shipstream.failover.workflows.activities.MysqlTarget;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One admin connection to one server, with its flavor detected from its version (a
 * MariaDB version string says so; anything else is MySQL). Every activity works through one.
 */
final class MysqlSession implements AutoCloseable {
  private final MysqlConnections connections;
  private final MysqlTarget target;
  private final Credentials credentials;
  private final Connection connection;
  private final String version;
  private final SqlDialect dialect;
  // Whether the connection may serve the next activity: the work finished without an error
  // (see succeeded()) and set no session variable (see changedSessionState()).
  private boolean succeeded;
  private boolean sessionStateChanged;

  private MysqlSession(MysqlConnections connections, MysqlTarget target, Credentials credentials, Connection connection,
      String version) {
    this.connections = connections;
    this.target = target;
    this.credentials = credentials;
    this.connection = connection;
    this.version = version;
    this.dialect = SqlDialect.forVersion(version);
  }

  static MysqlSession open(MysqlConnections connections, MysqlTarget target, Credentials credentials, Duration socketTimeout)
      throws SQLException {
    Connection connection = connections.open(target, credentials, socketTimeout);
    try {
      // The server's version string as its handshake sent it, the same text SELECT VERSION()
      // returns, without the round trip: a server across a WAN link costs one per statement.
      String version = connection.getMetaData().getDatabaseProductVersion();
      return new MysqlSession(connections, target, credentials, connection, version);
    } catch (SQLException | RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  MysqlTarget target() {
    return target;
  }

  Credentials credentials() {
    return credentials;
  }

  String version() {
    return version;
  }

  SqlDialect dialect() {
    return dialect;
  }

  void execute(String sql) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  /**
   * Runs a statement with {@code ?} placeholders. The connection prepares client-side (see {@link
   * MysqlConnections}), so the driver inlines each value as a correctly escaped literal: this works
   * for statements the server cannot prepare, such as CHANGE MASTER, and keeps passwords and host
   * names from breaking the SQL.
   */
  void execute(String sql, Object... parameters) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setObject(i + 1, parameters[i]);
      }
      statement.execute();
    }
  }

  /** Like {@link #execute(String, Object...)} for a query; the first column of the first row. */
  String queryString(String sql, Object... parameters) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setObject(i + 1, parameters[i]);
      }
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next() ? rows.getString(1) : null;
      }
    }
  }

  /** The first column of the first row, or null when there is no row. */
  String queryString(String sql) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      return rows.next() ? rows.getString(1) : null;
    }
  }

  boolean queryFlag(String sql) throws SQLException {
    String value = queryString(sql);
    return value != null && !"0".equals(value) && !"OFF".equalsIgnoreCase(value);
  }

  /** Every row as column label to string value, for statements like SHOW ... STATUS. */
  List<Map<String, String>> queryRows(String sql) throws SQLException {
    List<Map<String, String>> out = new ArrayList<>();
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      ResultSetMetaData meta = rows.getMetaData();
      while (rows.next()) {
        Map<String, String> row = new LinkedHashMap<>();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
          row.put(meta.getColumnLabel(i), rows.getString(i));
        }
        out.add(row);
      }
    }
    return out;
  }

  Optional<Map<String, String>> queryFirstRow(String sql) throws SQLException {
    List<Map<String, String>> rows = queryRows(sql);
    return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
  }

  /** The work is done and nothing failed: the connection may be kept for the next activity. */
  void succeeded() {
    succeeded = true;
  }

  /** A session variable was set: the connection is closed after this session, never reused. */
  void changedSessionState() {
    sessionStateChanged = true;
  }

  @Override
  public void close() {
    if (succeeded && !sessionStateChanged) {
      connections.release(target, credentials, connection);
      return;
    }
    MysqlConnections.closeQuietly(connection);
  }
}
