package io.shipstream.failover.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;

/**
 * Hands out free loopback ports. A port is free when we could bind it a moment ago, so a server
 * started on it can still lose a race with another process; the servers retry with a new port on
 * a bind failure. Ports handed out once are never handed out again by this JVM, so two servers of
 * the same test can never be given the same one.
 */
public final class FreePorts {
  private static final Set<Integer> HANDED_OUT = new HashSet<>();

  private FreePorts() {}

  public static synchronized int next() {
    for (int attempt = 0; attempt < 100; attempt++) {
      int port;
      try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        socket.setReuseAddress(false);
        port = socket.getLocalPort();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot bind a loopback port", e);
      }
      if (HANDED_OUT.add(port)) {
        return port;
      }
    }
    throw new IllegalStateException("no unused loopback port found after 100 attempts");
  }
}
