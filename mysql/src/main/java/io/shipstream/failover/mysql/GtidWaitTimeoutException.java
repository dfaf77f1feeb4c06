package io.shipstream.failover.mysql;

/** A server had not applied the wanted GTID set by the deadline; {@link #missing} says how far off it was. */
public class GtidWaitTimeoutException extends RuntimeException {
  private final long missing;

  public GtidWaitTimeoutException(String message, long missing) {
    super(message);
    this.missing = missing;
  }

  /** How many of the wanted transactions the server still lacked. */
  public long missing() {
    return missing;
  }
}
