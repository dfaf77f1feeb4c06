package io.shipstream.failover.mysql;

/**
 * Makes a server a replica of another with GTID auto-positioning: the replication channel stopped,
 * pointed at the new source and started. The failover activities use it to attach a server to the
 * new primary, the watcher to rejoin a returning old primary; each decides what to check around it.
 */
public final class SourceChange {
  private SourceChange() {}

  /**
   * Points the server of {@code session} at {@code source}, logging in with the replication account
   * of {@code sourceLogin}, and starts replication; it does not wait for the threads to run (see
   * {@link ReplicationStart}).
   */
  public static void replicateFrom(MysqlSession session, MysqlAddress source, Credentials sourceLogin)
      throws MysqlException {
    SqlDialect dialect = session.dialect();
    dialect.stopReplica(session);
    dialect.changeSource(
        session, source.host(), source.port(), sourceLogin.replicationUsername(), sourceLogin.replicationPassword());
    dialect.startReplica(session);
  }
}
