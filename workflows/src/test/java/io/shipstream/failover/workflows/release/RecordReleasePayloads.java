package io.shipstream.failover.workflows.release;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Records HEAD's golden payloads ({@link ReleasePayloads}) into {@code -Dpayload.dir}: one file for
 * every argument and result of every workflow, signal, query and activity type it registers. Run
 * only by name ({@code -Dtest=RecordReleasePayloads -Dpayload.dir=...}; its name is not one
 * surefire picks up on its own), by {@code scripts/cut-release-histories} into
 * {@code histories/<version>/payloads/}.
 */
class RecordReleasePayloads {
  @Test
  void recordEveryPayload() throws Exception {
    Path dir = ReleasedHistories.directoryProperty("payload.dir", "histories/<version>/payloads");
    List<Path> written = ReleasePayloads.write(dir, ReleasePayloads.head());
    for (Path file : written) {
      assertThat(ReleasePayloads.problems(file, ReleasePayloads.head(), List.of())).as("%s read back", file).isEmpty();
    }
    System.out.printf("%s: %d payloads written%n", dir, written.size());
  }
}
