package io.shipstream.failover.mysql;

/**
 * Where a server listens, and how log lines and messages name it (the activities name a site and
 * its address, the sidecar its local server).
 */
public record MysqlAddress(String host, int port, String label) {

  public static MysqlAddress of(String host, int port) {
    return new MysqlAddress(host, port, host + ":" + port);
  }

  @Override
  public String toString() {
    return label;
  }
}
