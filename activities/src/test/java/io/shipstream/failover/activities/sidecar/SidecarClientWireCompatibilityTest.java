package io.shipstream.failover.activities.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.wire.Golden;
import io.shipstream.failover.workflows.activities.SidecarActivities.Snapshot;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The worker reads every released sidecar's {@code /status} ({@link Golden}): a worker of release
 * N+1 still gets, from an old primary's sidecar of release N, the proof an emergency failover
 * waits for (its view, its MySQL state, its timing).
 */
class SidecarClientWireCompatibilityTest {
  @Test
  void readsTheProofFromEveryReleasedStatus() throws Exception {
    for (String release : Golden.RELEASES) {
      Snapshot fenced = SidecarClient.parse(status(release, "sidecar-status.json"));
      assertThat(fenced).as(release).isEqualTo(new Snapshot("dfw", "iad", "READ_ONLY", 1234, 20_000L, 5_000L));
      assertThat(fenced.provesFenced("dfw", "iad")).as(release).isTrue();

      Snapshot booting = SidecarClient.parse(status(release, "sidecar-status-booting.json"));
      assertThat(booting).as(release).isEqualTo(new Snapshot("iad", null, "WRITABLE", 0, 20_000L, 5_000L));
      assertThat(booting.provesFenced("iad", "dfw")).as(release).isFalse();
    }
  }

  @Test
  void fieldsOfALaterReleaseAreIgnoredAndAWrongTypeIsNoProof() throws Exception {
    String later = status("0.1.0", "sidecar-status.json").replaceFirst("\\{", "{\"fenceEpoch\":{\"n\":3},");
    assertThat(SidecarClient.parse(later)).isEqualTo(SidecarClient.parse(status("0.1.0", "sidecar-status.json")));

    assertThatThrownBy(() -> SidecarClient.parse("{\"site\":\"iad\",\"mysql\":false}"))
        .isInstanceOf(IOException.class).hasMessageContaining("mysql is not text");
  }

  private static String status(String release, String file) {
    return new String(Golden.bytes(release, file), StandardCharsets.UTF_8);
  }
}
