package io.shipstream.failover.mysql;

import java.util.Map;
import java.util.Optional;

/**
 * What the watcher's topology monitor asks a server at every poll, in two round trips: whether it
 * is writable, its executed GTID set, its identity, and its replication threads. Read-only.
 *
 * @param gtidExecuted every transaction executed (MariaDB: gtid_binlog_state, see {@link SqlDialect#probeQuery})
 * @param serverId server_id on MariaDB, server_uuid on MySQL: how its replicas name it
 * @param replicating both replication threads run
 * @param lag the lag the server reports, only while replicating
 * @param sourceServerId who it replicates from, once the IO thread has met its source
 * @param receivedGtidSet what its IO thread has received ({@link ReplicaStatus#receivedGtidSet}), running or
 *     not; null when it is no replica. With {@code gtidExecuted} it tells how much of its source's history
 *     it holds, applied or not, which is what the promotion lag limit counts.
 * @param ioState its IO thread ({@link ReplicaStatus#ioState}); null when it is no replica
 * @param lastIoError the IO thread's last error; null when it is no replica
 * @param sqlRunning whether its SQL thread runs; null when it is no replica
 * @param lastSqlError the SQL thread's last error; null when it is no replica. A candidate whose SQL thread
 *     stopped on an error is not promoted.
 */
public record ServerProbe(
    boolean readOnly, String gtidExecuted, String serverId, boolean replicating, Long lag, String sourceServerId,
    String receivedGtidSet, String ioState, String lastIoError, Boolean sqlRunning, String lastSqlError) {

  public static ServerProbe read(MysqlSession session) throws MysqlException {
    SqlDialect dialect = session.dialect();
    Map<String, String> row = session.queryFirstRow(dialect.probeQuery())
        .orElseThrow(() -> new MysqlException("the server answered its variables with no row"));
    boolean readOnly = MysqlSession.flag(row.get("read_only")) || MysqlSession.flag(row.get("super_read_only"));
    // MySQL prints long sets over several lines.
    String gtid = row.get("gtid") == null ? null : row.get("gtid").replace("\n", "");
    Optional<ReplicaStatus> replica = dialect.replicaStatus(session);
    boolean running = replica.map(r -> r.ioRunning() && r.sqlRunning()).orElse(false);
    return new ServerProbe(readOnly, gtid, row.get("server_id"), running,
        running ? replica.get().secondsBehindSource() : null, replica.map(ReplicaStatus::sourceServerId).orElse(null),
        replica.map(ReplicaStatus::receivedGtidSet).orElse(null), replica.map(ReplicaStatus::ioState).orElse(null),
        replica.map(ReplicaStatus::lastIoError).orElse(null), replica.map(ReplicaStatus::sqlRunning).orElse(null),
        replica.map(ReplicaStatus::lastSqlError).orElse(null));
  }
}
