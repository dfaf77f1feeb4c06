package io.shipstream.failover.dev;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts the writable servers every 50 ms and prints each change of the writable set. */
final class WritableSampler implements AutoCloseable {
  private final FailoverStack stack;
  private final Timeline timeline;
  private final AtomicInteger most = new AtomicInteger();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final Thread thread;

  WritableSampler(FailoverStack stack, Timeline timeline) {
    this.stack = stack;
    this.timeline = timeline;
    this.thread = new Thread(this::loop, "writable-sampler");
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  int most() {
    return most.get();
  }

  /** Forgets the samples so far: {@link #most} then counts from this moment on. */
  void resetMost() {
    most.set(0);
  }

  /** A sampler already counting. */
  static WritableSampler started(FailoverStack stack, Timeline timeline) {
    WritableSampler sampler = new WritableSampler(stack, timeline);
    sampler.start();
    return sampler;
  }

  @Override
  public void close() {
    stop();
  }

  void stop() {
    running.set(false);
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void loop() {
    List<String> last = null;
    while (running.get()) {
      List<String> writable = stack.writableSites();
      most.accumulateAndGet(writable.size(), Math::max);
      if (!writable.equals(last)) {
        timeline.print("writable: %s", writable.isEmpty() ? "none" : String.join(", ", writable));
        last = writable;
      }
      Playground.sleep(50);
    }
  }
}
