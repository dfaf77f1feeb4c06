package io.shipstream.failover.mysql;

/** The IO thread was still connecting to its source at the end of the wait: the source may be coming up. */
public class ReplicationNotConnectedException extends RuntimeException {
  public ReplicationNotConnectedException(String message) {
    super(message);
  }
}
