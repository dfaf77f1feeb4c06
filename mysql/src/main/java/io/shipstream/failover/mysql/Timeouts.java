package io.shipstream.failover.mysql;

import java.time.Duration;

/**
 * How long a connection may take to open ({@code connect}: the TCP connection, the server's greeting
 * and the login, with either driver) and how long any read may wait once it is open ({@code socket}:
 * every statement).
 * Each caller sizes them to its own job: a sidecar's look at a frozen local server gives up after a
 * second, a watcher's poll within its poll interval, an activity after its longest statement.
 */
public record Timeouts(Duration connect, Duration socket) {

  /** The same bound for both. */
  public static Timeouts of(Duration both) {
    return new Timeouts(both, both);
  }
}
