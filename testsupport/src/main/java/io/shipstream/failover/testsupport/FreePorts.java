package io.shipstream.failover.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Hands out free loopback ports. A port is free when we could bind it a moment ago, so a server
 * started on it can still lose a race; the servers retry with a new port on a bind failure. Ports
 * handed out once are never handed out again by this JVM, so two servers of the same test can
 * never be given the same one.
 *
 * <p>The ports come from below the kernel's ephemeral range (ip_local_port_range), which the
 * kernel never gives to an outgoing connection. A port the kernel chose (a bind to port 0) lies
 * inside that range, and any of the many connections a test opens in the meantime could be given
 * the same number before the server binds it: that is how a sidecar once failed to listen.
 */
public final class FreePorts {
  private static final Set<Integer> HANDED_OUT = new HashSet<>();
  private static final int LOWEST = 10_000;
  static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

  private FreePorts() {}

  public static synchronized int next() {
    int below = ephemeralRangeStart();
    for (int attempt = 0; below > LOWEST + 1000 && attempt < 200; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(LOWEST, below);
      if (!HANDED_OUT.contains(port) && bindable(port)) {
        HANDED_OUT.add(port);
        return port;
      }
    }
    // No range to pick from: let the kernel choose, as before.
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

  private static boolean bindable(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(false);
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** The first port of the kernel's ephemeral range, or 0 where it cannot be read. */
  static int ephemeralRangeStart() {
    // Read line by line: /proc files report a size of 0, and Files.readString trusts it.
    try (var reader = Files.newBufferedReader(EPHEMERAL_RANGE)) {
      String range = reader.readLine();
      return Integer.parseInt(range.trim().split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }
}
