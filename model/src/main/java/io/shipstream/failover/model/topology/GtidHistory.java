package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.model.gtid.MariaDbGtid;
import io.shipstream.failover.model.gtid.MariaDbGtidSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Whether one server's history holds another's: {@link GtidSet#contains}, made strict enough for
 * failover decisions.
 *
 * <p>For MySQL the two are the same: every transaction has its own {@code uuid:n}, so containment
 * is exact.
 *
 * <p>For MariaDB, {@link MariaDbGtidSet#contains} compares only the highest seqno per domain, which
 * cannot see that two servers wrote <em>different</em> transactions under the same seqnos (an old
 * primary's last writes that never replicated, then the new primary's first writes). Here the
 * writer counts too. The exact rule: {@code a} includes {@code b} when, for every domain of
 * {@code b}, with {@code d-s-n} the GTID of {@code b}'s highest seqno in it, {@code a} lists server
 * {@code s} in domain {@code d} at seqno {@code n} or higher. With {@code log_slave_updates},
 * {@code gtid_binlog_pos} lists the last GTID of every server whose transactions the server holds,
 * so a server that has {@code b}'s newest transaction must list its writer at least that far.
 * Below that newest transaction only positions can be compared; and a server whose binary log was
 * reset (a fresh clone) may be reported as missing a transaction it has, which blocks rather than
 * loses data.
 */
public final class GtidHistory {
  private GtidHistory() {}

  /** Whether every transaction of {@code b} is in {@code a}'s history. An empty {@code b} always is. */
  public static boolean includes(GtidSet a, GtidSet b) {
    return missing(a, b).isEmpty();
  }

  /**
   * The transactions of {@code b} that {@code a} lacks. For MySQL exactly {@code b.subtract(a)}.
   * For MariaDB, per domain of {@code b} with newest GTID {@code d-s-n}: nothing when {@code a}
   * includes it; {@code d-s-(c+1)..n} when {@code a}'s position {@code p} is below {@code n}, with
   * {@code c} the last seqno both list for one writer (else {@code p}: an old primary's unreplicated
   * writes are counted whole even after the new primary wrote some of its own); and when
   * {@code a} is past {@code n} but wrote it differently, the range after {@code a}'s last GTID of
   * {@code s} ({@code d-s-n..n} if it has none), which is at least one transaction.
   *
   * @throws IllegalArgumentException when the sets are of different flavors and neither is empty
   */
  public static GtidSet missing(GtidSet a, GtidSet b) {
    Objects.requireNonNull(a, "a");
    Objects.requireNonNull(b, "b");
    if (!(b instanceof MariaDbGtidSet mb) || b.isEmpty() || a.isEmpty()) {
      return b.subtract(a);
    }
    if (!(a instanceof MariaDbGtidSet ma)) {
      return b.subtract(a); // throws: a MySQL set against a MariaDB one
    }
    Map<Long, Long> positions = ma.maxSeqnoByDomain();
    Map<Long, Map<Long, Long>> listed = listedSeqnos(ma);
    Map<Long, Map<Long, Long>> ownListed = listedSeqnos(mb);
    List<String> parts = new ArrayList<>();
    for (MariaDbGtid newest : newestPerDomain(mb).values()) {
      long n = newest.seqno();
      long position = positions.getOrDefault(newest.domain(), 0L);
      long writerSeqno = listed.getOrDefault(newest.domain(), Map.of()).getOrDefault(newest.serverId(), 0L);
      if (writerSeqno >= n) {
        continue;
      }
      long from;
      if (position < n) {
        // Past the last transaction both have from one writer: a's position may have been moved on
        // by writes of its own since (a new primary's first writes), which b never had.
        long common = commonSeqno(listed.getOrDefault(newest.domain(), Map.of()),
            ownListed.getOrDefault(newest.domain(), Map.of()));
        from = (common > 0 ? common : position) + 1;
      } else {
        from = writerSeqno > 0 ? writerSeqno + 1 : n;
      }
      parts.add(newest.domain() + "-" + newest.serverId() + "-" + from + ".." + n);
    }
    return MariaDbGtidSet.parse(String.join(",", parts));
  }

  /** The GTID with the highest seqno of every domain (lowest server id on a tie, as the set itself does). */
  static Map<Long, MariaDbGtid> newestPerDomain(MariaDbGtidSet set) {
    Map<Long, MariaDbGtid> out = new TreeMap<>();
    for (MariaDbGtid g : set.gtids()) {
      out.merge(g.domain(), g,
          (x, y) -> y.seqno() > x.seqno() || (y.seqno() == x.seqno() && y.serverId() < x.serverId())
              ? y : x);
    }
    return out;
  }

  /**
   * The highest seqno of one domain up to which both histories hold the same writer's
   * transactions: per server both list, the lower of their seqnos. 0 when they list no server in
   * common.
   */
  static long commonSeqno(Map<Long, Long> a, Map<Long, Long> b) {
    long common = 0;
    for (Map.Entry<Long, Long> e : a.entrySet()) {
      Long theirs = b.get(e.getKey());
      if (theirs != null) {
        common = Math.max(common, Math.min(e.getValue(), theirs));
      }
    }
    return common;
  }

  /** Domain, then server id, to the seqno the set lists for it. */
  static Map<Long, Map<Long, Long>> listedSeqnos(MariaDbGtidSet set) {
    Map<Long, Map<Long, Long>> out = new HashMap<>();
    for (MariaDbGtid g : set.gtids()) {
      out.computeIfAbsent(g.domain(), d -> new HashMap<>()).merge(g.serverId(), g.seqno(), Math::max);
    }
    return out;
  }
}
