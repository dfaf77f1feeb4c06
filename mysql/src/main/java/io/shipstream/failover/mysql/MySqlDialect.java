package io.shipstream.failover.mysql;

import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.model.tls.ChannelTls;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * MySQL 8.0.23 and later (the REPLICA / SOURCE statement names). super_read_only also binds
 * accounts with SUPER, except replication threads; it implies read_only, and clearing read_only
 * clears it too, so unfencing clears both explicitly to say what it means.
 */
final class MySqlDialect extends AbstractSqlDialect {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(MySqlDialect.class);

  static final MySqlDialect INSTANCE = new MySqlDialect();

  private MySqlDialect() {
    super(new Words("Replica", "Source", "CHANGE REPLICATION SOURCE TO"));
  }

  @Override
  public String flavor() {
    return "MySQL";
  }

  @Override
  public ReadOnlyOrigin readOnlyOrigin(MysqlSession session) throws MysqlException {
    Map<String, String> row = session.queryFirstRow("SELECT @@global.read_only AS read_only, "
        + "(SELECT VARIABLE_SOURCE FROM performance_schema.variables_info WHERE VARIABLE_NAME = 'read_only') AS ro, "
        + "(SELECT VARIABLE_SOURCE FROM performance_schema.variables_info WHERE VARIABLE_NAME = 'super_read_only')"
        + " AS sro").orElseThrow();
    // super_read_only implies read_only on MySQL, so read_only alone says whether applications can write.
    return ReadOnlyOrigin.classify(MysqlSession.flag(row.get("read_only")),
        List.of(nullToEmpty(row.get("ro")), nullToEmpty(row.get("sro"))));
  }

  /** gtid_executed is printed over several lines for a long set. */
  @Override
  public String probeQuery() {
    return "SELECT @@read_only AS read_only, @@super_read_only AS super_read_only, @@gtid_executed AS gtid,"
        + " @@server_uuid AS server_id";
  }

  @Override
  public boolean hasReplicationChannel(MysqlSession session) throws MysqlException {
    return !session.queryRows("SHOW REPLICA STATUS").isEmpty();
  }

  @Override
  public String fenceStatement() {
    return "SET GLOBAL super_read_only = 1";
  }

  /**
   * A killed session's commit goes on waiting for its acknowledgement here: the semi-sync plugin's
   * wait ends only on the acknowledgement, at the timeout, or when the source side is switched
   * off, which this does ({@code SET GLOBAL}: the persisted setting stays). Each lets the commit
   * complete; its client is gone. Switched back on once the fence landed.
   */
  @Override
  public AckWaitFence.Restore releaseAckWaits(MysqlSession session) throws MysqlException {
    String enabled = "rpl_semi_sync_" + semiSyncNames().source() + "_enabled";
    if (!session.queryFlag("SELECT @@global." + enabled)) {
      return AckWaitFence.Restore.NOTHING;
    }
    session.execute("SET GLOBAL " + enabled + " = OFF");
    return () -> session.execute("SET GLOBAL " + enabled + " = ON");
  }

  /** Both in one statement, in this order (clearing read_only alone would clear super_read_only too). */
  @Override
  public String clearReadOnlyStatement() {
    return "SET GLOBAL super_read_only = 0, GLOBAL read_only = 0";
  }

  @Override
  public String writableQuery() {
    return "SELECT @@global.read_only AS read_only, @@global.super_read_only AS super_read_only";
  }

  /** gtid_executed is printed with a newline after each comma; the whitespace is dropped. */
  @Override
  public String positionsQuery() {
    return "SELECT @@global.gtid_executed AS executed";
  }

  @Override
  public Positions positions(Map<String, String> row) {
    String executed = withoutWhitespace(row.get("executed"));
    return new Positions(GtidSet.parse(executed), executed);
  }

  /** WAIT_FOR_EXECUTED_GTID_SET takes whole seconds; it returns 0 once the set is executed. */
  @Override
  public String waitQuery(GtidSet wanted, Duration timeout) {
    if (wanted.isEmpty()) {
      return "SELECT 0 AS waited";
    }
    long seconds = Math.max(1, timeout.toSeconds());
    return "SELECT WAIT_FOR_EXECUTED_GTID_SET(" + SqlDialect.literal(wanted) + ", " + seconds + ") AS waited";
  }

  @Override
  String receivedGtids(Map<String, String> row) {
    return withoutWhitespace(row.get("Retrieved_Gtid_Set"));
  }

  @Override
  String sourceIdColumn() {
    return "Source_UUID";
  }

  /** GTID sets are printed with a newline after each comma; the whitespace is dropped. */
  private static String withoutWhitespace(String value) {
    return value == null ? "" : value.replaceAll("\\s+", "");
  }

  /**
   * MySQL keeps the relay log when only the SQL thread is started, whatever the IO thread does. A
   * SOURCE_DELAY is lifted first while the IO thread is still active (running or retrying): the
   * source is gone, and waiting out the delay would leave what the relay log holds unapplied past
   * the drain's deadline. With both threads stopped, CHANGE REPLICATION SOURCE TO purges the relay
   * log (seen on 9.7: Retrieved_Gtid_Set empty after it, 695 received transactions gone), and an
   * auto-positioned channel cannot name a relay log position to keep it: the delay is then kept,
   * and {@link #liftDelayWhileReceiving} must have run before the IO thread was stopped.
   */
  @Override
  public void applyRelayLog(MysqlSession session, ReplicaStatus status) throws MysqlException {
    if (status.delayed() && status.ioActive()) {
      session.execute("CHANGE REPLICATION SOURCE TO SOURCE_DELAY = 0");
    } else if (status.delayed()) {
      LOG.warn("{}: both replication threads are stopped, so its SOURCE_DELAY of {} s is kept (changing it would "
          + "purge the relay log)", session.address(), status.sqlDelay());
    }
    session.execute("START REPLICA SQL_THREAD");
  }

  /** Lifts SOURCE_DELAY while the IO thread still runs, so that the relay log is kept. */
  @Override
  public void liftDelayWhileReceiving(MysqlSession session, ReplicaStatus status) throws MysqlException {
    if (!status.delayed() || !status.ioActive()) {
      return;
    }
    LOG.info("{}: applies {} s late; lifting SOURCE_DELAY before its IO thread stops", session.address(),
        status.sqlDelay());
    session.execute("STOP REPLICA SQL_THREAD");
    session.execute("CHANGE REPLICATION SOURCE TO SOURCE_DELAY = 0");
    session.execute("START REPLICA SQL_THREAD");
  }

  /**
   * The applier threads of the replication channel: the coordinator and its workers ({@code system
   * user}, not the receiver, whose states name the source; the IO thread is stopped already).
   */
  static final String APPLIER_THREADS_QUERY = "SELECT ID FROM information_schema.PROCESSLIST"
      + " WHERE USER = 'system user' AND COALESCE(STATE, '') NOT LIKE '%source%'";

  /**
   * MySQL's multi-threaded applier (the default since 8.0.27), asked to stop inside a transaction
   * whose end never arrives, holds STOP REPLICA for 60 s before giving up on it (measured on 9.7:
   * the IO thread stopped while a large transaction streamed; STOP REPLICA did not return within
   * the client's 30 s). Killing the applier threads ends it at once, rolling that partial
   * transaction back; everything received whole is applied already, so nothing else is undone.
   */
  @Override
  public void stopReplicaDrained(MysqlSession session) throws MysqlException {
    // This session is the admin account's, never a system user's.
    AppSessions.kill(session, session.queryRows(APPLIER_THREADS_QUERY).stream()
        .map(row -> Long.parseLong(row.get("ID"))).toList());
    stopReplica(session);
  }

  /** log_replica_updates from 8.0.26; the older name before that. */
  @Override
  public boolean logsReplicaUpdates(MysqlSession session) throws MysqlException {
    if (!session.queryFlag("SELECT @@global.log_bin")) {
      return false;
    }
    try {
      return session.queryFlag("SELECT @@global.log_replica_updates");
    } catch (MysqlException e) {
      return session.queryFlag("SELECT @@global.log_slave_updates");
    }
  }

  /**
   * GET_SOURCE_PUBLIC_KEY lets the replica log in with caching_sha2_password (the default) when the
   * channel is not TLS; with TLS it is off, the password travelling inside TLS (a key asked for
   * over plaintext could be a man in the middle's).
   */
  @Override
  String gtidPositioning() {
    return "SOURCE_AUTO_POSITION = 1";
  }

  @Override
  String loginOptions(ChannelTls tls) {
    return ", GET_SOURCE_PUBLIC_KEY = " + (tls.mode().encrypted() ? 0 : 1);
  }

  /**
   * One row of performance_schema.replication_connection_status, which answers with the
   * performance schema off too. The times are read as UNIX_TIMESTAMP (a zero timestamp, nothing
   * received yet, is 0) beside the server's own NOW(6). With the performance schema off the server
   * still counts heartbeats and names the last queued transaction but leaves its timestamps at zero
   * (measured on 9.7.4), and as a busy source sends no heartbeats the heartbeat alone would make a
   * busy source look silent: the silence is then unknown, and the progress (received set, last
   * queued transaction, heartbeat count) is compared across reads instead.
   */
  static final String SOURCE_VIEW_QUERY = "SELECT SERVICE_STATE AS state, SOURCE_UUID AS source_uuid,"
      + " LAST_ERROR_NUMBER AS errno, LAST_ERROR_MESSAGE AS error, COUNT_RECEIVED_HEARTBEATS AS heartbeats,"
      + " RECEIVED_TRANSACTION_SET AS received, LAST_QUEUED_TRANSACTION AS queued,"
      + " UNIX_TIMESTAMP(LAST_HEARTBEAT_TIMESTAMP) AS heartbeat_at,"
      + " UNIX_TIMESTAMP(LAST_QUEUED_TRANSACTION_END_QUEUE_TIMESTAMP) AS queued_at,"
      + " UNIX_TIMESTAMP(LAST_ERROR_TIMESTAMP) AS error_at, UNIX_TIMESTAMP(NOW(6)) AS now_at"
      + " FROM performance_schema.replication_connection_status WHERE CHANNEL_NAME = ''";

  @Override
  public SourceView sourceView(MysqlSession session) throws MysqlException {
    Optional<Map<String, String>> row;
    try {
      row = session.queryFirstRow(SOURCE_VIEW_QUERY);
    } catch (MysqlException e) {
      row = Optional.empty();
    }
    if (row.isPresent()) {
      Map<String, String> r = row.get();
      String state = switch (nullToEmpty(r.get("state")).toUpperCase(java.util.Locale.ROOT)) {
        case "ON" -> "Yes";
        case "CONNECTING" -> "Connecting";
        default -> "No";
      };
      String received = withoutWhitespace(r.get("received"));
      String queued = nullToEmpty(r.get("queued"));
      return new SourceView(true, state, ReplicaStatus.parseInt(r.get("errno")), r.get("error"),
          ReplicaStatus.sourceId(r.get("source_uuid")), silence(queued, r.get("heartbeat_at"), r.get("queued_at"),
              r.get("now_at")),
          received + " " + queued + " heartbeats " + nullToEmpty(r.get("heartbeats")),
          true, age(r.get("error_at"), r.get("now_at")));
    }
    Optional<Map<String, String>> status = session.queryFirstRow("SHOW REPLICA STATUS");
    if (status.isEmpty()) {
      return SourceView.none();
    }
    Map<String, String> r = status.get();
    String received = withoutWhitespace(r.get("Retrieved_Gtid_Set"));
    // Without heartbeat counts an unchanged position may be an idle source: it proves nothing.
    // Last_IO_Error_Timestamp is in the server's time zone, without one: left unknown.
    return new SourceView(true, r.get("Replica_IO_Running"), ReplicaStatus.parseInt(r.get("Last_IO_Errno")),
        r.get("Last_IO_Error"), ReplicaStatus.sourceId(r.get("Source_UUID")), null,
        received + " " + r.get("Read_Source_Log_Pos"), false, null);
  }

  /** See {@link #SOURCE_VIEW_QUERY}: null when the server does not tell. */
  static Duration silence(String queued, String heartbeatAt, String queuedAt, String nowAt) {
    java.math.BigDecimal heartbeat = seconds(heartbeatAt);
    java.math.BigDecimal transaction = seconds(queuedAt);
    java.math.BigDecimal now = seconds(nowAt);
    if (now == null || heartbeat == null || transaction == null) {
      return null;
    }
    if (!queued.isEmpty() && transaction.signum() == 0) {
      return null;
    }
    java.math.BigDecimal last = heartbeat.max(transaction);
    if (last.signum() == 0) {
      return null;
    }
    long micros = now.subtract(last).movePointRight(6).longValue();
    return micros < 0 ? Duration.ZERO : Duration.ofNanos(micros * 1000);
  }

  /**
   * How long before {@code nowAt} the error at {@code errorAt} happened, both read from the same
   * server (seconds since the epoch); null without an error (a zero timestamp) or without either.
   */
  static Duration age(String errorAt, String nowAt) {
    java.math.BigDecimal error = seconds(errorAt);
    java.math.BigDecimal now = seconds(nowAt);
    if (error == null || now == null || error.signum() == 0) {
      return null;
    }
    long micros = now.subtract(error).movePointRight(6).longValue();
    return micros < 0 ? Duration.ZERO : Duration.ofNanos(micros * 1000);
  }

  private static java.math.BigDecimal seconds(String value) {
    try {
      return value == null || value.isBlank() ? null : new java.math.BigDecimal(value.strip());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  @Override
  public SemiSync.Names semiSyncNames() {
    return new SemiSync.Names("source", "replica", "performance_schema.global_variables",
        "performance_schema.global_status");
  }

  /**
   * INSTALL PLUGIN records the plugin in mysql.plugin, so it loads at every later start; a plugin
   * installed already (error 1125, "Function already exists") is fine. super_read_only refuses
   * that write, so on a fenced server it is lifted for the two statements and put back, while
   * read_only stays on: applications stay refused throughout. A server configured with
   * plugin-load-add (README) never gets here.
   */
  @Override
  public void installSemiSync(MysqlSession session) throws MysqlException {
    List<String[]> missing = new java.util.ArrayList<>();
    for (String[] plugin : new String[][] {{"rpl_semi_sync_source", "semisync_source.so"},
        {"rpl_semi_sync_replica", "semisync_replica.so"}}) {
      if (session.queryString("SELECT PLUGIN_STATUS FROM information_schema.PLUGINS WHERE PLUGIN_NAME = ?",
          plugin[0]) == null) {
        missing.add(plugin);
      }
    }
    if (missing.isEmpty()) {
      return;
    }
    boolean superReadOnly = session.queryFlag("SELECT @@global.super_read_only");
    if (superReadOnly) {
      session.execute("SET GLOBAL read_only = 1");
      session.execute("SET GLOBAL super_read_only = 0");
    }
    try {
      for (String[] plugin : missing) {
        try {
          session.execute("INSTALL PLUGIN " + plugin[0] + " SONAME '" + plugin[1] + "'");
        } catch (MysqlException e) {
          if (e.errorCode() != ER_UDF_EXISTS) {
            throw e;
          }
        }
      }
    } finally {
      if (superReadOnly) {
        session.execute("SET GLOBAL super_read_only = 1");
      }
    }
  }

  /** "Function '%s' already exists": the plugin was installed meanwhile. */
  private static final int ER_UDF_EXISTS = 1125;

  @Override
  public String persistVariable() {
    return "SET PERSIST";
  }
}
