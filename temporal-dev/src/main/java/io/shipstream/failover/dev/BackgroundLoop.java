package io.shipstream.failover.dev;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A daemon thread that runs one step, pauses, and runs it again until {@link #stop}: the samplers
 * and writers the scenarios keep beside a failover. The step keeps whatever state it needs
 * between runs; only this thread calls it.
 */
final class BackgroundLoop {
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final Thread thread;

  private BackgroundLoop(String name, Runnable step, long pauseMillis) {
    this.thread = new Thread(() -> {
      while (running.get()) {
        step.run();
        Playground.sleep(pauseMillis);
      }
    }, name);
    thread.setDaemon(true);
  }

  static BackgroundLoop start(String name, Runnable step, long pauseMillis) {
    BackgroundLoop loop = new BackgroundLoop(name, step, pauseMillis);
    loop.thread.start();
    return loop;
  }

  /** Ends the loop after the step in flight, waiting up to 5 s for it. */
  void stop() {
    running.set(false);
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
