package io.shipstream.failover.watcher;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The one thread a leader-only handler ({@link PlannedFailoverRequests}, {@link DryRunRequests},
 * {@link GroupFinalizer}) works on: its tasks in the order given, a retry after a pause, and
 * nothing once closed. A handler is closed when this replica stops leading; what it drops then,
 * the next leader does, as the informers hand it every group.
 */
final class HandlerQueue implements AutoCloseable {
  private final ScheduledExecutorService thread;

  HandlerQueue(String name) {
    this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
  }

  /** Runs {@code task} after everything submitted before it; nothing once closed. */
  void submit(Runnable task) {
    try {
      thread.execute(task);
    } catch (RejectedExecutionException e) {
      // Closed on losing leadership while the informer still delivered: the new leader handles it.
    }
  }

  /** Runs {@code task} once {@code delayMillis} have passed; nothing once closed. */
  void schedule(Runnable task, long delayMillis) {
    try {
      thread.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // Closed meanwhile; see submit.
    }
  }

  /** Returns once everything queued before the call has been handled (for tests). */
  void awaitQueued() throws InterruptedException {
    try {
      thread.submit(() -> {}).get();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
