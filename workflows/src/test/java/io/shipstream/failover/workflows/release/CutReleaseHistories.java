package io.shipstream.failover.workflows.release;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.common.WorkflowExecutionHistory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The last step of {@code scripts/cut-release-histories}, run only by name ({@code
 * -Dtest=CutReleaseHistories -Drelease.dir=...}; its name is not one surefire picks up on its own):
 * once the recording tests have written a release's complete and in-flight histories into the
 * directory and {@link RecordReleasePayloads} its golden payloads into {@code payloads/}, checks that
 * each history replays and is what its name says (in flight or ended) and that each payload reads
 * back, then writes {@code types.txt} (HEAD's registered type names) and {@code SHA256SUMS} (of the
 * payloads too).
 */
class CutReleaseHistories {
  @Test
  void replayThenWriteTypesAndManifest() throws Exception {
    Path dir = ReleasedHistories.directoryProperty("release.dir", "histories/<version>");
    assertThat(ReleasedHistories.VERSION.matcher(dir.getFileName().toString()).matches())
        .as("%s is named like a version (0.1.0)", dir.getFileName()).isTrue();
    List<Path> histories = ReleasedHistories.histories(dir);
    for (Path file : histories) {
      WorkflowExecutionHistory history = WorkflowExecutionHistory.fromJson(Files.readString(file));
      assertThat(InFlightCut.isClosed(history)).as("%s ended", file.getFileName())
          .isEqualTo(!ReleasedHistories.isPartial(file));
      InFlightCut.replay(history);
    }
    long partial = histories.stream().filter(ReleasedHistories::isPartial).count();
    assertThat(partial).as("in-flight histories in %s", dir).isGreaterThanOrEqualTo(5);
    assertThat(histories.size() - partial).as("complete histories in %s", dir).isGreaterThanOrEqualTo(7);
    Path payloads = dir.resolve(ReleasePayloads.DIR);
    List<Path> files = Files.isDirectory(payloads) ? ReleasePayloads.files(payloads) : List.of();
    assertThat(files).as("%s: RecordReleasePayloads writes them first (-Dpayload.dir)", payloads).isNotEmpty();
    for (Path file : files) {
      assertThat(ReleasePayloads.problems(file, ReleasePayloads.head(), List.of())).as("%s", file).isEmpty();
    }
    ReleasedHistories.writeTypes(dir);
    ReleasedHistories.writeManifest(dir);
    assertThat(ReleasedHistories.manifestProblems(dir)).isEmpty();
    System.out.printf("%s: %d histories (%d in flight), %d payloads, %s and %s written%n", dir, histories.size(),
        partial, files.size(), ReleasedHistories.TYPES, ReleasedHistories.MANIFEST);
  }
}
