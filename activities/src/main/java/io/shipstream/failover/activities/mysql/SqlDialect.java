package io.shipstream.failover.activities.mysql;

import io.shipstream.failover.model.gtid.GtidSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

/**
 * The statements that differ between MariaDB and MySQL 8. The activities say what to do; a dialect
 * says how on one flavor. Each method is one small step, safe to repeat.
 */
interface SqlDialect {

  static SqlDialect forVersion(String version) {
    return version != null && version.contains("MariaDB") ? MariaDbDialect.INSTANCE : MySqlDialect.INSTANCE;
  }

  /** "MariaDB" or "MySQL", as reported in {@code ServerState.flavor}. */
  String flavor();

  /** Whether applications without SUPER are refused writes. */
  default boolean readOnly(MysqlSession session) throws SQLException {
    return session.queryFlag("SELECT @@global.read_only");
  }

  /** Makes the server refuse writes from every application account. */
  void fence(MysqlSession session) throws SQLException;

  /** Lets applications write again. */
  void clearReadOnly(MysqlSession session) throws SQLException;

  /** Reads back whether the server now accepts application writes. */
  boolean writable(MysqlSession session) throws SQLException;

  /** Every transaction the server has executed, in its own notation, for status and results. */
  String executedGtidSet(MysqlSession session) throws SQLException;

  /** The set to compare a wanted GTID set against: everything executed, by any path. */
  GtidSet appliedGtidSet(MysqlSession session) throws SQLException;

  /** Blocks for at most {@code timeout} until {@code wanted} is applied; true when it is. */
  boolean waitForGtidSet(MysqlSession session, GtidSet wanted, Duration timeout) throws SQLException;

  /** The default replication channel's state; empty when the server is not configured as a replica. */
  Optional<ReplicaStatus> replicaStatus(MysqlSession session) throws SQLException;

  /**
   * Starts the stopped SQL thread so that it applies what the relay log holds, without losing any
   * of it, whether or not the IO thread runs.
   */
  void applyRelayLog(MysqlSession session, ReplicaStatus status) throws SQLException;

  void stopReplica(MysqlSession session) throws SQLException;

  /** Stops only the IO thread: nothing more is received, and the SQL thread applies what the relay log holds. */
  void stopIoThread(MysqlSession session) throws SQLException;

  /**
   * Whether the server writes the transactions it replicates to its own binary log, so that another
   * server can replicate them from it: log_bin and log_slave_updates (log_replica_updates on MySQL).
   */
  boolean logsReplicaUpdates(MysqlSession session) throws SQLException;

  /** Forgets the source entirely, so the server no longer counts as a replica. */
  void resetReplicaAll(MysqlSession session) throws SQLException;

  /**
   * Points the stopped replica at a new source with GTID auto-positioning. The replica asks the
   * source for everything after what it has already executed, whether it got that by replication
   * or wrote it itself as a former primary.
   */
  void changeSource(MysqlSession session, String host, int port, String user, String password) throws SQLException;

  void startReplica(MysqlSession session) throws SQLException;
}
