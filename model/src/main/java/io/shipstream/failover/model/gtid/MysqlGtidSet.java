package io.shipstream.failover.model.gtid;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A MySQL GTID set: {@code 3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:7,<uuid2>:1-3}. Parsing accepts
 * what {@code @@gtid_executed} and {@code SHOW MASTER STATUS} print (whitespace and newlines after
 * commas, upper-case uuids, the same uuid listed twice, unmerged or overlapping intervals) and the
 * tagged GTIDs of MySQL 8.4 ({@code uuid:1-5:mytag:1-3}, a tag applying to the intervals after it).
 *
 * <p>The canonical text is single-line: uuids in lower case and sorted, intervals merged and sorted,
 * untagged intervals first and then tags (lower case) in alphabetical order, as MySQL prints them.
 */
public final class MysqlGtidSet implements GtidSet {
  public static final MysqlGtidSet EMPTY = new MysqlGtidSet(new TreeMap<>());

  private static final Pattern UUID =
      Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  private static final Pattern TAG = Pattern.compile("[a-z_][a-z0-9_]{0,31}");
  private static final Pattern INTERVAL = Pattern.compile("(\\d+)(?:\\s*-\\s*(\\d+))?");

  /** One source of transactions: a server uuid and a tag, the tag being "" for untagged GTIDs. */
  private record Source(String uuid, String tag) implements Comparable<Source> {
    @Override
    public int compareTo(Source o) {
      int c = uuid.compareTo(o.uuid);
      return c != 0 ? c : tag.compareTo(o.tag);
    }

    @Override
    public String toString() {
      return tag.isEmpty() ? uuid : uuid + ":" + tag;
    }
  }

  /** Every source with a non-empty, normalized interval list. */
  private final TreeMap<Source, List<GnoInterval>> sets;

  private MysqlGtidSet(TreeMap<Source, List<GnoInterval>> sets) {
    this.sets = sets;
  }

  /**
   * Parses a MySQL GTID set; null or blank is the empty set.
   *
   * @throws IllegalArgumentException naming the offending element and what is wrong with it
   */
  public static MysqlGtidSet parse(String text) {
    if (text == null || text.isBlank()) {
      return EMPTY;
    }
    Map<Source, List<GnoInterval>> raw = new LinkedHashMap<>();
    for (String element : text.split(",", -1)) {
      parseElement(element.strip(), text, raw);
    }
    TreeMap<Source, List<GnoInterval>> sets = new TreeMap<>();
    raw.forEach((source, intervals) -> sets.put(source, GnoIntervals.normalize(intervals)));
    return new MysqlGtidSet(sets);
  }

  private static void parseElement(String element, String text, Map<Source, List<GnoInterval>> raw) {
    if (element.isEmpty()) {
      throw new IllegalArgumentException("invalid MySQL GTID set '" + text.strip() + "': empty element between commas");
    }
    String[] parts = element.split(":", -1);
    String uuid = parts[0].strip().toLowerCase(Locale.ROOT);
    if (!UUID.matcher(uuid).matches()) {
      throw bad(element, "'" + parts[0].strip() + "' is not a server uuid (expected 8-4-4-4-12 hex digits)");
    }
    if (parts.length == 1) {
      throw bad(element, "no transaction interval after the uuid (expected e.g. " + uuid + ":1-5)");
    }
    String tag = "";
    boolean tagHasInterval = true;
    for (int i = 1; i < parts.length; i++) {
      String part = parts[i].strip();
      if (part.isEmpty()) {
        throw bad(element, "empty part between colons");
      }
      if (Character.isDigit(part.charAt(0))) {
        raw.computeIfAbsent(new Source(uuid, tag), k -> new ArrayList<>()).add(interval(part, element));
        tagHasInterval = true;
      } else if (TAG.matcher(part.toLowerCase(Locale.ROOT)).matches()) {
        if (!tagHasInterval) {
          throw bad(element, "tag '" + tag + "' has no transaction interval");
        }
        tag = part.toLowerCase(Locale.ROOT);
        tagHasInterval = false;
      } else {
        throw bad(element, "'" + part + "' is neither an interval (1-5) nor a tag (letters, digits, _; at most 32)");
      }
    }
    if (!tagHasInterval) {
      throw bad(element, "tag '" + tag + "' has no transaction interval");
    }
  }

  private static GnoInterval interval(String part, String element) {
    var m = INTERVAL.matcher(part);
    if (!m.matches()) {
      throw bad(element, "'" + part + "' is not an interval (expected 7 or 1-5)");
    }
    long start = number(m.group(1), element);
    long end = m.group(2) == null ? start : number(m.group(2), element);
    try {
      return new GnoInterval(start, end);
    } catch (IllegalArgumentException e) {
      throw bad(element, e.getMessage());
    }
  }

  private static long number(String digits, String element) {
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      throw bad(element, "transaction number " + digits + " is too large");
    }
  }

  private static IllegalArgumentException bad(String element, String why) {
    return new IllegalArgumentException("invalid MySQL GTID '" + element + "': " + why);
  }

  /**
   * The intervals per source, keyed {@code uuid} for untagged GTIDs and {@code uuid:tag} for tagged
   * ones, in canonical order.
   */
  public Map<String, List<GnoInterval>> intervalsBySource() {
    Map<String, List<GnoInterval>> out = new LinkedHashMap<>();
    sets.forEach((source, intervals) -> out.put(source.toString(), intervals));
    return Collections.unmodifiableMap(out);
  }

  @Override
  public boolean contains(GtidSet other) {
    if (Objects.requireNonNull(other, "other GTID set").isEmpty()) {
      return true;
    }
    if (!(other instanceof MysqlGtidSet o)) {
      if (isEmpty()) {
        return false;
      }
      throw mixed(other);
    }
    for (var e : o.sets.entrySet()) {
      List<GnoInterval> mine = sets.get(e.getKey());
      if (mine == null || !GnoIntervals.containsAll(mine, e.getValue())) {
        return false;
      }
    }
    return true;
  }

  @Override
  public MysqlGtidSet subtract(GtidSet other) {
    if (Objects.requireNonNull(other, "other GTID set").isEmpty() || isEmpty()) {
      return this;
    }
    if (!(other instanceof MysqlGtidSet o)) {
      throw mixed(other);
    }
    TreeMap<Source, List<GnoInterval>> out = new TreeMap<>();
    sets.forEach((source, intervals) -> {
      List<GnoInterval> remove = o.sets.get(source);
      List<GnoInterval> rest = remove == null ? intervals : GnoIntervals.subtract(intervals, remove);
      if (!rest.isEmpty()) {
        out.put(source, rest);
      }
    });
    return out.isEmpty() ? EMPTY : new MysqlGtidSet(out);
  }

  @Override
  public long count() {
    long total = 0;
    for (List<GnoInterval> intervals : sets.values()) {
      total = GnoIntervals.saturatedAdd(total, GnoIntervals.count(intervals));
    }
    return total;
  }

  @Override
  public boolean isEmpty() {
    return sets.isEmpty();
  }

  private IllegalArgumentException mixed(GtidSet other) {
    return new IllegalArgumentException("cannot combine MySQL GTID set '" + this + "' with MariaDB GTID set '"
        + other + "'");
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    String uuid = null;
    for (var e : sets.entrySet()) {
      Source source = e.getKey();
      if (!source.uuid().equals(uuid)) {
        if (uuid != null) {
          b.append(',');
        }
        b.append(source.uuid());
        uuid = source.uuid();
      }
      if (!source.tag().isEmpty()) {
        b.append(':').append(source.tag());
      }
      for (GnoInterval interval : e.getValue()) {
        b.append(':').append(interval);
      }
    }
    return b.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MysqlGtidSet other && sets.equals(other.sets);
  }

  @Override
  public int hashCode() {
    return sets.hashCode();
  }
}
