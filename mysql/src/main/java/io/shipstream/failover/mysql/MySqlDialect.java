package io.shipstream.failover.mysql;

import io.shipstream.failover.model.gtid.GtidSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * MySQL 8.0.23 and later (the REPLICA / SOURCE statement names). super_read_only also binds
 * accounts with SUPER, except replication threads; it implies read_only, and clearing read_only
 * clears it too, so unfencing clears both explicitly to say what it means.
 */
final class MySqlDialect implements SqlDialect {
  static final MySqlDialect INSTANCE = new MySqlDialect();

  private MySqlDialect() {}

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
        List.of(MariaDbDialect.nullToEmpty(row.get("ro")), MariaDbDialect.nullToEmpty(row.get("sro"))));
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
  public void fence(MysqlSession session) throws MysqlException {
    session.execute("SET GLOBAL super_read_only = 1");
  }

  @Override
  public void clearReadOnly(MysqlSession session) throws MysqlException {
    session.execute("SET GLOBAL super_read_only = 0");
    session.execute("SET GLOBAL read_only = 0");
  }

  @Override
  public boolean writable(MysqlSession session) throws MysqlException {
    return !session.queryFlag("SELECT @@global.read_only") && !session.queryFlag("SELECT @@global.super_read_only");
  }

  /** gtid_executed is printed with a newline after each comma; the whitespace is dropped. */
  @Override
  public String executedGtidSet(MysqlSession session) throws MysqlException {
    String value = session.queryString("SELECT @@global.gtid_executed");
    return value == null ? "" : value.replaceAll("\\s+", "");
  }

  @Override
  public GtidSet appliedGtidSet(MysqlSession session) throws MysqlException {
    return GtidSet.parse(executedGtidSet(session));
  }

  /** WAIT_FOR_EXECUTED_GTID_SET takes whole seconds; it returns 0 once the set is executed. */
  @Override
  public boolean waitForGtidSet(MysqlSession session, GtidSet wanted, Duration timeout) throws MysqlException {
    if (wanted.isEmpty()) {
      return true;
    }
    long seconds = Math.max(1, timeout.toSeconds());
    return "0".equals(session.queryString("SELECT WAIT_FOR_EXECUTED_GTID_SET(?, " + seconds + ")", wanted.toString()));
  }

  @Override
  public Optional<ReplicaStatus> replicaStatus(MysqlSession session) throws MysqlException {
    Optional<Map<String, String>> row = session.queryFirstRow("SHOW REPLICA STATUS");
    return row.map(
        r ->
            new ReplicaStatus(
                r.get("Replica_IO_Running"),
                "Yes".equalsIgnoreCase(r.get("Replica_SQL_Running")),
                r.get("Source_Host"),
                ReplicaStatus.parseInt(r.get("Source_Port")),
                r.get("Retrieved_Gtid_Set") == null ? "" : r.get("Retrieved_Gtid_Set").replaceAll("\\s+", ""),
                ReplicaStatus.parseLong(r.get("Seconds_Behind_Source")),
                r.get("Last_IO_Error"),
                r.get("Last_SQL_Error"),
                r.get("Relay_Log_File"),
                ReplicaStatus.parseLong(r.get("Relay_Log_Pos")),
                ReplicaStatus.sourceId(r.get("Source_UUID"))));
  }

  /** MySQL keeps the relay log when only the SQL thread is started, whatever the IO thread does. */
  @Override
  public void applyRelayLog(MysqlSession session, ReplicaStatus status) throws MysqlException {
    session.execute("START REPLICA SQL_THREAD");
  }

  @Override
  public void stopReplica(MysqlSession session) throws MysqlException {
    session.execute("STOP REPLICA");
  }

  @Override
  public void stopIoThread(MysqlSession session) throws MysqlException {
    session.execute("STOP REPLICA IO_THREAD");
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

  @Override
  public void resetReplicaAll(MysqlSession session) throws MysqlException {
    session.execute("RESET REPLICA ALL");
  }

  /**
   * GET_SOURCE_PUBLIC_KEY lets the replica log in with caching_sha2_password (the default) when the
   * channel is not TLS; with TLS it is not used.
   */
  @Override
  public void changeSource(MysqlSession session, String host, int port, String user, String password) throws MysqlException {
    session.execute(
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST = ?, SOURCE_PORT = ?, SOURCE_USER = ?, SOURCE_PASSWORD = ?,"
            + " SOURCE_AUTO_POSITION = 1, SOURCE_CONNECT_RETRY = 2, GET_SOURCE_PUBLIC_KEY = 1",
        host, port, user, password);
  }

  @Override
  public void startReplica(MysqlSession session) throws MysqlException {
    session.execute("START REPLICA");
  }

  @Override
  public void startIoThread(MysqlSession session) throws MysqlException {
    session.execute("START REPLICA IO_THREAD");
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
