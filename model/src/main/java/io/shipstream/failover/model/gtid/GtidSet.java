package io.shipstream.failover.model.gtid;

/**
 * A set of global transaction ids, in either of the two notations the servers print: MySQL's
 * {@code uuid:1-5:7,uuid2:1-3} ({@link MysqlGtidSet}) or MariaDB's {@code 0-1-42,1-2-7}
 * ({@link MariaDbGtidSet}). Values are immutable; every operation returns a new set.
 *
 * <p>An empty or missing value is an empty set whose flavor cannot be known: {@link #parse} returns
 * {@link MysqlGtidSet#EMPTY} for it, and every operation accepts an empty set of either flavor as
 * the other operand, so callers need not care which empty set they hold. Combining two non-empty
 * sets of different flavors is a programming error (the two servers cannot replicate from each
 * other with GTIDs) and throws {@link IllegalArgumentException}.
 */
public sealed interface GtidSet permits MysqlGtidSet, MariaDbGtidSet {

  /**
   * Parses what {@code @@gtid_executed} (MySQL) or {@code @@gtid_current_pos},
   * {@code @@gtid_binlog_pos}, {@code @@gtid_slave_pos} (MariaDB) return, detecting the notation:
   * MySQL elements always hold a colon, MariaDB elements never do.
   *
   * @throws IllegalArgumentException naming the offending element when the text is neither notation
   */
  static GtidSet parse(String text) {
    if (text == null || text.isBlank()) {
      return MysqlGtidSet.EMPTY;
    }
    if (text.indexOf(':') >= 0) {
      return MysqlGtidSet.parse(text);
    }
    if (text.chars().allMatch(c -> Character.isDigit(c) || c == '-' || c == ',' || c == '.'
        || Character.isWhitespace(c))) {
      return MariaDbGtidSet.parse(text);
    }
    throw new IllegalArgumentException("'" + text.strip() + "' is not a GTID set: expected MySQL uuid:1-5[,uuid:...] "
        + "or MariaDB domain-server-seqno[,...]");
  }

  /**
   * Whether every transaction of {@code other} is in this set: for a replica, whether it has
   * caught up with {@code other}. An empty {@code other} is always contained.
   */
  boolean contains(GtidSet other);

  /**
   * The transactions of this set that are not in {@code other}: after a failover, the
   * transactions lost ({@code oldPrimary.subtract(newPrimary)}) or a site's divergent ones.
   */
  GtidSet subtract(GtidSet other);

  /** The number of transactions in the set, computed without expanding ranges; saturates at {@link Long#MAX_VALUE}. */
  long count();

  boolean isEmpty();

  /** The canonical text: parseable by {@link #parse}, and equal for equal sets. Empty sets print as {@code ""}. */
  @Override
  String toString();
}
