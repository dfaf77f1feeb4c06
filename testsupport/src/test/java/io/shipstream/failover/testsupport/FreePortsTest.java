package io.shipstream.failover.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FreePortsTest {
  @Test
  void portsAreDistinctBindableAndOutsideTheEphemeralRange() throws Exception {
    Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    int ephemeralStart = Files.isReadable(range)
        ? Integer.parseInt(Files.readString(range).trim().split("\\s+")[0]) : Integer.MAX_VALUE;
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      int port = FreePorts.next();
      assertThat(seen.add(port)).as("handed out once").isTrue();
      if (ephemeralStart > 11_000) {
        assertThat(port).as("below the kernel's ephemeral range").isLessThan(ephemeralStart);
      }
      try (ServerSocket socket = new ServerSocket()) {
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      }
    }
  }
}
