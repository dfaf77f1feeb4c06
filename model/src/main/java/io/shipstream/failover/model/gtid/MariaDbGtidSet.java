package io.shipstream.failover.model.gtid;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A MariaDB GTID position, {@code 0-1-42,1-2-7}, as {@code @@gtid_current_pos},
 * {@code @@gtid_binlog_pos} or {@code @@gtid_slave_pos} print it, one domain possibly listed with
 * several server ids ({@code 0-1-100,0-2-50}).
 *
 * <p>Semantics: with {@code gtid_strict_mode} sequence numbers only grow within a domain, so
 * {@code d-s-n} means "every transaction of domain d up to seqno n"; the position of a domain is
 * its highest seqno whatever server wrote it. {@link #contains} and {@link #subtract} compare those
 * positions, as the server does when it decides whether a replica has caught up.
 *
 * <p>{@link #subtract} yields, per domain, the transactions after the other set's position. These
 * are written {@code d-s-a..b}: the transactions with seqnos {@code a} to {@code b} (inclusive) of
 * domain {@code d}, the last of which was written by server {@code s}; for example
 * {@code 0-1-43..50} is 8 transactions. Such a range is not a server position (it cannot be given
 * to {@code MASTER_GTID_WAIT}); {@link #isPosition} tells, and {@link #perDomainMax} turns any set
 * into one. {@link #parse} reads the range notation back, so every canonical text round-trips.
 *
 * <p>Canonical text: domains ascending; within a position domain, one GTID per server id in
 * ascending server order; GTIDs with seqno 0 (no transaction) are dropped; a server id listed twice
 * in one domain keeps its highest seqno.
 */
public final class MariaDbGtidSet implements GtidSet {
  public static final MariaDbGtidSet EMPTY = new MariaDbGtidSet(new TreeMap<>());

  /**
   * The transactions {@code (fromExclusive, max]} of one domain, and the GTIDs that describe it:
   * every listed server for a position ({@code fromExclusive == 0}), only the last GTID for a range.
   */
  private record Domain(long fromExclusive, List<MariaDbGtid> gtids) {
    long max() {
      return last().seqno();
    }

    /** The GTID with the highest seqno; on a tie (impossible in strict mode) the lowest server id. */
    MariaDbGtid last() {
      return gtids.stream().max(Comparator.comparingLong(MariaDbGtid::seqno)
          .thenComparing(Comparator.comparingLong(MariaDbGtid::serverId).reversed())).orElseThrow();
    }
  }

  private final TreeMap<Long, Domain> domains;

  private MariaDbGtidSet(TreeMap<Long, Domain> domains) {
    this.domains = domains;
  }

  /** The set of exactly these GTIDs, merged as {@link #parse} would. */
  public static MariaDbGtidSet of(MariaDbGtid... gtids) {
    Map<Long, Map<Long, Long>> positions = new TreeMap<>();
    for (MariaDbGtid g : gtids) {
      positions.computeIfAbsent(g.domain(), d -> new TreeMap<>()).merge(g.serverId(), g.seqno(), Math::max);
    }
    return fromPositions(positions, new TreeMap<>());
  }

  /**
   * Parses a MariaDB GTID position (or the range notation of {@link #subtract}); null or blank is
   * the empty set.
   *
   * @throws IllegalArgumentException naming the offending element and what is wrong with it
   */
  public static MariaDbGtidSet parse(String text) {
    if (text == null || text.isBlank()) {
      return EMPTY;
    }
    Map<Long, Map<Long, Long>> positions = new TreeMap<>();
    Map<Long, Domain> ranges = new TreeMap<>();
    for (String raw : text.split(",", -1)) {
      String element = raw.strip();
      if (element.isEmpty()) {
        throw new IllegalArgumentException(
            "invalid MariaDB GTID set '" + text.strip() + "': empty element between commas");
      }
      int dots = element.indexOf("..");
      if (dots < 0) {
        MariaDbGtid g = MariaDbGtid.parse(element);
        positions.computeIfAbsent(g.domain(), d -> new TreeMap<>()).merge(g.serverId(), g.seqno(), Math::max);
      } else {
        Domain range = parseRange(element, dots);
        long domain = range.gtids().get(0).domain();
        if (ranges.put(domain, range) != null) {
          throw new IllegalArgumentException("invalid MariaDB GTID set '" + text.strip() + "': domain " + domain
              + " has two ranges");
        }
      }
    }
    for (Long domain : ranges.keySet()) {
      if (positions.containsKey(domain)) {
        throw new IllegalArgumentException("invalid MariaDB GTID set '" + text.strip() + "': domain " + domain
            + " is listed both as a range and as a position");
      }
    }
    return fromPositions(positions, ranges);
  }

  /** Parses {@code d-s-a..b}. */
  private static Domain parseRange(String element, int dots) {
    MariaDbGtid first;
    long end;
    try {
      first = MariaDbGtid.parse(element.substring(0, dots));
      String tail = element.substring(dots + 2).strip();
      if (!tail.matches("\\d+")) {
        throw new IllegalArgumentException("expected domain-server-first..last, e.g. 0-1-43..50");
      }
      end = MariaDbGtid.number(tail, "seqno");
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("invalid MariaDB GTID range '" + element + "': " + e.getMessage(), e);
    }
    if (first.seqno() < 1) {
      throw new IllegalArgumentException("invalid MariaDB GTID range '" + element + "': seqnos start at 1");
    }
    if (end < first.seqno()) {
      throw new IllegalArgumentException("invalid MariaDB GTID range '" + element + "': it ends before it starts");
    }
    return new Domain(first.seqno() - 1, List.of(new MariaDbGtid(first.domain(), first.serverId(), end)));
  }

  private static MariaDbGtidSet fromPositions(Map<Long, Map<Long, Long>> positions, Map<Long, Domain> ranges) {
    TreeMap<Long, Domain> domains = new TreeMap<>(ranges);
    positions.forEach((domain, byServer) -> {
      List<MariaDbGtid> gtids = new ArrayList<>();
      byServer.forEach((server, seqno) -> {
        if (seqno > 0) {
          gtids.add(new MariaDbGtid(domain, server, seqno));
        }
      });
      if (!gtids.isEmpty()) {
        domains.put(domain, new Domain(0, List.copyOf(gtids)));
      }
    });
    return domains.isEmpty() ? EMPTY : new MariaDbGtidSet(domains);
  }

  /** The highest seqno of every domain, by domain ascending. */
  public Map<Long, Long> maxSeqnoByDomain() {
    Map<Long, Long> out = new LinkedHashMap<>();
    domains.forEach((domain, d) -> out.put(domain, d.max()));
    return Collections.unmodifiableMap(out);
  }

  /** Every GTID listed, in canonical order; a range contributes its last GTID. */
  public List<MariaDbGtid> gtids() {
    return domains.values().stream().flatMap(d -> d.gtids().stream()).toList();
  }

  /**
   * One GTID per domain, the highest seqno with the server id that wrote it: the form
   * {@code MASTER_GTID_WAIT} and {@code gtid_slave_pos} want. A range becomes the position of its end.
   */
  public MariaDbGtidSet perDomainMax() {
    TreeMap<Long, Domain> out = new TreeMap<>();
    domains.forEach((domain, d) -> out.put(domain, new Domain(0, List.of(d.last()))));
    return out.isEmpty() ? EMPTY : new MariaDbGtidSet(out);
  }

  /** Whether this is a server position (no range from {@link #subtract}), usable in SQL as is. */
  public boolean isPosition() {
    return domains.values().stream().allMatch(d -> d.fromExclusive() == 0);
  }

  /** Whether, in every domain of {@code other}, this set has reached {@code other}'s highest seqno. */
  @Override
  public boolean contains(GtidSet other) {
    if (Objects.requireNonNull(other, "other GTID set").isEmpty()) {
      return true;
    }
    if (!(other instanceof MariaDbGtidSet o)) {
      if (isEmpty()) {
        return false;
      }
      throw mixed(other);
    }
    for (var e : o.domains.entrySet()) {
      Domain mine = domains.get(e.getKey());
      if (mine == null || mine.max() < e.getValue().max()) {
        return false;
      }
    }
    return true;
  }

  /** Per domain, the transactions after {@code other}'s position in it; see the class comment for the notation. */
  @Override
  public MariaDbGtidSet subtract(GtidSet other) {
    if (Objects.requireNonNull(other, "other GTID set").isEmpty() || isEmpty()) {
      return this;
    }
    if (!(other instanceof MariaDbGtidSet o)) {
      throw mixed(other);
    }
    TreeMap<Long, Domain> out = new TreeMap<>();
    domains.forEach((domain, d) -> {
      Domain theirs = o.domains.get(domain);
      long floor = Math.max(d.fromExclusive(), theirs == null ? 0 : theirs.max());
      if (floor == d.fromExclusive()) {
        out.put(domain, d);
      } else if (floor < d.max()) {
        out.put(domain, new Domain(floor, List.of(d.last())));
      }
    });
    return out.isEmpty() ? EMPTY : new MariaDbGtidSet(out);
  }

  /** The sum over domains of the seqnos covered: {@code n} for a position {@code d-s-n}, {@code b-a+1} for a range. */
  @Override
  public long count() {
    long total = 0;
    for (Domain d : domains.values()) {
      total = GnoIntervals.saturatedAdd(total, d.max() - d.fromExclusive());
    }
    return total;
  }

  @Override
  public boolean isEmpty() {
    return domains.isEmpty();
  }

  private IllegalArgumentException mixed(GtidSet other) {
    return new IllegalArgumentException("cannot combine MariaDB GTID set '" + this + "' with MySQL GTID set '"
        + other + "'");
  }

  @Override
  public String toString() {
    List<String> parts = new ArrayList<>();
    for (Domain d : domains.values()) {
      if (d.fromExclusive() == 0) {
        d.gtids().forEach(g -> parts.add(g.toString()));
      } else {
        MariaDbGtid last = d.last();
        parts.add(last.domain() + "-" + last.serverId() + "-" + (d.fromExclusive() + 1) + ".." + last.seqno());
      }
    }
    return String.join(",", parts);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MariaDbGtidSet other && domains.equals(other.domains);
  }

  @Override
  public int hashCode() {
    return domains.hashCode();
  }
}
