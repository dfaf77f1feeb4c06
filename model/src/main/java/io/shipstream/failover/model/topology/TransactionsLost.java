package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.gtid.GtidSet;

/**
 * The transactions an emergency failover lost: those the old primary was last known to have and
 * the promoted server does not. Reported in status and Events, never hidden.
 *
 * @param known false when the old primary's GTID set was never seen, so nothing can be said; then
 *     {@code count} is 0 and {@code missingGtid} empty, and the report must say "unknown"
 * @param count how many transactions
 * @param missingGtid the lost transactions as a GTID set text ({@code ""} when none); for MariaDB in
 *     the range notation of {@link io.shipstream.failover.model.gtid.MariaDbGtidSet}, e.g. {@code 0-1-96..100}
 */
public record TransactionsLost(boolean known, long count, String missingGtid) {

  /**
   * Compares the old primary's last known set with the promoted server's set at promotion. It is a
   * lower bound: the old primary may have committed more after its last poll.
   *
   * @param oldPrimaryLastKnown null or blank when never seen (then {@code known} is false)
   * @throws IllegalArgumentException if a set cannot be parsed or the flavors are mixed
   */
  public static TransactionsLost between(String oldPrimaryLastKnown, String promoted) {
    if (oldPrimaryLastKnown == null) {
      return new TransactionsLost(false, 0, "");
    }
    return between(GtidSet.parse(oldPrimaryLastKnown), GtidSet.parse(promoted));
  }

  /** As {@link #between(String, String)}, with {@link GtidHistory#missing} deciding what is lost. */
  public static TransactionsLost between(GtidSet oldPrimaryLastKnown, GtidSet promoted) {
    GtidSet missing = GtidHistory.missing(promoted, oldPrimaryLastKnown);
    return new TransactionsLost(true, missing.count(), missing.toString());
  }
}
