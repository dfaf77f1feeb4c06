package io.shipstream.failover.mysql;

/**
 * Where a server listens, how log lines and messages name it (the activities name a site and its
 * address, the sidecar its local server), and its flavor when the site declares one: null means
 * the server's greeting tells (see {@link MysqlConnections}).
 */
public record MysqlAddress(String host, int port, String label, ServerFlavor flavor) {

  public MysqlAddress(String host, int port, String label) {
    this(host, port, label, null);
  }

  public static MysqlAddress of(String host, int port) {
    return new MysqlAddress(host, port, host + ":" + port);
  }

  /** The same server, declared to be of {@code flavor} (null: detected). */
  public MysqlAddress withFlavor(ServerFlavor flavor) {
    return new MysqlAddress(host, port, label, flavor);
  }

  @Override
  public String toString() {
    return label;
  }
}
