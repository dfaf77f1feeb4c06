package io.shipstream.failover.mysql;

/**
 * A promotion cleared the server's read-only flag and read it back set: something holds the server
 * read-only still (a DBA, a fence in between). The statements were accepted, so it is no refusal.
 */
public class StillReadOnlyException extends MysqlException {
  public StillReadOnlyException(MysqlAddress server) {
    super(server + " still reports read-only after clearing it");
  }
}
