package io.shipstream.failover.mysql;

import io.shipstream.failover.model.gtid.GtidSet;
import java.time.Duration;
import java.util.Optional;

/**
 * The statements that differ between MariaDB and MySQL 8. The activities say what to do; a dialect
 * says how on one flavor. Each method is one small step, safe to repeat.
 */
public interface SqlDialect {

  static SqlDialect forVersion(String version) {
    return version != null && version.contains("MariaDB") ? MariaDbDialect.INSTANCE : MySqlDialect.INSTANCE;
  }

  /** "MariaDB" or "MySQL", as reported in {@code ServerState.flavor}. */
  String flavor();

  /** Whether applications without SUPER are refused writes. */
  default boolean readOnly(MysqlSession session) throws MysqlException {
    return session.queryFlag("SELECT @@global.read_only");
  }

  /**
   * Where the read-only variables' values came from, to tell a server that started read-only from
   * one that somebody fenced since (see {@link ReadOnlyOrigin}).
   */
  ReadOnlyOrigin readOnlyOrigin(MysqlSession session) throws MysqlException;

  /**
   * One row for {@link ServerProbe}: {@code read_only}, {@code super_read_only} (0 where there is
   * none), {@code gtid} (every transaction executed, in the form the writer-aware comparison needs)
   * and {@code server_id} (how replicas name this server as their source).
   */
  String probeQuery();

  /** Whether any replication channel is configured, even with its threads stopped: a replica's, never a primary's. */
  boolean hasReplicationChannel(MysqlSession session) throws MysqlException;

  /** Makes the server refuse writes from every application account. */
  default void fence(MysqlSession session) throws MysqlException {
    session.execute(fenceStatement());
  }

  /**
   * Ends the waits of commits whose sessions a fence killed while they waited for a
   * semi-synchronous acknowledgement, so the fence queued behind them lands ({@link AckWaitFence});
   * returns what puts the server's settings back once it has. MariaDB ends a wait when its session
   * is killed: nothing to do. MySQL does not: the source side is switched off, then back on.
   */
  AckWaitFence.Restore releaseAckWaits(MysqlSession session) throws MysqlException;

  /** Lets applications write again. */
  default void clearReadOnly(MysqlSession session) throws MysqlException {
    session.execute(clearReadOnlyStatement());
  }

  /** Reads back whether the server now accepts application writes. */
  default boolean writable(MysqlSession session) throws MysqlException {
    return writable(session.queryFirstRow(writableQuery()).orElseThrow());
  }

  /** Every transaction the server has executed, in its own notation, for status and results. */
  default String executedGtidSet(MysqlSession session) throws MysqlException {
    return positions(session.queryFirstRow(positionsQuery()).orElseThrow()).executed();
  }

  /** The set to compare a wanted GTID set against: everything executed, by any path. */
  default GtidSet appliedGtidSet(MysqlSession session) throws MysqlException {
    return positions(session.queryFirstRow(positionsQuery()).orElseThrow()).applied();
  }

  /** Blocks for at most {@code timeout} until {@code wanted} is applied; true when it is. */
  default boolean waitForGtidSet(MysqlSession session, GtidSet wanted, Duration timeout) throws MysqlException {
    return wanted.isEmpty() || "0".equals(session.queryString(waitQuery(wanted, timeout)));
  }

  /** A GTID set's text for inlining into a statement: it was parsed, but say so rather than trust it. */
  static String literal(GtidSet set) {
    String text = set.toString();
    if (!text.matches("[0-9A-Za-z:,\\-]*")) {
      throw new IllegalArgumentException("not a GTID set literal: " + text);
    }
    return "'" + text + "'";
  }

  /** The default replication channel's state; empty when the server is not configured as a replica. */
  default Optional<ReplicaStatus> replicaStatus(MysqlSession session) throws MysqlException {
    return replicaStatus(session.queryRows(replicaStatusQuery()));
  }

  // The statements of the steps inside the write window, as text, so that a step can send several
  // as one exchange (MysqlSession.queryAll): across a WAN link each exchange is a round trip.

  /** SHOW SLAVE STATUS or SHOW REPLICA STATUS, which {@link #replicaStatus(java.util.List)} reads. */
  String replicaStatusQuery();

  /** The default channel's state from the rows of {@link #replicaStatusQuery()}; empty when there are none. */
  Optional<ReplicaStatus> replicaStatus(java.util.List<java.util.Map<String, String>> rows);

  /** The statement {@link #fence} runs. */
  String fenceStatement();

  /** The statement {@link #clearReadOnly} runs: one, with every assignment it needs. */
  String clearReadOnlyStatement();

  /** One row with {@code read_only} and {@code super_read_only} (0 where there is none), for {@link #writable(java.util.Map)}. */
  String writableQuery();

  /** Whether the row of {@link #writableQuery()} says applications can write. */
  default boolean writable(java.util.Map<String, String> row) {
    return !MysqlSession.flag(row.get("read_only")) && !MysqlSession.flag(row.get("super_read_only"));
  }

  /**
   * One row with {@code executed} (every transaction executed, as {@link #executedGtidSet} reads it)
   * and whatever else {@link #positions} needs for the applied set; what {@link #appliedGtidSet} reads.
   */
  String positionsQuery();

  /** What the row of {@link #positionsQuery()} says. */
  Positions positions(java.util.Map<String, String> row);

  /** What a server has applied (to compare a wanted set with) and executed (in its own notation, for results). */
  record Positions(GtidSet applied, String executed) {}

  /**
   * A query whose one row and column {@code waited} is 0 once {@code wanted} is applied, blocking at
   * most {@code timeout} inside the server ({@link #waitForGtidSet}); the set is inlined, it has been
   * parsed and holds no quote.
   */
  String waitQuery(GtidSet wanted, Duration timeout);

  /** The statements that end a replica's replication for good: stop it, forget the source. */
  String stopAndForgetSourceStatements();

  /**
   * Starts the stopped SQL thread so that it applies what the relay log holds, without losing any
   * of it, whether or not the IO thread runs, and at once: a configured delay ({@link
   * ReplicaStatus#delayed}) is lifted.
   */
  void applyRelayLog(MysqlSession session, ReplicaStatus status) throws MysqlException;

  /** Stops only the SQL thread; the relay log and the IO thread are left as they are. */
  void stopSqlThread(MysqlSession session) throws MysqlException;

  /**
   * Before the IO thread of a failed source's replica is stopped: lifts a configured delay where
   * only an active IO thread keeps the relay log through the change (MySQL). By default nothing:
   * MariaDB lifts it in {@link #applyRelayLog}, with the relay log position, once both threads stopped.
   */
  default void liftDelayWhileReceiving(MysqlSession session, ReplicaStatus status) throws MysqlException {}

  void stopReplica(MysqlSession session) throws MysqlException;

  /**
   * Stops replication once the IO thread is stopped and every transaction it received is applied:
   * the applier can then only be inside a transaction whose end will never arrive (the IO thread
   * stopped in the middle of it, as when the source died while sending it). Such a partial
   * transaction is rolled back; by default, {@link #stopReplica} does that at once.
   */
  default void stopReplicaDrained(MysqlSession session) throws MysqlException {
    stopReplica(session);
  }

  /** Stops only the IO thread: nothing more is received, and the SQL thread applies what the relay log holds. */
  void stopIoThread(MysqlSession session) throws MysqlException;

  /**
   * Whether the server writes the transactions it replicates to its own binary log, so that another
   * server can replicate them from it: log_bin and log_slave_updates (log_replica_updates on MySQL).
   */
  boolean logsReplicaUpdates(MysqlSession session) throws MysqlException;

  /** Forgets the source entirely, so the server no longer counts as a replica. */
  void resetReplicaAll(MysqlSession session) throws MysqlException;

  /**
   * Points the stopped replica at a new source with GTID auto-positioning. The replica asks the
   * source for everything after what it has already executed, whether it got that by replication
   * or wrote it itself as a former primary. {@code tls} disabled leaves the channel's TLS options
   * as they were (a DBA's own stay); otherwise they are all set to what the mode needs (see {@link
   * io.shipstream.failover.model.tls.ChannelTls}).
   */
  void changeSource(MysqlSession session, String host, int port, String user, String password,
      io.shipstream.failover.model.tls.ChannelTls tls) throws MysqlException;

  /** The TLS settings and the IO thread of the default channel, as the server reports them. */
  default ChannelReport channelReport(MysqlSession session) throws MysqlException {
    return ChannelReport.of(session.queryRows(replicaStatusQuery()), this instanceof MariaDbDialect);
  }

  void startReplica(MysqlSession session) throws MysqlException;

  /**
   * The source heartbeat period every {@link #changeSource} sets, in seconds: an idle source still
   * sends something this often, so a replica that heard nothing for a few seconds has lost it
   * (the watcher's {@code minSourceSilence}, 3 s by default, must stay above it). The servers'
   * default is half of slave_net_timeout / replica_net_timeout, 30 s out of the box.
   */
  int SOURCE_HEARTBEAT_PERIOD_SECONDS = 1;

  /** How the replica sees its source now (see {@link SourceView}); {@link SourceView#none()} when it is none. */
  SourceView sourceView(MysqlSession session) throws MysqlException;

  /** Starts the IO thread alone (after {@link #stopIoThread}), so it connects again with the current settings. */
  void startIoThread(MysqlSession session) throws MysqlException;

  /** The flavor's semi-synchronous names and where to read them, for {@link SemiSync}. */
  SemiSync.Names semiSyncNames();

  /**
   * Makes semi-sync available: MySQL installs its two plugins (once, idempotent); MariaDB has it
   * built in and does nothing.
   */
  void installSemiSync(MysqlSession session) throws MysqlException;

  /** How a setting is made: {@code SET PERSIST} on MySQL (survives a restart), {@code SET GLOBAL} on MariaDB. */
  String persistVariable();
}
