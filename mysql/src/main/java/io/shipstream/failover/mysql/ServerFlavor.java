package io.shipstream.failover.mysql;

import java.util.Locale;

/**
 * The two kinds of server the project speaks to. It picks the driver before the first connection
 * (MySQL Connector/J for MySQL, MariaDB Connector/J for MariaDB; see {@link MysqlConnections}) and
 * the dialect after it; a site's declared {@code flavor} names it, or the server's greeting does
 * ({@link Greeting}).
 */
public enum ServerFlavor {
  MYSQL("mysql", "MySQL"),
  MARIADB("mariadb", "MariaDB");

  private final String specValue;
  private final String display;

  ServerFlavor(String specValue, String display) {
    this.specValue = specValue;
    this.display = display;
  }

  /** How a site's {@code flavor} spells it: {@code mysql} or {@code mariadb}. */
  public String specValue() {
    return specValue;
  }

  /** "MySQL" or "MariaDB", as in {@link SqlDialect#flavor()} and messages. */
  public String display() {
    return display;
  }

  /** The flavor a server's version string says: a MariaDB version says so, anything else is MySQL. */
  public static ServerFlavor ofVersion(String version) {
    return version != null && version.contains("MariaDB") ? MARIADB : MYSQL;
  }

  /** A site's declared {@code flavor}; null when none is declared. */
  public static ServerFlavor ofSpec(String value) {
    if (value == null) {
      return null;
    }
    for (ServerFlavor f : values()) {
      if (f.specValue.equals(value.toLowerCase(Locale.ROOT))) {
        return f;
      }
    }
    throw new IllegalArgumentException("flavor must be mysql or mariadb, not '" + value + "'");
  }
}
