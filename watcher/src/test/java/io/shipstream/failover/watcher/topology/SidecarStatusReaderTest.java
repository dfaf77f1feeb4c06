package io.shipstream.failover.watcher.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.runtime.SharedToken;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link SidecarStatusReader} against a loopback sidecar. */
class SidecarStatusReaderTest {
  private final StubSidecar sidecar = new StubSidecar();
  private final SidecarStatusReader reader = new SidecarStatusReader(SharedToken.of("s3cret"));

  @AfterEach
  void stop() {
    sidecar.close();
  }

  @Test
  void readsEachOfTheThreeAnswersAndPresentsTheSharedToken() throws Exception {
    assertThat(reader.startsReadOnly(sidecar.startsReadOnly(false).url())).contains(false);
    assertThat(reader.startsReadOnly(sidecar.startsReadOnly(true).url() + "/")).contains(true);
    assertThat(reader.startsReadOnly(sidecar.startsReadOnly(null).url())).isEmpty();
    assertThat(sidecar.authorizations).containsOnly("Bearer s3cret");
  }

  @Test
  void anOlderSidecarThatDoesNotSayIsUnknown() throws Exception {
    assertThat(reader.startsReadOnly(sidecar.answer(200, "{\"site\":\"pdx\",\"mysql\":\"READ_ONLY\"}").url()))
        .isEmpty();
  }

  @Test
  void withoutATokenNoAuthorizationIsSent() throws Exception {
    new SidecarStatusReader(null).startsReadOnly(sidecar.startsReadOnly(true).url());
    assertThat(sidecar.authorizations).containsExactly("(none)");
  }

  @Test
  void aRefusalOrASidecarThatIsNotThereIsAnIoFailureNotAnAnswer() throws Exception {
    assertThatThrownBy(() -> reader.startsReadOnly(sidecar.answer(401, "unauthorized").url()))
        .isInstanceOf(IOException.class).hasMessageContaining("HTTP 401");
    int closedPort;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = s.getLocalPort();
    }
    assertThatThrownBy(() -> reader.startsReadOnly("http://127.0.0.1:" + closedPort))
        .isInstanceOf(IOException.class);
  }

  @Test
  void readsTheLastFenceBesideHowTheServerStarts() throws Exception {
    SidecarStatusReader.Reading reading = reader.read(sidecar.answer(200, "{\"startsReadOnly\":true,\"lastFence\":"
        + "{\"at\":\"2025-03-01T10:00:01Z\",\"rule\":\"rule1\",\"reason\":\"the active site is iad\"}}").url());
    assertThat(reading.startsReadOnly()).contains(true);
    assertThat(reading.lastFence()).contains(new SidecarStatusReader.Fence(
        java.time.Instant.parse("2025-03-01T10:00:01Z"), "rule1", "the active site is iad"));
    assertThat(reader.read(sidecar.answer(200, "{\"lastFence\":null}").url()).lastFence()).isEmpty();
  }
}
