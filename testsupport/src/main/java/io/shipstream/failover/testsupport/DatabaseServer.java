package io.shipstream.failover.testsupport;

import io.shipstream.failover.model.gtid.GtidSet;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;

/**
 * A real test server of either flavor ({@link MariaDbServer}, {@link MySqlServer}): what a test
 * body parameterised by {@link Flavor} needs, with the flavor's own statements behind it. Every
 * server has the accounts {@link MariaDbServer#ADMIN}, {@link MariaDbServer#APP} and {@link
 * MariaDbServer#REPLICATION}, and read_only binds {@code APP} but not {@code ADMIN} on both.
 */
public interface DatabaseServer extends AutoCloseable {
  Flavor flavor();

  String name();

  String host();

  int port();

  /** Its server_id, unique among the servers of one JVM. */
  int serverId();

  /** Where its logs are kept, on the host. */
  Path directory();

  /** The operating-system process id of the current (or last) process. */
  long pid();

  boolean isRunning();

  /**
   * The CA file the server was given ({@link TestAuthority#serverOptions}), as a path on this
   * host (a client's, e.g. a sidecar's mount); empty for a server without certificates.
   */
  default java.util.Optional<Path> caFile() {
    return java.util.Optional.empty();
  }

  /** The URL without a database, for the flavor's own driver, as an application would get it. */
  String jdbcUrl();

  /** A connection by the flavor's own driver to {@link #jdbcUrl}, with the timeouts in milliseconds. */
  default Connection connect(Account account, Duration connectTimeout, Duration socketTimeout) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", account.user());
    properties.setProperty("password", account.password());
    properties.setProperty("connectTimeout", Long.toString(connectTimeout.toMillis()));
    properties.setProperty("socketTimeout", Long.toString(socketTimeout.toMillis()));
    return DriverManager.getConnection(jdbcUrl(), properties);
  }

  default Connection adminConnection() throws SQLException {
    return connect(MariaDbServer.ADMIN, Duration.ofSeconds(2), Duration.ofSeconds(30));
  }

  default Connection appConnection() throws SQLException {
    return connect(MariaDbServer.APP, Duration.ofSeconds(2), Duration.ofSeconds(30));
  }

  /** Runs statements as {@link MariaDbServer#ADMIN}, one connection for all of them. */
  default void execute(String... sql) {
    try (Connection connection = adminConnection();
        Statement statement = connection.createStatement()) {
      for (String each : sql) {
        statement.execute(each);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(name() + ": " + e.getMessage(), e);
    }
  }

  /** The first column of the first row as a string, or null when there is no row. */
  default String queryString(String sql) {
    try (Connection connection = adminConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      return rows.next() ? rows.getString(1) : null;
    } catch (SQLException e) {
      throw new IllegalStateException(name() + ": " + e.getMessage(), e);
    }
  }

  default long queryLong(String sql) {
    String value = queryString(sql);
    if (value == null) {
      throw new IllegalStateException(name() + ": no row for " + sql);
    }
    return Long.parseLong(value);
  }

  /**
   * Plain read_only, the same on both flavors: it binds the application, not the operator's
   * account. (The product's fence on MySQL uses super_read_only; clearing read_only clears both.)
   */
  default void setReadOnly(boolean readOnly) {
    execute("SET GLOBAL read_only = " + (readOnly ? 1 : 0));
  }

  default boolean isReadOnly() {
    return queryLong("SELECT @@global.read_only") == 1;
  }

  /**
   * Every transaction the server has in its binary log, in its flavor's notation without
   * whitespace: MariaDB's gtid_binlog_pos, MySQL's gtid_executed.
   */
  String gtidExecuted();

  /** Replication state of the default channel; {@link ReplicaStatus#configured()} false when none. */
  default ReplicaStatus replicaStatus() {
    return ReplicaStatus.read(this);
  }

  /** Makes this server a GTID replica of {@code source} (same flavor) and waits until both threads run. */
  void replicateFrom(DatabaseServer source);

  /**
   * Points replication at {@code host:port} (a proxy in front of a source, say) with GTID
   * positioning and starts it, without waiting for the threads: what an operator's CHANGE
   * MASTER/REPLICATION SOURCE does.
   */
  void startReplicationFrom(String host, int port);

  /**
   * Runs {@code sql} as the admin, binlogged as this server's own transaction even on a read-only
   * replica (the admin is not bound by read_only): on a replica, an errant transaction its source
   * never had. Returns the GTIDs it was logged under, in the flavor's notation.
   */
  String executeErrant(String... sql);

  /** Stops both replication threads, keeping the source and the positions. */
  void stopReplication();

  /**
   * Delayed replication: the SQL thread runs but applies each transaction {@code seconds} after
   * the source committed it (0 ends the delay); replication is restarted to apply it.
   */
  void delayReplication(int seconds);

  void stopReplicaSqlThread();

  void stopReplicaIoThread();

  /** Starts the IO thread again after {@link #stopReplicaIoThread}: the replica receives from its source again. */
  void startReplicaIoThread();

  /** Stops replication and forgets the source, so the server is no longer a replica. */
  void resetReplication();

  /** Waits until this server has applied {@code gtidSet}. */
  void awaitReplicated(String gtidSet, Duration timeout);

  /** Waits until this replica's IO thread has written {@code gtidSet} to its relay log (applied or not). */
  default void awaitReceived(String gtidSet, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!GtidSet.parse(replicaStatus().gtidIoPos()).contains(GtidSet.parse(gtidSet))) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("relay log of " + name() + " does not reach " + gtidSet + " within " + timeout);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  /** Waits until this replica has applied everything {@code source} has in its binlog. */
  default void awaitCaughtUpWith(DatabaseServer source, Duration timeout) {
    awaitReplicated(source.gtidExecuted(), timeout);
  }

  /**
   * Stops replication and rewrites the server's GTID history to exactly {@code executed}: its
   * binary logs are discarded with every GTID they held (MariaDB's RESET MASTER, MySQL's RESET
   * BINARY LOGS AND GTIDS, since 8.4 the only form) and {@code executed} is declared applied
   * (gtid_slave_pos, gtid_purged). What an operator does with a former primary's errant
   * transactions before it replicates from the server promoted at {@code executed}; the rows stay.
   */
  void resetGtidHistoryTo(String executed);

  /** Graceful shutdown (SIGTERM). The datadir is kept. */
  void stop();

  /** Crashes the server (SIGKILL); {@link #restart} recovers it like a real crash would. */
  void kill9();

  /** Freezes the server (SIGSTOP): its port stays open but nothing answers. */
  void pause();

  void resume();

  /** Stops the server if it still runs, then starts it again on the same datadir and port. */
  void restart();

  /**
   * As {@link #restart}, but it comes back read-only (read_only=ON from the command line), as a
   * production server configured to boot fenced comes back after a crash.
   */
  void restartFenced();

  /**
   * As {@link #restart}, with {@code options} added to this start's command line only, as a
   * server's configuration file would add them (MariaDB's semi-sync crash recovery, say).
   */
  void restartWith(java.util.List<String> options);

  /** Ends the process for good and deletes the datadir; the logs are kept. */
  @Override
  void close();
}
