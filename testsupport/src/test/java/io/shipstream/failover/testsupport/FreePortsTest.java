package io.shipstream.failover.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FreePortsTest {
  @Test
  void portsAreDistinctBindableAndOutsideTheEphemeralRange() throws Exception {
    int ephemeralStart = FreePorts.ephemeralRangeStart();
    if (Files.isReadable(FreePorts.EPHEMERAL_RANGE)) {
      assertThat(ephemeralStart).as("the kernel's ephemeral range was read").isGreaterThan(1024);
    }
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      int port = FreePorts.next();
      assertThat(seen.add(port)).as("handed out once").isTrue();
      // A range starting lower leaves no room below it, and the kernel chooses instead.
      if (ephemeralStart > 11_000) {
        assertThat(port).as("below the kernel's ephemeral range").isLessThan(ephemeralStart);
      }
      try (ServerSocket socket = new ServerSocket()) {
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      }
    }
  }
}
