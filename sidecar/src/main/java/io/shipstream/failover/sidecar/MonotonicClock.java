package io.shipstream.failover.sidecar;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * Wall time at start, then advanced by {@link System#nanoTime}. The lease is measured with it: a
 * wall clock stepped forward by NTP must not fence a healthy primary, nor one stepped back keep a
 * partitioned one writable. Its instants drift from wall time by whatever the steps were, which is
 * harmless for the contact-time gauges.
 */
final class MonotonicClock extends Clock {
  private final Instant origin;
  private final long originNanos;

  MonotonicClock() {
    this.origin = Instant.now();
    this.originNanos = System.nanoTime();
  }

  @Override
  public Instant instant() {
    return origin.plusNanos(System.nanoTime() - originNanos);
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("the sidecar's clock is UTC only");
  }
}
