package io.shipstream.failover.activities.mysql;

import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.temporal.failure.ApplicationFailure;
import java.sql.SQLException;
import java.time.Duration;

/** Confirms that replication started after CHANGE MASTER / CHANGE REPLICATION SOURCE. */
final class ReplicationStart {
  private static final Duration TIMEOUT = Duration.ofSeconds(15);
  // The IO thread usually connects within milliseconds; the first looks come soon after START,
  // and the pause grows to POLL for a source that takes longer.
  private static final Duration FIRST_POLL = Duration.ofMillis(5);
  private static final Duration POLL = Duration.ofMillis(100);

  private final MysqlSession session;
  private final Heartbeat heartbeat;

  ReplicationStart(MysqlSession session, Heartbeat heartbeat) {
    this.session = session;
    this.heartbeat = heartbeat;
  }

  /**
   * Waits until both threads run. A thread that stopped with an error (divergent GTIDs, a missing
   * binlog, a duplicate key) will not recover by itself: {@code ReplicationFailed}, not retryable.
   * An IO thread still connecting at the end is {@code Unreachable}: the source may be coming up.
   */
  void awaitRunning(MysqlTarget replica, MysqlTarget source) throws SQLException {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    Duration pause = FIRST_POLL;
    while (true) {
      ReplicaStatus status =
          session.dialect().replicaStatus(session).orElseThrow(() -> new SQLException("replication is not configured"));
      if (status.ioRunning() && status.sqlRunning()) {
        return;
      }
      if (status.ioStoppedByError() || status.sqlStoppedByError()) {
        throw ApplicationFailure.newNonRetryableFailure(
            replica + " cannot replicate from " + source + ": "
                + (status.ioStoppedByError() ? "IO thread: " + status.lastIoError() : "SQL thread: " + status.lastSqlError()),
            MysqlFailures.REPLICATION_FAILED);
      }
      if (System.nanoTime() > deadline) {
        throw ApplicationFailure.newFailure(
            replica + " has not connected to " + source + " within " + TIMEOUT + " (IO thread " + status.ioState()
                + (status.lastIoError() == null || status.lastIoError().isBlank() ? "" : ": " + status.lastIoError()) + ")",
            MysqlFailures.UNREACHABLE);
      }
      heartbeat.beat(status.ioState());
      MysqlActivitiesImpl.sleep(pause);
      pause = pause.multipliedBy(2).compareTo(POLL) > 0 ? POLL : pause.multipliedBy(2);
    }
  }
}
