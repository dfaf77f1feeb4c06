package io.shipstream.failover.mysql;

/**
 * A replication channel was not set up because it would have been weaker than the group's
 * replication TLS (see {@link SourceChange}). Nothing was started: the replica is stopped, and the
 * message says why.
 */
public final class ChannelTlsRefusedException extends MysqlException {
  public ChannelTlsRefusedException(String message) {
    super(message);
  }
}
