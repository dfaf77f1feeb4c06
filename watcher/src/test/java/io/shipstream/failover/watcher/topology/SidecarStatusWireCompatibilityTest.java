package io.shipstream.failover.watcher.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.topology.LeaseFenceRelease;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.wire.Golden;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The watcher reads every released sidecar's {@code /status} ({@link Golden}), over HTTP as it
 * does in production: a watcher of release N+1 keeps reporting the fences and the start-up mode of
 * sidecars of release N.
 */
class SidecarStatusWireCompatibilityTest {
  private final StubSidecar sidecar = new StubSidecar();
  private final SidecarStatusReader reader = new SidecarStatusReader(SharedToken.of("group-token"));

  @AfterEach
  void stop() {
    sidecar.close();
  }

  @Test
  void readsEveryReleasedStatus() throws Exception {
    for (String release : Golden.RELEASES) {
      serve(release, "sidecar-status.json");
      SidecarStatusReader.Reading reading = reader.read(sidecar.url());
      assertThat(reading.startsReadOnly()).as(release).contains(true);
      assertThat(reading.lastFence()).as(release).contains(new SidecarStatusReader.Fence(
          Instant.parse("2026-12-02T09:59:58Z"), "operator", "a DBA fenced dfw (status.fencedSites)"));
      assertThat(reader.ownFence(null, sidecar.url())).as(release)
          .contains(new LeaseFenceRelease.SidecarFence("operator", true));

      serve(release, "sidecar-status-booting.json");
      reading = reader.read(sidecar.url());
      assertThat(reading.startsReadOnly()).as(release + ": not known before the first tick").isEmpty();
      assertThat(reading.lastFence()).as(release).isEmpty();
      assertThat(reader.ownFence(null, sidecar.url())).as(release + ": no fence stands, and it says so")
          .contains(new LeaseFenceRelease.SidecarFence(null, true));
    }
  }

  @Test
  void aStatusFromBeforeOwnFenceAndLeaseLiveSaysNothingOfThem() throws Exception {
    sidecar.answer(200, "{\"site\":\"pdx\",\"mysql\":\"READ_ONLY\",\"startsReadOnly\":true,\"ticks\":7}");

    assertThat(reader.ownFence(null, sidecar.url())).isEqualTo(Optional.empty());
  }

  private void serve(String release, String file) {
    sidecar.answer(200, new String(Golden.bytes(release, file), StandardCharsets.UTF_8));
  }
}
