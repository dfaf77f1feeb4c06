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
 * MySQL's fence past commits waiting for a semi-synchronous acknowledgement ({@link
 * SqlDialect#fencePastAckWaits}).
 *
 * <p>On MySQL a commit that waits for an acknowledgement goes on waiting when its session is
 * killed: the semi-sync plugin's wait loop ends only on the acknowledgement, at the semi-sync
 * timeout, or when the source side is switched off, and each of those lets the commit complete.
 * Meanwhile it holds the commit lock {@code super_read_only} needs. Before this, the fence of an
 * isolated primary landed only at the semi-sync timeout, and a client that had reconnected and
 * committed meanwhile was told its commit succeeded though no replica had it (issue 33,
 * {@code FenceSemiSyncIT}). So the fence:
 *
 * <ol>
 *   <li>queues: a second session asks for {@code super_read_only} and waits for the lock. A queued
 *       global read lock blocks every write statement that starts after it (a waiting shared
 *       global lock goes ahead of new intention-exclusive requests), so from here no application
 *       session, reconnected or not, gets a write to its commit;
 *   <li>kills every application session: each client that could be waiting for a commit's answer
 *       gets an error instead (the commit is in doubt, never acknowledged);
 *   <li>switches the source side of semi-sync off ({@code SET GLOBAL}, not the persisted setting):
 *       the waits end, the killed sessions' commits complete with nobody to tell, and the queued
 *       fence lands;
 *   <li>switches it back on: the server is read-only by then, so no commit waits or goes out
 *       unacknowledged, and its settings are its own again.
 * </ol>
 *
 * <p>Nothing outlives the fence: no server state to undo later. A process that dies between 3 and
 * 4 leaves the source side off on a server that is read-only (or, if the queued fence failed too,
 * writable and asynchronous, as after a semi-sync timeout); the watcher's semi-sync keeper puts it
 * back at its next pass, and a restart does (the settings are persisted).
 */
final class AckWaitFence {
  private static final Logger LOG = LoggerFactory.getLogger(AckWaitFence.class);
  /** How often the queued fence's state is looked at while it is being queued. */
  private static final Duration POLL = Duration.ofMillis(2);

  private AckWaitFence() {}

  /** @return how many application sessions were killed */
  static int apply(MysqlSession session, int lockWaitSeconds, Set<String> spared) throws MysqlException {
    SqlDialect dialect = session.dialect();
    String sourceEnabled = "rpl_semi_sync_" + dialect.semiSyncNames().source() + "_enabled";
    long start = System.nanoTime();
    boolean wasEnabled = session.queryFlag("SELECT @@global." + sourceEnabled);
    try (MysqlSession queued = session.another()) {
      queued.changedSessionState();
      String queuedId = queued.queryString("SELECT CONNECTION_ID()");
      FutureTask<Void> fence = new FutureTask<>(() -> {
        queued.queryAll("SET SESSION lock_wait_timeout = " + lockWaitSeconds + "; " + dialect.fenceStatement());
        return null;
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
      if (!wasEnabled) {
        await(fence, lockWaitSeconds);
        return killed;
      }
      long off = System.nanoTime();
      session.execute("SET GLOBAL " + sourceEnabled + " = OFF");
      long landed;
      try {
        await(fence, lockWaitSeconds);
      } finally {
        landed = System.nanoTime();
        session.execute("SET GLOBAL " + sourceEnabled + " = ON");
      }
      LOG.warn("fence on {}: commits waited for a semi-sync acknowledgement; queued the fence, killed {} application"
          + " sessions, switched the source side off: read-only {} ms after the switch, {} ms after the first look;"
          + " back on {} ms later", session.address(), killed, Duration.ofNanos(landed - off).toMillis(),
          Duration.ofNanos(landed - start).toMillis(), Duration.ofNanos(System.nanoTime() - landed).toMillis());
      return killed;
    }
  }

  /**
   * Waits until the queued fence waits for its lock (true) or has ended (false); throws when it
   * does neither within half its lock wait, since the steps after it are safe only while it is queued.
   */
  private static boolean awaitQueued(MysqlSession session, String queuedId, FutureTask<Void> fence, int lockWaitSeconds)
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

  /** The queued fence's outcome, its error rethrown; it ends within its lock wait. */
  private static void await(FutureTask<Void> fence, int lockWaitSeconds) throws MysqlException {
    try {
      fence.get(2L * lockWaitSeconds + 1, TimeUnit.SECONDS);
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
