package io.shipstream.failover.model.topology;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The anti-flap cooldown shared by planned and emergency failover: after a failover whose promotion
 * took effect (recorded in {@code status.lastPromotion}; {@code status.lastFailover} in a status
 * written before that field existed: {@link
 * io.shipstream.failover.model.crd.MysqlFailoverGroupStatus#cooldownSince}), no other may start for
 * {@code spec.failoverCooldown}. A failover rolled back before its promotion took effect changed
 * nothing to flap from, so it starts none.
 */
public final class Cooldown {
  private Cooldown() {}

  /**
   * When the cooldown ends, if it is active at {@code now}. It is active from {@code lastFailover}
   * (inclusive) to {@code lastFailover + cooldown} (exclusive): at exactly the end a failover may
   * start. No last failover, or a zero cooldown, means never active. A {@code lastFailover} in the
   * future (clock skew between watcher replicas) counts as active until its end, the safe side.
   */
  public static Optional<Instant> activeUntil(Duration cooldown, Instant lastFailover, Instant now) {
    if (lastFailover == null || cooldown.isZero() || cooldown.isNegative()) {
      return Optional.empty();
    }
    Instant end = lastFailover.plus(cooldown);
    return now.isBefore(end) ? Optional.of(end) : Optional.empty();
  }
}
