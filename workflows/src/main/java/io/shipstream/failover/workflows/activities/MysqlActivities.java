package io.shipstream.failover.workflows.activities;

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
   * Turns a replica into a writable primary: applies everything already received (restarting a
   * stopped SQL thread), STOP REPLICA, RESET REPLICA ALL, clears read-only and confirms it.
   * Idempotent: on a server that is already a writable non-replica it only reports.
   */
  @ActivityMethod
  PromoteResult promote(MysqlTarget target, Instant relayDrainDeadline);

  /** Points a server at a new source with GTID auto-positioning and starts replication. */
  @ActivityMethod
  void replicateFrom(MysqlTarget replica, MysqlTarget source);

  record FenceResult(String gtidExecuted, int appConnections) {}

  record DrainResult(int killed, int remaining) {}

  record PromoteResult(String gtidExecuted, String relayAppliedUpTo) {}
}
