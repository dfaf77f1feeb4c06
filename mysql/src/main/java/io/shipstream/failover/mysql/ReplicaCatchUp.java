package io.shipstream.failover.mysql;

import io.shipstream.failover.model.gtid.GtidSet;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Catches an emergency failover's candidate up from a surviving replica that received more of the
 * dead primary's transactions than the candidate did. With GTID positioning the candidate asks the
 * donor for exactly what it lacks; the donor serves it from its own binary log, which is why it
 * must log what it replicates. Afterwards the candidate is no replica of anyone, ready to promote.
 */
public final class ReplicaCatchUp {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaCatchUp.class);

  private final MysqlSession session;
  private final Clock clock;
  private final Consumer<Object> beat;

  /** {@code beat}: told what is applied so far while the catch-up waits, as an activity heartbeats. */
  public ReplicaCatchUp(MysqlSession session, Clock clock, Consumer<Object> beat) {
    this.session = session;
    this.clock = clock;
    this.beat = beat;
  }

  /**
   * Replicates from {@code donor} until {@code wanted} is applied. The channel is stopped and
   * forgotten on the way out whatever happened, so a failed catch-up never leaves the candidate
   * attached to the donor: what it applied meanwhile stays.
   *
   * @return the executed set afterwards
   * @throws GtidWaitTimeoutException when {@code wanted} is not applied by {@code deadline}
   * @throws ReplicationFailedException when a replication thread stopped with an error
   */
  public String run(MysqlAddress donor, Credentials donorLogin, GtidSet wanted, Instant deadline)
      throws MysqlException {
    return run(donor, donorLogin, io.shipstream.failover.model.tls.ChannelTls.NONE, wanted, deadline);
  }

  /** As above, over a channel with {@code tls} (the replica's site's files; see {@link SourceChange}). */
  public String run(MysqlAddress donor, Credentials donorLogin, io.shipstream.failover.model.tls.ChannelTls tls,
      GtidSet wanted, Instant deadline) throws MysqlException {
    SqlDialect dialect = session.dialect();
    forgetSource();
    try {
      GtidSet applied = dialect.appliedGtidSet(session);
      if (GtidWait.contains(applied, wanted)) {
        return dialect.executedGtidSet(session);
      }
      LOG.info("{}: catching up {} transaction(s) from {}", session.address(), wanted.subtract(applied).count(), donor);
      SourceChange.pointAt(session, donor, donorLogin, tls);
      dialect.startReplica(session);
      GtidWait.Ended ended = GtidWait.slices(session, wanted, deadline, clock, beat, now -> {
        failOnReplicationError(donor);
        return true;
      });
      if (!ended.complete()) {
        throw new GtidWaitTimeoutException(session.address() + " is still missing " + ended.missing()
            + " transaction(s) of " + donor + "'s " + wanted + " at the deadline " + deadline + "; it has executed "
            + ended.applied(), ended.missing());
      }
      applied = ended.applied();
      LOG.info("{}: caught up from {} to {}", session.address(), donor, applied);
      return dialect.executedGtidSet(session);
    } finally {
      try {
        forgetSource();
      } catch (MysqlException e) {
        // The connection is likely gone; promotion stops and resets the channel again anyway.
        LOG.warn("{}: could not detach from {} after catching up: {}", session.address(), donor, e.getMessage());
      }
    }
  }

  /** Stops and forgets the replication channel, if there is one. */
  private void forgetSource() throws MysqlException {
    SqlDialect dialect = session.dialect();
    if (dialect.replicaStatus(session).isPresent()) {
      dialect.stopReplica(session);
      dialect.resetReplicaAll(session);
    }
  }

  /** A thread stopped by an error (the donor lacks what is asked, a duplicate key) does not recover by itself. */
  private void failOnReplicationError(MysqlAddress donor) throws MysqlException {
    Optional<ReplicaStatus> status = session.dialect().replicaStatus(session);
    if (status.isEmpty()) {
      throw new MysqlException("replication from " + donor + " is no longer configured");
    }
    ReplicaStatus s = status.get();
    if (s.ioStoppedByError() || s.sqlStoppedByError()) {
      throw new ReplicationFailedException(session.address() + " cannot catch up from " + donor + ": "
          + (s.ioStoppedByError() ? "IO thread: " + s.lastIoError() : "SQL thread: " + s.lastSqlError()));
    }
  }
}
