package io.shipstream.failover.activities.mysql;

import io.shipstream.failover.model.gtid.GtidSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first half of a promotion: apply everything the replica has already received before it
 * stops being a replica. Transactions in the relay log were committed on the old primary and may
 * have been acknowledged to clients; dropping them would lose writes that are sitting right here.
 */
final class RelayLogDrain {
  private static final Logger LOG = LoggerFactory.getLogger(RelayLogDrain.class);

  private final MysqlSession session;
  private final Clock clock;
  private final Heartbeat heartbeat;

  RelayLogDrain(MysqlSession session, Clock clock, Heartbeat heartbeat) {
    this.session = session;
    this.clock = clock;
    this.heartbeat = heartbeat;
  }

  /**
   * Applies the transactions received so far: (re)starts a stopped SQL thread and waits until
   * they are applied, the SQL thread fails, or the deadline passes. Never throws for the last two:
   * promotion goes on, and what was not applied shows in the returned executed set. The IO thread
   * is left alone (MariaDB would discard the relay log if both threads stopped); anything it
   * receives meanwhile is applied or not, and the caller stops it right after.
   *
   * @return the executed GTID set after draining
   */
  String drain(ReplicaStatus status, Instant deadline) throws SQLException {
    SqlDialect dialect = session.dialect();
    GtidSet received = GtidSet.parse(status.receivedGtidSet());
    GtidSet applied = dialect.appliedGtidSet(session);
    if (MysqlActivitiesImpl.contains(applied, received)) {
      return dialect.executedGtidSet(session);
    }
    if (!status.sqlRunning()) {
      LOG.info("{}: SQL thread stopped with {} received transaction(s) unapplied; starting it",
          session.target(), received.subtract(applied).count());
      dialect.applyRelayLog(session, status);
    }
    while (!MysqlActivitiesImpl.contains(applied, received)) {
      heartbeat.beat(applied.toString());
      Duration left = Duration.between(clock.instant(), deadline);
      if (left.isNegative() || left.isZero()) {
        LOG.warn("{}: relay log not fully applied by {}: {} received transaction(s) left out",
            session.target(), deadline, received.subtract(applied).count());
        break;
      }
      ReplicaStatus now = dialect.replicaStatus(session).orElse(status);
      if (now.sqlStoppedByError()) {
        LOG.warn("{}: SQL thread stopped with an error while draining ({} transaction(s) left out): {}",
            session.target(), received.subtract(applied).count(), now.lastSqlError());
        break;
      }
      Duration slice = left.compareTo(MysqlActivitiesImpl.WAIT_SLICE) < 0 ? left : MysqlActivitiesImpl.WAIT_SLICE;
      dialect.waitForGtidSet(session, received, slice);
      applied = dialect.appliedGtidSet(session);
    }
    return dialect.executedGtidSet(session);
  }
}
