package io.shipstream.failover.workflows.activities;

/**
 * A snapshot of one server. {@code gtidExecuted} is in the server's own notation (MySQL
 * {@code uuid:1-5} or MariaDB {@code 0-1-42}); {@code replicating} means both replication threads run.
 * {@code lastSqlError} is the SQL thread's last error (null or blank: none, or no replica; null also in
 * histories recorded before it was read).
 */
public record ServerState(
    String site,
    boolean reachable,
    String error,
    String flavor,
    String version,
    boolean readOnly,
    boolean replicaConfigured,
    boolean ioThreadRunning,
    boolean sqlThreadRunning,
    String sourceHost,
    Integer sourcePort,
    String gtidExecuted,
    String gtidReceived,
    Long secondsBehindSource,
    int appConnections,
    String lastSqlError) {

  /** A snapshot that does not say the SQL thread's last error. */
  public ServerState(String site, boolean reachable, String error, String flavor, String version, boolean readOnly,
      boolean replicaConfigured, boolean ioThreadRunning, boolean sqlThreadRunning, String sourceHost,
      Integer sourcePort, String gtidExecuted, String gtidReceived, Long secondsBehindSource, int appConnections) {
    this(site, reachable, error, flavor, version, readOnly, replicaConfigured, ioThreadRunning, sqlThreadRunning,
        sourceHost, sourcePort, gtidExecuted, gtidReceived, secondsBehindSource, appConnections, null);
  }

  public boolean replicating() {
    return replicaConfigured && ioThreadRunning && sqlThreadRunning;
  }

  public static ServerState unreachable(String site, String error) {
    return new ServerState(site, false, error, null, null, false, false, false, false, null, null, null, null, null, 0);
  }
}
