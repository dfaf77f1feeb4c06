package io.shipstream.failover.mysql;

/**
 * The replication state of a server's default replication channel, read from SHOW SLAVE STATUS
 * (MariaDB) or SHOW REPLICA STATUS (MySQL) and named the same for both. {@code receivedGtidSet} is
 * what the IO thread has written to the relay log: MariaDB's Gtid_IO_Pos, MySQL's Retrieved_Gtid_Set.
 * {@code relayLogFile} and {@code relayLogPos} are where the SQL thread will continue in the relay log.
 * {@code sourceServerId} names the source once the IO thread has met it: MariaDB by its server_id
 * (0 before), MySQL by its server_uuid; null until then. {@code sqlDelay} is the channel's configured
 * delay in seconds (MASTER_DELAY / SOURCE_DELAY, both flavors' SQL_Delay); null when unknown.
 */
public record ReplicaStatus(
    String ioState,
    boolean sqlRunning,
    String sourceHost,
    Integer sourcePort,
    String receivedGtidSet,
    Long secondsBehindSource,
    String lastIoError,
    String lastSqlError,
    String relayLogFile,
    Long relayLogPos,
    String sourceServerId,
    Long sqlDelay) {

  /** Without the delay: unknown. */
  public ReplicaStatus(String ioState, boolean sqlRunning, String sourceHost, Integer sourcePort,
      String receivedGtidSet, Long secondsBehindSource, String lastIoError, String lastSqlError, String relayLogFile,
      Long relayLogPos, String sourceServerId) {
    this(ioState, sqlRunning, sourceHost, sourcePort, receivedGtidSet, secondsBehindSource, lastIoError, lastSqlError,
        relayLogFile, relayLogPos, sourceServerId, null);
  }

  /** Whether the SQL thread applies each transaction only once it is {@code sqlDelay} seconds old. */
  public boolean delayed() {
    return sqlDelay != null && sqlDelay > 0;
  }

  public boolean ioRunning() {
    return "Yes".equalsIgnoreCase(ioState);
  }

  /** Running or still trying to connect: in both cases it may write more to the relay log. */
  public boolean ioActive() {
    return ioRunning() || "Connecting".equalsIgnoreCase(ioState);
  }

  public boolean sqlStoppedByError() {
    return !sqlRunning && lastSqlError != null && !lastSqlError.isBlank();
  }

  public boolean ioStoppedByError() {
    return !ioActive() && lastIoError != null && !lastIoError.isBlank();
  }

  static String sourceId(String value) {
    return value == null || value.isBlank() || value.strip().equals("0") ? null : value.strip();
  }

  static Integer parseInt(String value) {
    return value == null || value.isBlank() ? null : Integer.valueOf(value.strip());
  }

  static Long parseLong(String value) {
    return value == null || value.isBlank() ? null : Long.valueOf(value.strip());
  }
}
