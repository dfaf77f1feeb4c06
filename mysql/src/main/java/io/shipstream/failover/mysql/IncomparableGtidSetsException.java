package io.shipstream.failover.mysql;

/** A wanted GTID set is of the other flavor than the server's: the caller's mistake, which no retry mends. */
public class IncomparableGtidSetsException extends RuntimeException {
  public IncomparableGtidSetsException(IllegalArgumentException cause) {
    super(cause.getMessage(), cause);
  }
}
