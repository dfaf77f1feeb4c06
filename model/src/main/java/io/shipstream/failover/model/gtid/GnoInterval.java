package io.shipstream.failover.model.gtid;

/**
 * The transaction numbers {@code start..end} (both inclusive) of one MySQL source, as in
 * {@code uuid:1-5}. Numbers start at 1, as on the server.
 */
public record GnoInterval(long start, long end) implements Comparable<GnoInterval> {

  public GnoInterval {
    if (start < 1) {
      throw new IllegalArgumentException("transaction number " + start + " is not allowed: numbers start at 1");
    }
    if (end < start) {
      throw new IllegalArgumentException("interval " + start + "-" + end + " ends before it starts");
    }
  }

  /** The number of transactions, which cannot overflow because {@code start >= 1}. */
  public long count() {
    return end - start + 1;
  }

  @Override
  public int compareTo(GnoInterval o) {
    int c = Long.compare(start, o.start);
    return c != 0 ? c : Long.compare(end, o.end);
  }

  /** The server's notation: {@code 7} for a single transaction, {@code 1-5} otherwise. */
  @Override
  public String toString() {
    return start == end ? Long.toString(start) : start + "-" + end;
  }
}
