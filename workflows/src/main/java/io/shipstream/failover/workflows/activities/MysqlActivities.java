package io.shipstream.failover.workflows.activities;

import io.shipstream.failover.model.crd.ChannelCheck;
import io.shipstream.failover.model.topology.SemiSyncSettings;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.time.Instant;

/**
 * Everything the workflows do to a MySQL or MariaDB server. The flavor is detected from the
 * server, never configured. Every method is idempotent: a retry after a worker crash does the
 * same thing again or notices it was done.
 */
@ActivityInterface
public interface MysqlActivities {

  /** Reads role, replication and GTID state. Never throws for an unreachable server: says so. */
  @ActivityMethod
  ServerState inspect(MysqlTarget target);

  /**
   * Makes the server refuse writes from applications (MySQL: super_read_only=ON; MariaDB:
   * read_only=ON, which binds every user without READ_ONLY ADMIN), then returns its executed GTID
   * set, which is final from that moment on.
   */
  @ActivityMethod
  FenceResult fence(MysqlTarget target);

  /** The opposite of {@link #fence}: used by rollback, so the old primary takes writes again. */
  @ActivityMethod
  void unfence(MysqlTarget target);

  /**
   * Kills application sessions until none is left or the deadline passes, heartbeating as it goes.
   * Replication, system and the operator's own sessions are spared.
   */
  @ActivityMethod
  DrainResult killAppConnections(MysqlTarget target, Instant deadline);

  /**
   * Waits until the server has executed every transaction of {@code gtidSet}, heartbeating. Fails
   * with type {@code LagTimeout} at the deadline: an absolute time, so a retry on another worker
   * after a crash does not start the budget over.
   */
  @ActivityMethod
  String waitForGtidSet(MysqlTarget target, String gtidSet, Instant deadline);

  /**
   * The planned target's catch-up before the fence: {@link #waitForGtidSet} under a name of its own,
   * so that the history, the Temporal UI and the fault suite tell it from the lag gate after the fence.
   */
  @ActivityMethod
  String catchUpBeforeFence(MysqlTarget target, String gtidSet, Instant deadline);

  /**
   * Turns a replica into a writable primary: applies everything already received (restarting a
   * stopped SQL thread), STOP REPLICA, RESET REPLICA ALL, clears read-only and confirms it.
   * Idempotent: on a server that is already a writable non-replica it only reports.
   *
   * @param semiSync the semi-synchronous settings the server gets before it is made writable, so its
   *     first commits already wait for acknowledgements; null: its settings are left alone (semi-sync
   *     disabled, and histories written before the promotion carried them)
   * @param caughtUpFromFencedSource true only when the caller proved that nothing unapplied can be
   *     in the relay log: the server replicates directly from a source that is fenced, and the lag
   *     gate saw it execute that source's whole (frozen) executed set, so everything it ever
   *     received is applied. Then, without semi-sync settings, the promotion is one exchange with
   *     the server instead of two (no first read to decide on a relay drain); the check that the
   *     relay was applied is made afterwards and only logged. False (and histories written before
   *     the parameter existed): the relay log is checked, and drained, first.
   */
  @ActivityMethod
  PromoteResult promote(MysqlTarget target, Instant relayDrainDeadline, SemiSyncSettings semiSync,
      boolean caughtUpFromFencedSource);

  /** Points a server at a new source with GTID auto-positioning and starts replication. */
  @ActivityMethod
  void replicateFrom(MysqlTarget replica, MysqlTarget source);

  /**
   * Reads back the channel of {@code replica} a failover just pointed at {@code source}: its TLS
   * settings and whether its IO thread connected, waiting a few seconds at most for one still
   * connecting, judged against the group's replication TLS for the replica's site. Read-only. A
   * server or Secret that cannot be read is reported as such ({@link ChannelCheck#unreadable}),
   * never thrown: the runbooks record it as a warning.
   */
  @ActivityMethod
  ChannelCheck readChannel(MysqlTarget replica, MysqlTarget source);

  /**
   * Makes a replica's GTID set final: stops the IO thread, applies everything already received
   * (as {@link #promote} does, bounded by the deadline), then stops replication, keeping the
   * channel's settings. Used on an emergency failover's candidate before it is compared with the
   * other survivors, and on the survivor it catches up from. On a server that is not a replica it
   * only reports.
   */
  @ActivityMethod
  StoppedReplica drainAndStopReplica(MysqlTarget target, Instant relayDrainDeadline);

  /**
   * Catches {@code replica} up from another replica, {@code donor}, that holds transactions it
   * lacks: points it at the donor with GTID positioning (MariaDB MASTER_USE_GTID=slave_pos, MySQL
   * SOURCE_AUTO_POSITION=1), waits until it has executed {@code donorGtid}, then stops replication
   * and forgets the donor. Fails with type {@code LagTimeout} at the deadline and
   * {@code ReplicationFailed} when a replication thread stops with an error; in both cases the
   * replica is left stopped and reset, with whatever it applied.
   *
   * @return the replica's executed GTID set afterwards
   */
  @ActivityMethod
  String catchUpFrom(MysqlTarget replica, MysqlTarget donor, String donorGtid, Instant deadline);

  /**
   * The task queue that reaches this worker's kept connections: a queue of its own, which no other
   * worker polls; null when the worker has none. The planned runbook asks it beside the
   * validation's inspection (a local activity, so the worker that opened and checked the
   * connections answers) and schedules the write window's steps there, so that none of them opens
   * a connection inside the window on another worker.
   */
  @ActivityMethod
  String connectionsQueue();

  /**
   * What {@link #drainAndStopReplica} left: the executed set, the set the IO thread had received
   * (null when the server was no replica), whether it was a replica, and whether it writes the
   * transactions it replicates to its own binary log (log_slave_updates / log_replica_updates, and
   * log_bin), which another server needs in order to replicate them from it.
   */
  record StoppedReplica(String gtidExecuted, String gtidReceived, boolean wasReplica, boolean logsReplicaUpdates) {}

  /**
   * {@code fencedAt}: the worker's estimate of when the source applied the fence, the middle of the
   * exchange that carried it (null from a worker that did not record it); for the measurements only.
   */
  record FenceResult(String gtidExecuted, int appConnections, Instant fencedAt) {}

  record DrainResult(int killed, int remaining) {}

  /**
   * {@code writableAt}: the worker's estimate of when the target began to take writes, the middle
   * of the exchange that cleared its read-only flag (null from a worker that did not record it);
   * for the measurements only.
   */
  record PromoteResult(String gtidExecuted, String relayAppliedUpTo, Instant writableAt) {}
}
