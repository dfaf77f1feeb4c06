package io.shipstream.failover.mysql;

import java.sql.SQLNonTransientException;

/**
 * A site declares one flavor and its server is the other: the connection is refused, so that a
 * server is never driven with the other flavor's driver and statements. The spec is wrong, not the
 * network; retrying does not help.
 */
public final class FlavorMismatchException extends MysqlException {
  private final ServerFlavor declared;
  private final ServerFlavor actual;

  FlavorMismatchException(MysqlAddress address, ServerFlavor declared, ServerFlavor actual, String version) {
    super(new SQLNonTransientException(address + " is declared flavor: " + declared.specValue()
        + " but the server is " + actual.display() + " (" + version + "); correct the site's flavor, or remove it"
        + " and the server's greeting tells", "HY000"));
    this.declared = declared;
    this.actual = actual;
  }

  public ServerFlavor declared() {
    return declared;
  }

  /** What the server's version says it is. */
  public ServerFlavor actual() {
    return actual;
  }
}
