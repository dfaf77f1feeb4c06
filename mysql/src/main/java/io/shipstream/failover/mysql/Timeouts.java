package io.shipstream.failover.mysql;

import java.time.Duration;

/**
 * How long a connection may take to open ({@code connect}: the TCP connection) and how long any read
 * may wait ({@code socket}: the server's greeting and the handshake included, then every statement).
 * Each caller sizes them to its own job: a sidecar's look at a frozen local server gives up after a
 * second, a watcher's poll within its poll interval, an activity after its longest statement.
 */
public record Timeouts(Duration connect, Duration socket) {

  /** The same bound for both. */
  public static Timeouts of(Duration both) {
    return new Timeouts(both, both);
  }
}
