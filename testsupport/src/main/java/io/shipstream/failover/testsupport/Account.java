package io.shipstream.failover.testsupport;

/** A database login the test servers are created with. */
public record Account(String user, String password) {
  @Override
  public String toString() {
    return user;
  }
}
