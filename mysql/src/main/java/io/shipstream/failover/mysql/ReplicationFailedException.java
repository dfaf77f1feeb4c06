package io.shipstream.failover.mysql;

/**
 * A replication thread stopped with an error (divergent GTIDs, a missing binlog, a duplicate key):
 * it will not recover by itself, so nothing is gained by trying again.
 */
public class ReplicationFailedException extends RuntimeException {
  public ReplicationFailedException(String message) {
    super(message);
  }
}
