package io.shipstream.failover.mysql;

import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.model.gtid.MariaDbGtidSet;
import io.shipstream.failover.model.tls.ChannelTls;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * MariaDB (10.5 and later). read_only binds every account without READ_ONLY ADMIN (SUPER before
 * 10.11), which the operator's account has and applications must not. With log_slave_updates,
 * gtid_binlog_pos holds every transaction the server has executed, replicated or its own.
 */
final class MariaDbDialect extends AbstractSqlDialect {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(MariaDbDialect.class);

  static final MariaDbDialect INSTANCE = new MariaDbDialect();

  private MariaDbDialect() {
    super(new Words("Slave", "Master", "CHANGE MASTER TO"));
  }

  @Override
  public String flavor() {
    return "MariaDB";
  }

  @Override
  public ReadOnlyOrigin readOnlyOrigin(MysqlSession session) throws MysqlException {
    Map<String, String> row =
        session.queryFirstRow("SELECT @@global.read_only AS read_only, (SELECT GLOBAL_VALUE_ORIGIN "
            + "FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = 'READ_ONLY') AS origin").orElseThrow();
    return ReadOnlyOrigin.classify(MysqlSession.flag(row.get("read_only")), List.of(nullToEmpty(row.get("origin"))));
  }

  /**
   * gtid_binlog_state, not gtid_binlog_pos. The position keeps only the newest GTID of each domain,
   * so once a new primary has written, an old primary's last GTID (same domain, its own server id)
   * no longer appears in it and looks divergent; the state keeps the newest GTID of every server
   * id, which is what the writer-aware comparison (GtidHistory) needs.
   */
  @Override
  public String probeQuery() {
    return "SELECT @@read_only AS read_only, 0 AS super_read_only, @@global.gtid_binlog_state AS gtid,"
        + " @@server_id AS server_id";
  }

  @Override
  public boolean hasReplicationChannel(MysqlSession session) throws MysqlException {
    return !session.queryRows("SHOW ALL SLAVES STATUS").isEmpty();
  }

  @Override
  public String fenceStatement() {
    return "SET GLOBAL read_only = 1";
  }

  /** A killed session's commit stops waiting for its acknowledgement here (measured: {@code FenceSemiSyncIT}). */
  @Override
  public AckWaitFence.Restore releaseAckWaits(MysqlSession session) {
    return AckWaitFence.Restore.NOTHING;
  }

  @Override
  public String clearReadOnlyStatement() {
    return "SET GLOBAL read_only = 0";
  }

  @Override
  public String writableQuery() {
    return "SELECT @@global.read_only AS read_only, 0 AS super_read_only";
  }

  /**
   * The binlog position and the slave position together: the same thing with log_slave_updates,
   * but a replica without it only advances gtid_slave_pos. Executed is the binlog position.
   */
  @Override
  public String positionsQuery() {
    return "SELECT @@global.gtid_binlog_pos AS executed, @@global.gtid_slave_pos AS slave_pos";
  }

  @Override
  public Positions positions(Map<String, String> row) {
    String binlog = nullToEmpty(row.get("executed"));
    String slave = nullToEmpty(row.get("slave_pos"));
    String both = binlog.isEmpty() ? slave : slave.isEmpty() ? binlog : binlog + "," + slave;
    return new Positions(MariaDbGtidSet.parse(both), binlog);
  }

  private static MariaDbGtidSet positions(MysqlSession session) throws MysqlException {
    return (MariaDbGtidSet) INSTANCE.appliedGtidSet(session);
  }

  /** MASTER_GTID_WAIT takes one GTID per domain: the newest of each. An empty set is applied already. */
  @Override
  public String waitQuery(GtidSet wanted, Duration timeout) {
    if (wanted.isEmpty()) {
      return "SELECT 0 AS waited";
    }
    MariaDbGtidSet position = ((MariaDbGtidSet) wanted).perDomainMax();
    String seconds = String.format(Locale.ROOT, "%.3f", Math.max(0.01, timeout.toMillis() / 1000.0));
    return "SELECT MASTER_GTID_WAIT(" + SqlDialect.literal(position) + ", " + seconds + ") AS waited";
  }

  @Override
  String receivedGtids(Map<String, String> row) {
    return nullToEmpty(row.get("Gtid_IO_Pos"));
  }

  @Override
  String sourceIdColumn() {
    return "Master_Server_Id";
  }

  /**
   * With GTID positioning, MariaDB throws the relay log away when a replication thread starts while
   * both are stopped, and starts over from gtid_slave_pos: fine when the source can send it all
   * again, a loss when the source is dead. So when the IO thread is stopped too, the channel is
   * switched to file positioning at the SQL thread's relay log position first (CHANGE MASTER keeps
   * the relay log when given RELAY_LOG_FILE/POS). Promotion resets the channel right after, so the
   * switch does not outlive it.
   */
  @Override
  public void applyRelayLog(MysqlSession session, ReplicaStatus status) throws MysqlException {
    if (!status.ioActive() && status.relayLogFile() != null && status.relayLogPos() != null) {
      // A MASTER_DELAY is lifted in the same statement: the source is gone, and waiting out the
      // delay would leave what the relay log holds unapplied past the drain's deadline.
      session.execute("CHANGE MASTER TO MASTER_USE_GTID = no, RELAY_LOG_FILE = ?, RELAY_LOG_POS = "
          + status.relayLogPos() + (status.delayed() ? ", MASTER_DELAY = 0" : ""), status.relayLogFile());
    } else if (status.delayed()) {
      // CHANGE MASTER needs both threads stopped, and a bare one would throw the relay log away.
      LOG.warn("{}: its IO thread runs, so its MASTER_DELAY of {} s is kept while its relay log is applied",
          session.address(), status.sqlDelay());
    }
    session.execute("START SLAVE SQL_THREAD");
  }

  @Override
  public boolean logsReplicaUpdates(MysqlSession session) throws MysqlException {
    return session.queryFlag("SELECT @@global.log_bin") && session.queryFlag("SELECT @@global.log_slave_updates");
  }

  /**
   * A former primary has its own transactions in gtid_binlog_pos but an old gtid_slave_pos, and
   * MASTER_USE_GTID=slave_pos would ask the new source to replay them. So the slave position is
   * first moved to the newest GTID the server has in each domain. It must be one GTID per domain:
   * gtid_binlog_pos lists one per domain and server id, which gtid_slave_pos refuses.
   */
  @Override
  public void changeSource(MysqlSession session, String host, int port, String user, String password, ChannelTls tls)
      throws MysqlException {
    session.execute("SET GLOBAL gtid_slave_pos = ?", positions(session).perDomainMax().toString());
    super.changeSource(session, host, port, user, password, tls);
  }

  @Override
  String gtidPositioning() {
    return "MASTER_USE_GTID = slave_pos";
  }

  @Override
  String loginOptions(ChannelTls tls) {
    return "";
  }

  /**
   * SHOW ALL SLAVES STATUS, which (unlike SHOW SLAVE STATUS) has Slave_received_heartbeats; the
   * default connection's row. MariaDB 10.11 keeps no time of the last event received, so the
   * silence is left unknown and the progress counts heartbeats; nor of the last IO error, so its
   * age is unknown too.
   */
  @Override
  public SourceView sourceView(MysqlSession session) throws MysqlException {
    for (Map<String, String> r : session.queryRows("SHOW ALL SLAVES STATUS")) {
      if (!nullToEmpty(r.get("Connection_name")).isEmpty()) {
        continue;
      }
      String progress = nullToEmpty(r.get("Master_Log_File")) + ":" + nullToEmpty(r.get("Read_Master_Log_Pos")) + " "
          + nullToEmpty(r.get("Gtid_IO_Pos")) + " heartbeats " + nullToEmpty(r.get("Slave_received_heartbeats"));
      return new SourceView(true, r.get("Slave_IO_Running"), ReplicaStatus.parseInt(r.get("Last_IO_Errno")),
          r.get("Last_IO_Error"), ReplicaStatus.sourceId(r.get("Master_Server_Id")), null, progress, true, null);
    }
    return SourceView.none();
  }

  @Override
  public SemiSync.Names semiSyncNames() {
    return new SemiSync.Names("master", "slave", "information_schema.GLOBAL_VARIABLES",
        "information_schema.GLOBAL_STATUS");
  }

  /** Built into the server since 10.3. */
  @Override
  public void installSemiSync(MysqlSession session) {}

  /** MariaDB has no SET PERSIST: the server's configuration must say the same (README). */
  @Override
  public String persistVariable() {
    return "SET GLOBAL";
  }
}
