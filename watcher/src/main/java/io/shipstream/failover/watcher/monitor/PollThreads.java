package io.shipstream.failover.watcher.monitor;

import io.shipstream.failover.runtime.DaemonThreads;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The threads the monitor's polls run on: a pool that grows with the polls running at once, up to
 * {@link #MAX_POLL_THREADS}, and shrinks again when they are idle (a hand-off, as a cached thread
 * pool: the thread last idle takes the next poll, so surplus threads die after {@link
 * #POLL_THREAD_IDLE}). A poll is bounded by its JDBC timeouts ({@code min(pollInterval, 2s)}), and
 * a poll blocked on a dead or black-holed site holds its own thread, never one another site's poll
 * waits for: in a region outage, where a third of a fleet's sites block for their whole timeout at
 * once, the healthy sites are still polled on time (the fleet benchmark, {@code ./temporal-dev/benchmark
 * fleet}, measures it; a fixed pool of 8 made them wait). Only with more than {@link
 * #MAX_POLL_THREADS} polls blocked at once do the rest wait for a free thread.
 */
final class PollThreads {
  /**
   * The most polls running at once: a dead site's poll blocks for at most its timeout, no longer
   * than its interval, so a region outage of this many sites still leaves every site polled on time.
   */
  static final int MAX_POLL_THREADS = 1024;
  /** A poll thread idle this long ends: the pool shrinks back after an outage. */
  static final Duration POLL_THREAD_IDLE = Duration.ofSeconds(30);

  private PollThreads() {}

  /**
   * A hand-off to an idle thread or a new one up to {@link #MAX_POLL_THREADS}; beyond that the
   * scheduler waits for the next thread to come free, so polls start in the order they fell due.
   */
  static ThreadPoolExecutor start() {
    ThreadPoolExecutor pool = new ThreadPoolExecutor(0, MAX_POLL_THREADS, POLL_THREAD_IDLE.toMillis(),
        TimeUnit.MILLISECONDS, new SynchronousQueue<>(), DaemonThreads.named("topology-poll"));
    pool.setRejectedExecutionHandler((poll, executor) -> {
      if (executor.isShutdown()) {
        throw new RejectedExecutionException("the monitor stopped");
      }
      try {
        executor.getQueue().put(poll);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new RejectedExecutionException("the monitor stopped");
      }
    });
    return pool;
  }
}
