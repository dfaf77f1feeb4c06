package io.shipstream.failover.mysql;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fence of a server on which commits wait for a semi-synchronous acknowledgement, without
 * waiting behind them and without any of them, or any commit sent meanwhile, being acknowledged to
 * a client ({@link Fence#apply}).
 *
 * <p>A commit waiting for an acknowledgement holds the commit lock the fence needs. Killing its
 * session first and fencing after leaves a gap in which the application reconnects and commits
 * again, and that commit waits in turn: measured on MariaDB in the region drill (the fence waited
 * out its 2 s lock wait behind it, landing past a 4 s semi-sync timeout). On MySQL a killed
 * session's commit even goes on waiting (see {@link SqlDialect#releaseAckWaits}): the fence of an
 * isolated primary landed only at the semi-sync timeout, and a commit the writer had sent after
 * reconnecting was acknowledged though no replica had it (issue 33, {@code FenceSemiSyncIT}). So:
 *
 * <ol>
 *   <li>the fence is queued first: a second session asks for read-only and waits for the lock. A
 *       queued global read lock blocks every write statement that starts after it (a waiting
 *       shared global lock goes ahead of new intention-exclusive requests), so from here no
 *       application session, reconnected or not, gets a write to its commit;
 *   <li>every application session is killed: each client that could be waiting for a commit's
 *       answer gets an error instead (the commit is in doubt, never acknowledged);
 *   <li>the flavor ends the killed commits' waits ({@link SqlDialect#releaseAckWaits}: MariaDB's
 *       kill did; MySQL switches the source side off), they complete with nobody to tell, and the
 *       queued fence lands;
 *   <li>the flavor puts its settings back (MySQL: the source side on): the server is read-only by
 *       then, so no commit waits or goes out unacknowledged.
 * </ol>
 *
 * <p>Not {@code offline_mode}, which would also keep reconnecting clients out: measured on MySQL
 * 9.7, it ends the replicas' binlog dump sessions and refuses their reconnection (a replication
 * account has no CONNECTION_ADMIN), so a planned switchover's target could not catch up behind
 * it; it spares application accounts with CONNECTION_ADMIN or SUPER, which super_read_only binds;
 * and it is server state a crash between setting and clearing it would leave behind.
 *
 * <p>Nothing outlives the fence. A process that dies between 3 and 4 leaves MySQL's source side
 * off on a server that is read-only (or, if the queued fence failed too, writable and asynchronous
 * as after a semi-sync timeout); the watcher's semi-sync keeper puts it back at its next pass, and
 * a restart does (the settings are persisted).
 */
final class AckWaitFence {
  private static final Logger LOG = LoggerFactory.getLogger(AckWaitFence.class);
  /**
   * The least the queued fence may wait for its lock: the steps after it must fit, MySQL's release
   * the longest of them (its switch-off returns, and the waits end, 1 ms to 1.0 s after it is sent,
   * measured in {@code FenceSemiSyncIT}, the region drill and the region-outage benchmark). Should the queued fence give up after the release, commits would go out
   * asynchronous until the restore; a fence that waits longer only makes a slow attempt.
   */
  static final int MIN_QUEUED_LOCK_WAIT_SECONDS = 3;
  /** How often the queued fence's state is looked at while it is being queued. */
  private static final Duration POLL = Duration.ofMillis(2);

  /** What puts the server's settings back once the fence landed. */
  @FunctionalInterface
  interface Restore {
    Restore NOTHING = () -> {};

    void run() throws MysqlException;
  }

  private AckWaitFence() {}

  /**
   * @param callerLockWaitSeconds the caller's lock wait; the queued fence waits as long, at least
   *     {@link #MIN_QUEUED_LOCK_WAIT_SECONDS}, and its session's socket timeout is a second longer
   *     if the caller's is not. The whole ends within it, plus the second connection and the restore
   * @return how many application sessions were killed
   */
  static int apply(MysqlSession session, int callerLockWaitSeconds, Set<String> spared) throws MysqlException {
    SqlDialect dialect = session.dialect();
    long start = System.nanoTime();
    int lockWaitSeconds = Math.max(callerLockWaitSeconds, MIN_QUEUED_LOCK_WAIT_SECONDS);
    Timeouts own = session.timeouts();
    Duration socket = Duration.ofSeconds(lockWaitSeconds + 1L);
    Timeouts queuedTimeouts = new Timeouts(own.connect(), own.socket().compareTo(socket) > 0 ? own.socket() : socket);
    try (MysqlSession queued = session.another(queuedTimeouts)) {
      queued.changedSessionState();
      String queuedId = queued.queryString("SELECT CONNECTION_ID()");
      FutureTask<Long> fence = new FutureTask<>(() -> {
        queued.queryAll("SET SESSION lock_wait_timeout = " + lockWaitSeconds + "; " + dialect.fenceStatement());
        return System.nanoTime();
      });
      Thread fencing = new Thread(fence, "fence " + session.address());
      fencing.setDaemon(true);
      fencing.start();
      if (!awaitQueued(session, queuedId, fence, lockWaitSeconds)) {
        // Landed by itself: the waits ended (an acknowledgement came) before it queued.
        await(fence, lockWaitSeconds);
        return 0;
      }
      int killed = AppSessions.kill(session, AppSessions.list(session, spared));
      long releasing = System.nanoTime();
      Restore restore = dialect.releaseAckWaits(session);
      long released = System.nanoTime();
      long landed;
      try {
        landed = await(fence, lockWaitSeconds);
      } finally {
        restore.run();
      }
      LOG.warn("fence on {}: commits waited for a semi-sync acknowledgement; queued the fence, killed {} application"
          + " sessions, ended their waits: read-only {} ms after that began ({} ms after the first look), the"
          + " release statement took {} ms", session.address(), killed, millis(landed - releasing),
          millis(landed - start), millis(released - releasing));
      return killed;
    }
  }

  private static long millis(long nanos) {
    return Duration.ofNanos(nanos).toMillis();
  }

  /**
   * Waits until the queued fence waits for its lock (true) or has ended (false); throws when it
   * does neither within half its lock wait, since the steps after it are safe only while it is queued.
   */
  private static boolean awaitQueued(MysqlSession session, String queuedId, FutureTask<Long> fence, int lockWaitSeconds)
      throws MysqlException {
    long deadline = System.nanoTime() + Duration.ofSeconds(lockWaitSeconds).toNanos() / 2;
    while (System.nanoTime() < deadline) {
      if (fence.isDone()) {
        return false;
      }
      String state = session.queryString(
          "SELECT STATE FROM information_schema.PROCESSLIST WHERE ID = " + Long.parseLong(queuedId));
      if (state != null && state.startsWith("Waiting for") && state.endsWith("lock")) {
        return true;
      }
      try {
        Thread.sleep(POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new MysqlException("fence on " + session.address() + " interrupted while it queued");
      }
    }
    throw new MysqlException("fence on " + session.address() + ": the read-only request did not queue for its lock"
        + " within " + lockWaitSeconds / 2.0 + " s; commits waiting for a semi-sync acknowledgement were left alone");
  }

  /** When the queued fence landed (System.nanoTime), its error rethrown; it ends within its lock wait. */
  private static long await(FutureTask<Long> fence, int lockWaitSeconds) throws MysqlException {
    try {
      return fence.get(2L * lockWaitSeconds + 1, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof MysqlException cause) {
        throw cause;
      }
      throw new IllegalStateException(e.getCause());
    } catch (TimeoutException e) {
      throw new MysqlException("the queued fence did not end within its lock wait");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MysqlException("interrupted while the queued fence waited");
    }
  }
}
