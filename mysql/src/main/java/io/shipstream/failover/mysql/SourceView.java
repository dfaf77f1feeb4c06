package io.shipstream.failover.mysql;

import java.time.Duration;

/**
 * How a replica sees its source right now, for the watcher's question "is the primary dead, or is
 * only my link to it cut?" ({@link SqlDialect#sourceView}). Read-only, one round trip where the
 * flavor allows it.
 *
 * <ul>
 *   <li>MySQL: {@code performance_schema.replication_connection_status} of the default channel:
 *       {@code SERVICE_STATE}, the last error and its age ({@code LAST_ERROR_TIMESTAMP}),
 *       {@code COUNT_RECEIVED_HEARTBEATS}, and the age of
 *       the newer of {@code LAST_HEARTBEAT_TIMESTAMP} and {@code LAST_QUEUED_TRANSACTION_END_QUEUE_TIMESTAMP}
 *       against the server's own {@code NOW(6)}, so no clock is compared with another. Where the table
 *       has no row (the performance schema is off), {@code SHOW REPLICA STATUS} instead, and the age
 *       is unknown.</li>
 *   <li>MariaDB 10.11: {@code SHOW ALL SLAVES STATUS}, the default connection's row. MariaDB keeps
 *       no time of the last event, and a source sends heartbeats only while it has nothing else to
 *       send (measured: {@code Slave_received_heartbeats} stands still under writes), so the age is
 *       unknown here and {@link #progress} says what has been received (position, GTID and heartbeat
 *       count): two reads with the same progress prove a silence at least as long as the time between
 *       them.</li>
 * </ul>
 *
 * @param configured whether a replication channel exists at all
 * @param ioState "Yes", "No" or "Connecting" (MySQL's ON/OFF/CONNECTING mapped to these)
 * @param lastIoErrno the IO thread's last error number; null or 0 when none
 * @param lastIoError the IO thread's last error; null or blank when none
 * @param sourceServerId the source as the channel knows it (MariaDB Master_Server_Id, MySQL
 *     Source_UUID); null before the IO thread met it
 * @param silence how long ago the last event or heartbeat arrived, by the replica's own clock; null
 *     when the server does not say
 * @param progress what has been received so far, for comparing two reads; null when unknown
 * @param progressCountsHeartbeats whether {@code progress} changes with each heartbeat too: only then
 *     does an unchanged progress prove silence from an idle source
 * @param lastIoErrorAge how long ago the last IO error happened, by the replica's own clock (MySQL's
 *     {@code LAST_ERROR_TIMESTAMP} against its {@code NOW(6)}); null when the server does not say
 *     (MariaDB records no time for it, MySQL without an error or without its timestamp)
 */
public record SourceView(
    boolean configured,
    String ioState,
    Integer lastIoErrno,
    String lastIoError,
    String sourceServerId,
    Duration silence,
    String progress,
    boolean progressCountsHeartbeats,
    Duration lastIoErrorAge) {

  /** A server with no replication channel. */
  public static SourceView none() {
    return new SourceView(false, null, null, null, null, null, null, false, null);
  }

  public boolean ioRunning() {
    return "Yes".equalsIgnoreCase(ioState);
  }
}
