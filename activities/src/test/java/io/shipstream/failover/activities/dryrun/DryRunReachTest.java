package io.shipstream.failover.activities.dryrun;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.workflows.activities.DryRunActivities.Reachability;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A dry run's look at a hook's endpoint: a connection is opened and closed, and nothing is sent,
 * so a hook that knows nothing of dry runs is never asked to act; a closed port is unreachable.
 */
class DryRunReachTest {
  private final DryRunActivitiesImpl activities = new DryRunActivitiesImpl(null, null);

  @Test
  void anOpenPortIsReachableAndReceivesNoByte() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      AtomicInteger bytes = new AtomicInteger(-2);
      Thread accept = new Thread(() -> {
        try (Socket s = server.accept(); InputStream in = s.getInputStream()) {
          bytes.set(in.readAllBytes().length);
        } catch (Exception e) {
          bytes.set(-3);
        }
      });
      accept.start();

      Reachability reach = activities.reach("http://127.0.0.1:" + server.getLocalPort() + "/pre", 2_000);

      accept.join(5_000);
      assertThat(reach.reachable()).as(reach.detail()).isTrue();
      assertThat(reach.connectMillis()).isNotNull();
      assertThat(bytes.get()).as("bytes the hook received").isZero();
    }
  }

  @Test
  void aClosedPortIsUnreachableAndSaysWhere() throws Exception {
    int port;
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = server.getLocalPort();
    }

    Reachability reach = activities.reach("http://127.0.0.1:" + port + "/pre", 2_000);

    assertThat(reach.reachable()).isFalse();
    assertThat(reach.detail()).startsWith("127.0.0.1:" + port + ": ");
  }

  @Test
  void aUrlThatCannotBeReadIsUnreachable() {
    assertThat(activities.reach("http://bad host/pre", 2_000).reachable()).isFalse();
  }
}
