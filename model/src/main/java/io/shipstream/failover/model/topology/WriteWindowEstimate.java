package io.shipstream.failover.model.topology;

import java.time.Duration;

/**
 * The write window a switchover would have, estimated before it runs from the round trips a dry
 * run measured. Between the source's fence and the target becoming writable the planned runbook
 * makes one exchange with the source (the fence, which returns the fenced GTID set) and two with
 * the target (the lag gate's wait, then the promotion), each on a connection already open; the
 * lag gate also waits for whatever the target is behind. The Kubernetes write of the failover
 * record and the scheduling of the steps come on top: the estimate is the servers' share, a lower
 * bound, and says so.
 */
public final class WriteWindowEstimate {
  /** Exchanges with the source inside the window: the fence. */
  public static final int SOURCE_EXCHANGES = 1;
  /** Exchanges with the target inside the window: the lag gate and the promotion. */
  public static final int TARGET_EXCHANGES = 2;

  private WriteWindowEstimate() {}

  /**
   * @param sourceRoundTrip a measured round trip to the source (one statement on an open connection)
   * @param targetRoundTrip the same to the target
   * @param targetLagSeconds the lag the target reports now; null or negative counts as none
   */
  public static Duration estimate(Duration sourceRoundTrip, Duration targetRoundTrip, Long targetLagSeconds) {
    Duration lag = targetLagSeconds == null || targetLagSeconds < 0 ? Duration.ZERO
        : Duration.ofSeconds(targetLagSeconds);
    return sourceRoundTrip.multipliedBy(SOURCE_EXCHANGES).plus(targetRoundTrip.multipliedBy(TARGET_EXCHANGES))
        .plus(lag);
  }
}
