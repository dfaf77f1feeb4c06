package io.shipstream.failover.model.gtid;

import java.util.regex.Pattern;

/**
 * One MariaDB GTID, {@code domain-server-seqno} as in {@code 0-1-42}: the 42nd transaction of
 * replication domain 0, written by the server with {@code server_id} 1.
 */
public record MariaDbGtid(long domain, long serverId, long seqno) {
  /** Domain and server ids are unsigned 32-bit numbers on the server. */
  public static final long MAX_ID = 4_294_967_295L;

  private static final Pattern FORM = Pattern.compile("(\\d+)-(\\d+)-(\\d+)");

  public MariaDbGtid {
    if (domain < 0 || domain > MAX_ID) {
      throw new IllegalArgumentException("domain id " + domain + " is out of range 0.." + MAX_ID);
    }
    if (serverId < 0 || serverId > MAX_ID) {
      throw new IllegalArgumentException("server id " + serverId + " is out of range 0.." + MAX_ID);
    }
    if (seqno < 0) {
      throw new IllegalArgumentException("seqno " + seqno + " is negative");
    }
  }

  /**
   * Parses {@code domain-server-seqno}.
   *
   * @throws IllegalArgumentException saying what is wrong with {@code text}
   */
  public static MariaDbGtid parse(String text) {
    String s = text == null ? "" : text.strip();
    var m = FORM.matcher(s);
    if (!m.matches()) {
      throw new IllegalArgumentException("invalid MariaDB GTID '" + s + "': expected domain-server-seqno, e.g. 0-1-42");
    }
    try {
      return new MariaDbGtid(number(m.group(1), "domain id"), number(m.group(2), "server id"),
          number(m.group(3), "seqno"));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("invalid MariaDB GTID '" + s + "': " + e.getMessage(), e);
    }
  }

  static long number(String digits, String what) {
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + " " + digits + " is too large");
    }
  }

  @Override
  public String toString() {
    return domain + "-" + serverId + "-" + seqno;
  }
}
