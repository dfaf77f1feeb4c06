package io.shipstream.failover.workflows.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.DynamicContainer.dynamicContainer;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.temporal.common.WorkflowExecutionHistory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The guard of every change to a runbook once it is released: every history of every release
 * ({@code histories/<version>/}, complete and in flight) replays against the workflow
 * implementations as they are now, because the runs a release started finish on the next one; a
 * partial history replays its prefix, which is what a new worker does with a run in flight. A
 * change that breaks one goes behind {@code Workflow.getVersion}, keeping the released path; the
 * released files are never re-recorded, and this test says so three ways: each release directory
 * matches its {@code SHA256SUMS}, each file is byte for byte the one at the release's commit (named
 * in its {@code RELEASE}; {@code git show}, skipped with the reason only where git cannot answer,
 * as in a shallow clone), and every workflow, signal, query and activity type name the release
 * registered ({@code types.txt}) is still registered. See docs/contributing/releasing-histories.md.
 */
class ReleasedHistoriesReplayTest {
  @TestFactory
  Stream<DynamicNode> everyRelease() throws IOException {
    List<Path> releases = ReleasedHistories.releaseDirs(ReleasedHistories.root());
    if (releases.isEmpty()) {
      return Stream.of(dynamicTest("no release yet", () -> Assumptions.abort(
          "no release directory under " + ReleasedHistories.root() + ": nothing is released yet")));
    }
    List<DynamicNode> nodes = new ArrayList<>();
    for (Path dir : releases) {
      nodes.add(release(dir));
    }
    return nodes.stream();
  }

  private static DynamicNode release(Path dir) throws IOException {
    String version = dir.getFileName().toString();
    List<DynamicNode> checks = new ArrayList<>();
    for (Path history : ReleasedHistories.histories(dir)) {
      checks.add(dynamicTest("replays " + history.getFileName(), () -> replay(history)));
    }
    checks.add(dynamicTest("has histories, complete and in flight", () -> {
      List<Path> histories = ReleasedHistories.histories(dir);
      assertThat(histories).as("histories of " + version).filteredOn(ReleasedHistories::isPartial).isNotEmpty();
      assertThat(histories).as("histories of " + version).filteredOn(h -> !ReleasedHistories.isPartial(h))
          .isNotEmpty();
    }));
    checks.add(dynamicTest("matches its " + ReleasedHistories.MANIFEST,
        () -> assertThat(ReleasedHistories.manifestProblems(dir)).as("%s/%s", version, ReleasedHistories.MANIFEST)
            .isEmpty()));
    checks.add(dynamicTest("is byte for byte its release commit's", () -> compareWithCommit(dir)));
    checks.add(dynamicTest("its type names are still registered", () -> assertThat(
        ReleasedHistories.missingTypes(dir, ReleasedHistories.registeredTypeNames()))
        .as("type names %s registered (%s) that HEAD does not", version, ReleasedHistories.TYPES).isEmpty()));
    checks.add(dynamicTest("is named in CHANGELOG.md with its commit", () -> changelogNamesCommit(dir)));
    return dynamicContainer(version, checks);
  }

  /**
   * Replays the history; one named partial must be a run in flight, and every other one a run
   * that ended, so that the partial ones a release promises are what their names say.
   */
  private static void replay(Path file) throws Exception {
    WorkflowExecutionHistory history = WorkflowExecutionHistory.fromJson(Files.readString(file));
    assertThat(InFlightCut.isClosed(history)).as("%s is a run that %s", file.getFileName(),
        ReleasedHistories.isPartial(file) ? "is still in flight" : "ended")
        .isEqualTo(!ReleasedHistories.isPartial(file));
    try {
      InFlightCut.replay(history);
    } catch (Exception | Error e) {
      throw new AssertionError(file.getParent().getFileName() + "/" + file.getFileName()
          + " does not replay against HEAD's workflows: " + e, e);
    }
  }

  private static void compareWithCommit(Path dir) throws IOException {
    Optional<String> commit = ReleasedHistories.releaseCommit(dir);
    assertThat(commit).as("%s/%s: the commit that added this directory (scripts/cut-release-histories --seal)",
        dir.getFileName(), ReleasedHistories.RELEASE).isPresent();
    ReleasedHistories.GitComparison result = ReleasedHistories.compareWithCommit(dir, commit.get());
    Assumptions.assumeTrue(result.notPossible() == null, () -> "not compared with " + commit.get() + ": "
        + result.notPossible());
    assertThat(result.problems()).as("%s against its release commit %s", dir.getFileName(), commit.get()).isEmpty();
  }

  private static void changelogNamesCommit(Path dir) throws IOException {
    Optional<Path> changelog = ReleasedHistories.changelog();
    Assumptions.assumeTrue(changelog.isPresent(), "no CHANGELOG.md above " + Path.of("").toAbsolutePath());
    String version = dir.getFileName().toString();
    String section = ReleasedHistories.releasedInChangelog(Files.readString(changelog.get())).get(version);
    Assumptions.assumeTrue(section != null, () -> version + " has no section in CHANGELOG.md: not a published release"
        + " (a tooling check), so no commit to find there");
    String commit = ReleasedHistories.releaseCommit(dir).orElseThrow(() -> new AssertionError(
        version + " has no " + ReleasedHistories.RELEASE));
    assertThat(ReleasedHistories.namesCommit(section, commit))
        .as("CHANGELOG.md's %s section names the histories' commit %s (from %s/%s)", version, commit, version,
            ReleasedHistories.RELEASE)
        .isTrue();
  }

  /** A release the changelog records keeps its histories: deleting the directory is caught too. */
  @Test
  void everyReleaseInTheChangelogHasItsHistories() throws IOException {
    Optional<Path> changelog = ReleasedHistories.changelog();
    Assumptions.assumeTrue(changelog.isPresent(), "no CHANGELOG.md above " + Path.of("").toAbsolutePath());
    Map<String, String> released = ReleasedHistories.releasedInChangelog(Files.readString(changelog.get()));
    for (String version : released.keySet()) {
      assertThat(ReleasedHistories.root().resolve(version)).as("the histories of %s, released in CHANGELOG.md",
          version).isDirectory();
    }
  }
}
