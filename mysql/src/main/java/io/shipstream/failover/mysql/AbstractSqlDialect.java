package io.shipstream.failover.mysql;

import io.shipstream.failover.model.tls.ChannelTls;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What the two flavors write alike but for their words: the replication statements (STOP SLAVE /
 * STOP REPLICA), the columns of the replica status (Master_Host / Source_Host) and the CHANGE
 * statement's options (MASTER_HOST / SOURCE_HOST). Each flavor's class names its words and keeps
 * what differs in substance: how a channel is positioned, where the received set and the source's
 * id are read, and every procedure of its own.
 */
abstract class AbstractSqlDialect implements SqlDialect {
  /**
   * A flavor's words for replication. {@code replica}: "Slave" or "Replica", and {@code source}:
   * "Master" or "Source", as the status columns spell them (upper case in statements);
   * {@code changeSourceTo}: "CHANGE MASTER TO" or "CHANGE REPLICATION SOURCE TO".
   */
  record Words(String replica, String source, String changeSourceTo) {}

  private final Words words;

  AbstractSqlDialect(Words words) {
    this.words = words;
  }

  /** The CHANGE option that positions the channel by GTID. */
  abstract String gtidPositioning();

  /** Options the CHANGE statement adds after the connect retry: empty, or each starting with ", ". */
  abstract String loginOptions(ChannelTls tls);

  /** The GTID set the IO thread has received, from a row of the replica status. */
  abstract String receivedGtids(Map<String, String> row);

  /** The status column that names the source server ({@link ReplicaStatus#sourceId}). */
  abstract String sourceIdColumn();

  private String statementWord() {
    return words.replica().toUpperCase(Locale.ROOT);
  }

  @Override
  public String replicaStatusQuery() {
    return "SHOW " + statementWord() + " STATUS";
  }

  @Override
  public String stopAndForgetSourceStatements() {
    return "STOP " + statementWord() + "; RESET " + statementWord() + " ALL";
  }

  @Override
  public Optional<ReplicaStatus> replicaStatus(List<Map<String, String>> rows) {
    String replica = words.replica();
    String source = words.source();
    return rows.stream().findFirst().map(r -> new ReplicaStatus(
        r.get(replica + "_IO_Running"),
        "Yes".equalsIgnoreCase(r.get(replica + "_SQL_Running")),
        r.get(source + "_Host"),
        ReplicaStatus.parseInt(r.get(source + "_Port")),
        receivedGtids(r),
        ReplicaStatus.parseLong(r.get("Seconds_Behind_" + source)),
        r.get("Last_IO_Error"),
        r.get("Last_SQL_Error"),
        r.get("Relay_Log_File"),
        ReplicaStatus.parseLong(r.get("Relay_Log_Pos")),
        ReplicaStatus.sourceId(r.get(sourceIdColumn())),
        ReplicaStatus.parseLong(r.get("SQL_Delay"))));
  }

  @Override
  public void stopSqlThread(MysqlSession session) throws MysqlException {
    session.execute("STOP " + statementWord() + " SQL_THREAD");
  }

  @Override
  public void stopReplica(MysqlSession session) throws MysqlException {
    session.execute("STOP " + statementWord());
  }

  @Override
  public void stopIoThread(MysqlSession session) throws MysqlException {
    session.execute("STOP " + statementWord() + " IO_THREAD");
  }

  @Override
  public void resetReplicaAll(MysqlSession session) throws MysqlException {
    session.execute("RESET " + statementWord() + " ALL");
  }

  @Override
  public void startReplica(MysqlSession session) throws MysqlException {
    session.execute("START " + statementWord());
  }

  @Override
  public void startIoThread(MysqlSession session) throws MysqlException {
    session.execute("START " + statementWord() + " IO_THREAD");
  }

  /**
   * A channel without TLS names the source, the login, the positioning, the retry and the
   * heartbeat; with TLS, also the files and the identity check, each set so that none of a DBA's
   * earlier ones survives (an empty name clears one).
   */
  @Override
  public void changeSource(MysqlSession session, String host, int port, String user, String password, ChannelTls tls)
      throws MysqlException {
    if (!tls.mode().encrypted()) {
      session.execute(changeSourceStatement(tls), host, port, user, password);
      return;
    }
    session.execute(changeSourceStatement(tls), host, port, user, password, orEmpty(tls.caFileForMode()),
        orEmpty(tls.certFile()), orEmpty(tls.keyFile()));
  }

  /** The statement {@link #changeSource} runs, with a parameter for each value it is given. */
  String changeSourceStatement(ChannelTls tls) {
    String option = words.source().toUpperCase(Locale.ROOT);
    String statement =
        words.changeSourceTo() + " " + option + "_HOST = ?, " + option + "_PORT = ?, " + option + "_USER = ?, "
            + option + "_PASSWORD = ?, " + gtidPositioning() + ", " + option + "_CONNECT_RETRY = 2" + loginOptions(tls)
            + ", " + option + "_HEARTBEAT_PERIOD = " + SOURCE_HEARTBEAT_PERIOD_SECONDS;
    if (!tls.mode().encrypted()) {
      return statement;
    }
    return statement + ", " + option + "_SSL = 1, " + option + "_SSL_CA = ?, " + option + "_SSL_CERT = ?, " + option
        + "_SSL_KEY = ?, " + option + "_SSL_VERIFY_SERVER_CERT = " + (tls.mode().verifiesIdentity() ? 1 : 0);
  }

  static String orEmpty(String value) {
    return value == null ? "" : value;
  }

  static String nullToEmpty(String value) {
    return value == null ? "" : value.strip();
  }
}
