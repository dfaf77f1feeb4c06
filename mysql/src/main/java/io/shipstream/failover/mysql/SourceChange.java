package io.shipstream.failover.mysql;

import io.shipstream.failover.model.tls.ChannelTls;

/**
 * Makes a server a replica of another with GTID auto-positioning: the replication channel stopped,
 * pointed at the new source and started. The failover activities use it to attach a server to the
 * new primary, the watcher to rejoin a returning old primary; each decides what to check around it.
 *
 * <p>Every channel it points gets the group's replication TLS ({@code tls}, the replica's own
 * site's files). Where the group asks for TLS, a channel that would not carry it is never started:
 * the settings are checked before the change (a verifying mode needs a CA file) and read back
 * after it, before the IO thread is started, so not one byte goes to the source in plaintext.
 */
public final class SourceChange {
  private SourceChange() {}

  /** As {@link #replicateFrom(MysqlSession, MysqlAddress, Credentials, ChannelTls)}, without TLS. */
  public static void replicateFrom(MysqlSession session, MysqlAddress source, Credentials sourceLogin)
      throws MysqlException {
    replicateFrom(session, source, sourceLogin, ChannelTls.NONE);
  }

  /**
   * Points the server of {@code session} at {@code source}, logging in with the replication account
   * of {@code sourceLogin}, over a channel with {@code tls}, and starts replication; it does not
   * wait for the threads to run (see {@link ReplicationStart}).
   *
   * @throws ChannelTlsRefusedException when the channel would be weaker than {@code tls}
   */
  public static void replicateFrom(MysqlSession session, MysqlAddress source, Credentials sourceLogin, ChannelTls tls)
      throws MysqlException {
    SqlDialect dialect = session.dialect();
    refuseWeaker(session, source, tls);
    dialect.stopReplica(session);
    pointAt(session, source, sourceLogin, tls);
    dialect.startReplica(session);
  }

  /**
   * Points the stopped replica of {@code session} at {@code source} with {@code tls} and reads the
   * channel back; the replica catching up from a donor uses it too.
   *
   * @throws ChannelTlsRefusedException when the server reports a channel weaker than {@code tls}
   */
  static void pointAt(MysqlSession session, MysqlAddress source, Credentials sourceLogin, ChannelTls tls)
      throws MysqlException {
    refuseWeaker(session, source, tls);
    SqlDialect dialect = session.dialect();
    dialect.changeSource(
        session, source.host(), source.port(), sourceLogin.replicationUsername(), sourceLogin.replicationPassword(),
        tls);
    if (tls.mode().encrypted()) {
      ChannelReport report = dialect.channelReport(session);
      if (!report.satisfies(tls)) {
        throw new ChannelTlsRefusedException(session.address() + ": the channel to " + source + " reads back as "
            + report.describe() + ", weaker than the group's replication TLS " + tls.mode().display()
            + "; it is not started");
      }
    }
  }

  private static void refuseWeaker(MysqlSession session, MysqlAddress source, ChannelTls tls)
      throws ChannelTlsRefusedException {
    if (tls.mode().verifiesCa() && (tls.caFile() == null || tls.caFile().isBlank())) {
      throw new ChannelTlsRefusedException("refusing to point " + session.address() + " at " + source + ": the group's"
          + " replication TLS is " + tls.mode().display() + " but names no CA file for this site; a channel without"
          + " it would not check the source");
    }
  }
}
