package io.shipstream.failover.mysql;

import io.shipstream.failover.model.gtid.GtidSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;

/**
 * Waiting for a server to apply a GTID set, in slices: each wait blocks inside the server for at
 * most {@link #SLICE}, so that the caller can say it is alive (an activity's heartbeat) in between.
 * Deadlines are absolute instants compared with the caller's clock, so a retry elsewhere continues
 * the same budget instead of starting a new one.
 */
public final class GtidWait {
  /** The longest a wait blocks inside the server before the caller hears of it again. */
  public static final Duration SLICE = Duration.ofSeconds(1);

  private GtidWait() {}

  /**
   * Blocks until the server has applied {@code wanted}.
   *
   * @param beat told what the server has applied so far, before each slice
   * @return the executed GTID set once {@code wanted} is applied
   * @throws GtidWaitTimeoutException when it is not applied by {@code deadline}
   */
  public static String until(MysqlSession session, GtidSet wanted, Instant deadline, Clock clock, Consumer<Object> beat)
      throws MysqlException {
    SqlDialect dialect = session.dialect();
    while (true) {
      GtidSet applied = dialect.appliedGtidSet(session);
      if (contains(applied, wanted)) {
        return dialect.executedGtidSet(session);
      }
      beat.accept(applied.toString());
      Duration left = Duration.between(clock.instant(), deadline);
      if (left.isNegative() || left.isZero()) {
        long missing = wanted.subtract(applied).count();
        throw new GtidWaitTimeoutException(
            session.address() + " is still missing " + missing + " transaction(s) of " + wanted + " at the deadline "
                + deadline + "; it has executed " + applied,
            missing);
      }
      dialect.waitForGtidSet(session, wanted, slice(left));
    }
  }

  /** Containment, with a set of the other flavor reported as the caller's mistake it is. */
  public static boolean contains(GtidSet applied, GtidSet wanted) {
    try {
      return applied.contains(wanted);
    } catch (IllegalArgumentException e) {
      throw new IncomparableGtidSetsException(e);
    }
  }

  /** What is left of the budget, at most one {@link #SLICE}. */
  static Duration slice(Duration left) {
    return left.compareTo(SLICE) < 0 ? left : SLICE;
  }
}
