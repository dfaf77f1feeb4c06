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

  /** What a slice-by-slice wait checks between slices; it may throw to end the wait with an error. */
  @FunctionalInterface
  public interface BetweenSlices {
    /** Whether to go on waiting; false ends the wait early, as the deadline would. */
    boolean goOn(GtidSet applied) throws MysqlException;
  }

  /** Where a wait ended: {@code applied} holds {@code wanted}, or it stopped short of it. */
  public record Ended(GtidSet applied, GtidSet wanted) {
    public boolean complete() {
      return contains(applied, wanted);
    }

    /** The transactions of {@code wanted} still not applied. */
    public long missing() {
      return wanted.subtract(applied).count();
    }
  }

  /**
   * Blocks until the server has applied {@code wanted}.
   *
   * @param beat told what the server has applied so far, before each slice
   * @return the executed GTID set once {@code wanted} is applied
   * @throws GtidWaitTimeoutException when it is not applied by {@code deadline}
   */
  public static String until(MysqlSession session, GtidSet wanted, Instant deadline, Clock clock, Consumer<Object> beat)
      throws MysqlException {
    // The common case in one exchange: the server-side wait for one slice and, after it, what the
    // server has applied and executed. A target that holds the set already, or gets it within the
    // slice, answers this one round trip; otherwise the slices go on as below.
    SqlDialect dialect = session.dialect();
    Duration left = Duration.between(clock.instant(), deadline);
    String first = (left.isNegative() || left.isZero() ? "" : dialect.waitQuery(wanted, slice(left)) + "; ")
        + dialect.positionsQuery();
    java.util.List<java.util.List<java.util.Map<String, String>>> results = session.queryAll(first);
    SqlDialect.Positions now = dialect.positions(results.get(results.size() - 1).get(0));
    if (contains(now.applied(), wanted)) {
      return now.executed();
    }
    Ended ended = slices(session, wanted, deadline, clock, beat, applied -> true);
    if (!ended.complete()) {
      throw new GtidWaitTimeoutException(session.address() + " is still missing " + ended.missing()
          + " transaction(s) of " + wanted + " at the deadline " + deadline + "; it has executed " + ended.applied(),
          ended.missing());
    }
    return session.dialect().executedGtidSet(session);
  }

  /**
   * The one slice loop: re-reads what is applied, and while {@code wanted} is not, tells {@code
   * beat}, stops at the deadline or when {@code check} says so, else lets the server wait one
   * slice. Never throws for the deadline: the caller decides what a short wait means.
   */
  public static Ended slices(MysqlSession session, GtidSet wanted, Instant deadline, Clock clock,
      Consumer<Object> beat, BetweenSlices check) throws MysqlException {
    SqlDialect dialect = session.dialect();
    while (true) {
      GtidSet applied = dialect.appliedGtidSet(session);
      if (contains(applied, wanted)) {
        return new Ended(applied, wanted);
      }
      beat.accept(applied.toString());
      Duration left = Duration.between(clock.instant(), deadline);
      if (left.isNegative() || left.isZero() || !check.goOn(applied)) {
        return new Ended(applied, wanted);
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
