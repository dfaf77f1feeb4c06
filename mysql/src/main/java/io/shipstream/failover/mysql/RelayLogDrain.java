package io.shipstream.failover.mysql;

import io.shipstream.failover.model.gtid.GtidSet;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first half of a promotion: apply everything the replica has already received before it
 * stops being a replica. Transactions in the relay log were committed on the old primary and may
 * have been acknowledged to clients; dropping them would lose writes that are sitting right here.
 * {@link #drainAndStop} is the whole of it for a failed source's replica, {@link Promotion} drains
 * on its own when it must.
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

  /**
   * What {@link #drainAndStop} left: the executed set, the received set (null when the server was
   * no replica), whether it was one, and whether it logs what it replicates (see {@link
   * SqlDialect#logsReplicaUpdates}).
   */
  public record Stopped(String gtidExecuted, String gtidReceived, boolean wasReplica, boolean logsReplicaUpdates) {}

  /**
   * Ends a failed source's replica's replication once everything it received is applied: a delay
   * lifted while the IO thread still runs (where only that keeps the relay log), the IO thread
   * stopped, the relay log drained ({@link #drain}, until {@code deadline}), then replication
   * stopped. A server that is no replica is left as it is.
   */
  public Stopped drainAndStop(Instant deadline) throws MysqlException {
    SqlDialect dialect = session.dialect();
    boolean logsReplicaUpdates = dialect.logsReplicaUpdates(session);
    Optional<ReplicaStatus> replica = dialect.replicaStatus(session);
    if (replica.isEmpty()) {
      return new Stopped(dialect.appliedGtidSet(session).toString(), null, false, logsReplicaUpdates);
    }
    // A delay lifted while the IO thread still runs, where only that keeps the relay log (MySQL).
    if (replica.get().delayed() && replica.get().ioActive()) {
      dialect.liftDelayWhileReceiving(session, replica.get());
      replica = dialect.replicaStatus(session);
    }
    // The IO thread first: from then on the relay log holds everything this server will ever
    // get from the failed primary, so the set returned below is final.
    if (replica.isPresent() && replica.get().ioActive()) {
      dialect.stopIoThread(session);
      replica = dialect.replicaStatus(session);
    }
    ReplicaStatus status = replica.orElseThrow(() -> new MysqlException("replication vanished while stopping it"));
    String applied = drain(status, deadline);
    if (!status.ioActive() && GtidWait.contains(GtidSet.parse(applied), GtidSet.parse(status.receivedGtidSet()))) {
      // All that arrived whole is applied: what the applier may still hold is a partial transaction.
      dialect.stopReplicaDrained(session);
    } else {
      dialect.stopReplica(session);
    }
    String received = dialect.replicaStatus(session).orElse(status).receivedGtidSet();
    Stopped result = new Stopped(dialect.appliedGtidSet(session).toString(), received, true, logsReplicaUpdates);
    LOG.info("stopped replication on {}: executed {}, received {}", session.address(), result.gtidExecuted(),
        received);
    return result;
  }
}
