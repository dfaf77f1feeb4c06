package io.shipstream.failover.mysql;

import java.time.Duration;
import java.util.function.Consumer;

/** Confirms that replication started after CHANGE MASTER / CHANGE REPLICATION SOURCE. */
public final class ReplicationStart {
  private static final Duration TIMEOUT = Duration.ofSeconds(15);
  // The IO thread usually connects within milliseconds: for the first QUICK_FOR the looks come
  // every QUICK_POLL (a planned failover's Succeeded waits for its old primary's rejoin, and a pause
  // of 5 then 10 ms cost up to twice the connect), then the pause grows from FIRST_POLL to POLL for
  // a source that takes longer.
  private static final Duration QUICK_POLL = Duration.ofMillis(2);
  private static final Duration QUICK_FOR = Duration.ofMillis(30);
  private static final Duration FIRST_POLL = Duration.ofMillis(5);
  private static final Duration POLL = Duration.ofMillis(100);

  private final MysqlSession session;
  private final Consumer<Object> beat;

  /** {@code beat}: told the IO thread's state while waiting, as an activity heartbeats. */
  public ReplicationStart(MysqlSession session, Consumer<Object> beat) {
    this.session = session;
    this.beat = beat;
  }

  /**
   * Waits until both threads run. A thread that stopped with an error (divergent GTIDs, a missing
   * binlog, a duplicate key) will not recover by itself: {@link ReplicationFailedException}. An IO
   * thread still connecting at the end is {@link ReplicationNotConnectedException}: the source may be
   * coming up.
   */
  public void awaitRunning(MysqlAddress replica, MysqlAddress source) throws MysqlException {
    long started = System.nanoTime();
    long deadline = started + TIMEOUT.toNanos();
    Duration pause = FIRST_POLL;
    while (true) {
      ReplicaStatus status =
          session.dialect().replicaStatus(session)
              .orElseThrow(() -> new MysqlException("replication is not configured"));
      if (status.ioRunning() && status.sqlRunning()) {
        return;
      }
      if (status.ioStoppedByError() || status.sqlStoppedByError()) {
        throw new ReplicationFailedException(
            replica + " cannot replicate from " + source + ": "
                + (status.ioStoppedByError() ? "IO thread: " + status.lastIoError()
                    : "SQL thread: " + status.lastSqlError()));
      }
      if (System.nanoTime() > deadline) {
        throw new ReplicationNotConnectedException(
            replica + " has not connected to " + source + " within " + TIMEOUT + " (IO thread " + status.ioState()
                + (status.lastIoError() == null || status.lastIoError().isBlank() ? "" : ": " + status.lastIoError())
                + ")");
      }
      beat.accept(status.ioState());
      if (System.nanoTime() - started < QUICK_FOR.toNanos()) {
        sleep(QUICK_POLL);
        continue;
      }
      sleep(pause);
      pause = pause.multipliedBy(2).compareTo(POLL) > 0 ? POLL : pause.multipliedBy(2);
    }
  }

  /** Sleeps; an interrupt ends the step (also {@link AppSessions#drainWhileFenced}'s pause between passes). */
  static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
