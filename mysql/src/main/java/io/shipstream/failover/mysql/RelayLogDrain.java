package io.shipstream.failover.mysql;

import io.shipstream.failover.model.gtid.GtidSet;
import java.time.Clock;
import java.time.Instant;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first half of a promotion: apply everything the replica has already received before it
 * stops being a replica. Transactions in the relay log were committed on the old primary and may
 * have been acknowledged to clients; dropping them would lose writes that are sitting right here.
 */
public final class RelayLogDrain {
  private static final Logger LOG = LoggerFactory.getLogger(RelayLogDrain.class);

  private final MysqlSession session;
  private final Clock clock;
  private final Consumer<Object> beat;

  /** {@code beat}: told what is applied so far while the drain waits, as an activity heartbeats. */
  public RelayLogDrain(MysqlSession session, Clock clock, Consumer<Object> beat) {
    this.session = session;
    this.clock = clock;
    this.beat = beat;
  }

  /**
   * Applies the transactions received so far: (re)starts a stopped SQL thread, lifting a configured
   * delay (stopping the thread first when it runs with one), and waits until
   * they are applied, the SQL thread fails, or the deadline passes. Never throws for the last two:
   * promotion goes on, and what was not applied shows in the returned executed set. The IO thread
   * is left alone (MariaDB would discard the relay log if both threads stopped); anything it
   * receives meanwhile is applied or not, and the caller stops it right after.
   *
   * @return the executed GTID set after draining
   */
  public String drain(ReplicaStatus read, Instant deadline) throws MysqlException {
    ReplicaStatus status = read;
    SqlDialect dialect = session.dialect();
    GtidSet received = GtidSet.parse(status.receivedGtidSet());
    GtidSet applied = dialect.appliedGtidSet(session);
    if (GtidWait.contains(applied, received)) {
      return dialect.executedGtidSet(session);
    }
    if (status.sqlRunning() && status.delayed()) {
      // A delayed replica (MASTER_DELAY / SOURCE_DELAY) applies each transaction only once it is
      // that old: the drain would end at its deadline with acknowledged writes left in the relay
      // log, which the promotion then throws away. The SQL thread is stopped so the delay can be
      // lifted, and restarted below.
      LOG.info("{}: applies {} s late with {} received transaction(s) unapplied; lifting the delay",
          session.address(), status.sqlDelay(), received.subtract(applied).count());
      dialect.stopSqlThread(session);
      status = dialect.replicaStatus(session).orElse(read);
    }
    ReplicaStatus before = status;
    if (!status.sqlRunning()) {
      LOG.info("{}: SQL thread stopped with {} received transaction(s) unapplied; starting it",
          session.address(), received.subtract(applied).count());
      dialect.applyRelayLog(session, status);
    }
    GtidWait.Ended ended = GtidWait.slices(session, received, deadline, clock, beat, now -> {
      ReplicaStatus current = dialect.replicaStatus(session).orElse(before);
      if (current.sqlStoppedByError()) {
        LOG.warn("{}: SQL thread stopped with an error while draining ({} transaction(s) left out): {}",
            session.address(), received.subtract(now).count(), current.lastSqlError());
        return false;
      }
      return true;
    });
    if (!ended.complete() && !clock.instant().isBefore(deadline)) {
      LOG.warn("{}: relay log not fully applied by {}: {} received transaction(s) left out",
          session.address(), deadline, ended.missing());
    }
    return dialect.executedGtidSet(session);
  }
}
