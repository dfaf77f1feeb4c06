package io.shipstream.failover.dev;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts the writable servers every 50 ms and prints each change of the writable set. */
final class WritableSampler implements AutoCloseable {
  private final FailoverStack stack;
  private final Timeline timeline;
  private final AtomicInteger most = new AtomicInteger();
  private final List<Change> changes = new CopyOnWriteArrayList<>();
  private final BackgroundLoop loop;
  /** The writable set of the last sample; only the loop's thread touches it. */
  private List<String> last;

  private WritableSampler(FailoverStack stack, Timeline timeline) {
    this.stack = stack;
    this.timeline = timeline;
    this.loop = BackgroundLoop.start("writable-sampler", this::sample, 50);
  }

  /** A sampler already counting. */
  static WritableSampler started(FailoverStack stack, Timeline timeline) {
    return new WritableSampler(stack, timeline);
  }

  /** The writable set from {@code at} on (the first sample's, then each change). */
  record Change(Instant at, List<String> writable) {}

  /** Every change of the writable set sampled so far, the first sample first. */
  List<Change> changes() {
    return List.copyOf(changes);
  }

  int most() {
    return most.get();
  }

  /** Forgets the samples so far: {@link #most} then counts from this moment on. */
  void resetMost() {
    most.set(0);
  }

  @Override
  public void close() {
    stop();
  }

  void stop() {
    loop.stop();
  }

  private void sample() {
    List<String> writable = stack.writableSites();
    most.accumulateAndGet(writable.size(), Math::max);
    if (!writable.equals(last)) {
      changes.add(new Change(Instant.now(), writable));
      timeline.print("writable: %s", writable.isEmpty() ? "none" : String.join(", ", writable));
      last = writable;
    }
  }
}
