package io.shipstream.failover.workflows.activities;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Everything the workflows do to the session store that moves with the primary. The flavor
 * (dragonfly, redis, valkey) is detected from each server's INFO, never configured, because a
 * spec can be wrong and the commands differ. Every method is idempotent. The activity types are
 * prefixed (DragonflyInspect, DragonflyPromote, ...) so that they never clash with MySQL's.
 */
@ActivityInterface(namePrefix = "Dragonfly")
public interface DragonflyActivities {

  /** Role, replication link and offset. Never throws for an unreachable server: says so. */
  @ActivityMethod
  StoreState inspect(StoreTarget store);

  /**
   * The master's replication offset now, or -1 when the server reports none. Fails with type
   * {@code StoreNotMaster} when the server is not a master.
   */
  @ActivityMethod
  long captureOffset(StoreTarget master);

  /**
   * Waits, heartbeating, until the replica has processed everything up to {@code offset} with its
   * link to the master up (with offset -1: until its link is up and its initial sync done). Fails
   * with type {@code DragonflySyncTimeout} at the deadline, an absolute time so that a retry on
   * another worker does not start the budget over.
   */
  @ActivityMethod
  SyncResult waitForOffset(StoreTarget replica, long offset, Instant deadline);

  /**
   * The planned promotion, which loses nothing: Dragonfly {@code REPLTAKEOVER} on the replica,
   * Redis/Valkey {@code FAILOVER TO} on the master; both stop the master's writes until the replica
   * has everything and give up after {@code timeout}. Fails with type
   * {@code DragonflyPromotionFailed}; on a target that already took over it only reports.
   */
  @ActivityMethod
  Promotion promote(StoreTarget target, StoreTarget master, Duration timeout);

  /**
   * {@code REPLICAOF NO ONE}: the replica becomes a master on its own, whatever the master (dead
   * or alive) had that it had not received is not on it. Fails with type
   * {@code DragonflyPromotionFailed}.
   */
  @ActivityMethod
  Promotion promoteAlone(StoreTarget target);

  /** Makes {@code replica} a replica of {@code master} unless it already is one. */
  @ActivityMethod
  void replicateFrom(StoreTarget replica, StoreTarget master);

  /**
   * Disconnects every application client ({@code CLIENT KILL TYPE normal}), so that they
   * reconnect through the active Service to the new master; returns how many were killed.
   */
  @ActivityMethod
  long killClients(StoreTarget store);

  /**
   * The emergency promotion: inspects every store, promotes the freshest reachable replica
   * ({@code preferredSite} on a tie, see {@code FreshestStore}) with {@code REPLICAOF NO ONE} and
   * points every other reachable store at it. When no replica is reachable but a master is, that
   * master is kept. Fails with type {@code DragonflyPromotionFailed} when no store answers.
   */
  @ActivityMethod
  Promotion promoteFreshestReplica(List<StoreTarget> stores, String preferredSite);

  /** How the sync wait ended: the replica's offset then, and the master's it had to reach. */
  record SyncResult(long replicaOffset, long masterOffset) {}

  /**
   * Who is master now and how it got there: {@code method} is REPLTAKEOVER, FAILOVER,
   * REPLICAOF NO ONE or NONE (an existing master was kept).
   */
  record Promotion(String site, String flavor, String method, String message) {}
}
