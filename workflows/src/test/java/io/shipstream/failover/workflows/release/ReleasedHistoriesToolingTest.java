package io.shipstream.failover.workflows.release;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@link ReleasedHistoriesReplayTest} rests on, each shown to catch what it is there for: the
 * manifest names a changed, an added and a missing file; the comparison with the release commit
 * (a git repository of its own) names a file re-recorded, added or removed since, fails on a commit
 * a full clone lacks and says why it cannot compare in a shallow clone or outside git; a released
 * type name HEAD no longer registers is named; the changelog's release section is read.
 */
class ReleasedHistoriesToolingTest {
  @TempDir
  Path tmp;

  /** A golden payload: the manifest and the commit comparison cover {@code payloads/} too. */
  private static final String PAYLOAD = ReleasePayloads.DIR + "/workflow-PlannedFailover.arg0.json";

  private Path releaseDir(Path under) throws IOException {
    Path dir = Files.createDirectories(under.resolve("histories").resolve("0.0.0-test"));
    Files.writeString(dir.resolve("planned-succeeded.json"), "{\"events\":[1]}\n");
    Files.writeString(dir.resolve("partial-planned-scheduled.json"), "{\"events\":[2]}\n");
    Files.writeString(dir.resolve(ReleasedHistories.TYPES), "workflow PlannedFailover\n");
    Files.createDirectories(dir.resolve(ReleasePayloads.DIR));
    Files.writeString(dir.resolve(PAYLOAD), "{\"annotation\":\"target=b\"}");
    ReleasedHistories.writeManifest(dir);
    return dir;
  }

  @Test
  void theManifestNamesAFileChangedAddedOrMissing() throws IOException {
    Path dir = releaseDir(tmp);
    assertThat(Files.readString(dir.resolve(ReleasedHistories.MANIFEST))).as("sha256sum's format, RELEASE left out")
        .contains("  planned-succeeded.json\n").contains("  types.txt\n").contains("  " + PAYLOAD + "\n")
        .doesNotContain("RELEASE");
    assertThat(ReleasedHistories.manifestProblems(dir)).isEmpty();
    Files.writeString(dir.resolve(ReleasedHistories.RELEASE), "0123456789abcdef0123456789abcdef01234567\n");
    assertThat(ReleasedHistories.manifestProblems(dir)).as("RELEASE is written after the manifest").isEmpty();

    Files.writeString(dir.resolve("planned-succeeded.json"), "{\"events\":[1,2]}\n");
    Files.writeString(dir.resolve("partial-new.json"), "{}");
    Files.delete(dir.resolve("partial-planned-scheduled.json"));
    Files.writeString(dir.resolve(PAYLOAD), "{\"annotation\":\"target=c\"}");
    Files.writeString(dir.resolve(ReleasePayloads.DIR).resolve("activity-Fence.arg0.json"), "{}");
    assertThat(ReleasedHistories.manifestProblems(dir)).containsExactlyInAnyOrder(
        PAYLOAD + ": changed since it was released (its SHA-256 is not the one in SHA256SUMS)",
        "payloads/activity-Fence.arg0.json: added after the release (not in SHA256SUMS)",
        "planned-succeeded.json: changed since it was released (its SHA-256 is not the one in SHA256SUMS)",
        "partial-planned-scheduled.json: listed in SHA256SUMS but missing",
        "partial-new.json: added after the release (not in SHA256SUMS)");

    Files.delete(dir.resolve(ReleasedHistories.MANIFEST));
    assertThat(ReleasedHistories.manifestProblems(dir)).containsExactly("no SHA256SUMS in 0.0.0-test");
  }

  private static String git(Path dir, String... args) throws IOException {
    String[] all = new String[args.length + 4];
    all[0] = "-c";
    all[1] = "user.name=release test";
    all[2] = "-c";
    all[3] = "user.email=release@test";
    System.arraycopy(args, 0, all, 4, args.length);
    ReleasedHistories.Git.Result r = ReleasedHistories.Git.run(dir, all);
    assertThat(r.code()).as("git %s: %s", String.join(" ", args), r.text()).isZero();
    return r.text().strip();
  }

  /** A repository whose first commit adds the release directory; returns that commit. */
  private String repositoryWithRelease(Path repo) throws IOException {
    Files.createDirectories(repo);
    git(repo, "init", "-q");
    releaseDir(repo);
    git(repo, "add", ".");
    git(repo, "commit", "-q", "-m", "histories of 0.0.0-test");
    return git(repo, "rev-parse", "HEAD");
  }

  @Test
  void theReleaseCommitComparisonNamesAFileReRecordedAddedOrRemoved() throws IOException {
    Path repo = tmp.resolve("repo");
    String commit = repositoryWithRelease(repo);
    Path dir = repo.resolve("histories/0.0.0-test");
    Files.writeString(dir.resolve(ReleasedHistories.RELEASE), commit + "\n");
    ReleasedHistories.GitComparison same = ReleasedHistories.compareWithCommit(dir, commit);
    assertThat(same.notPossible()).isNull();
    assertThat(same.problems()).as("RELEASE, written after the commit, is not compared").isEmpty();

    // Re-recorded, with its manifest line updated to match: the manifest is content, the commit is not.
    Files.writeString(dir.resolve("planned-succeeded.json"), "{\"events\":[1,2]}\n");
    ReleasedHistories.writeManifest(dir);
    assertThat(ReleasedHistories.manifestProblems(dir)).as("a re-recording that rewrote the manifest").isEmpty();
    Files.writeString(dir.resolve("partial-new.json"), "{}");
    Files.delete(dir.resolve("partial-planned-scheduled.json"));
    Files.writeString(dir.resolve(PAYLOAD), "{\"annotation\":\"target=c\"}");
    ReleasedHistories.writeManifest(dir);
    ReleasedHistories.GitComparison changed = ReleasedHistories.compareWithCommit(dir, commit);
    assertThat(changed.notPossible()).isNull();
    assertThat(changed.problems()).containsExactlyInAnyOrder(
        PAYLOAD + ": differs from the release commit " + commit + " (re-recorded or edited)",
        "planned-succeeded.json: differs from the release commit " + commit + " (re-recorded or edited)",
        "SHA256SUMS: differs from the release commit " + commit + " (re-recorded or edited)",
        "partial-new.json: not in the release commit " + commit + " (added after the release)",
        "partial-planned-scheduled.json: in the release commit " + commit + " but missing now");
    // Committed, the change is still caught: the comparison is with the release's commit, not HEAD.
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", "re-recorded");
    assertThat(ReleasedHistories.compareWithCommit(dir, commit).problems()).hasSize(5);
  }

  @Test
  void aCommitAFullCloneLacksFailsAndAShallowCloneOrNoGitSaysWhyItCannotCompare() throws IOException {
    Path repo = tmp.resolve("repo");
    String released = repositoryWithRelease(repo);
    Path dir = repo.resolve("histories/0.0.0-test");
    String unknown = "0123456789abcdef0123456789abcdef01234567";
    assertThat(ReleasedHistories.compareWithCommit(dir, unknown).problems())
        .containsExactly("RELEASE names commit " + unknown + ", which this repository does not hold");
    assertThat(ReleasedHistories.compareWithCommit(dir, "HEAD~1").problems())
        .containsExactly("RELEASE names 'HEAD~1', not a commit id");

    Files.writeString(repo.resolve("later"), "a later commit");
    git(repo, "add", "later");
    git(repo, "commit", "-q", "-m", "later");
    Path shallow = tmp.resolve("shallow");
    git(tmp, "clone", "-q", "--depth", "1", repo.toUri().toString(), shallow.toString());
    ReleasedHistories.GitComparison inShallow = ReleasedHistories.compareWithCommit(
        shallow.resolve("histories/0.0.0-test"), released);
    assertThat(inShallow.problems()).isEmpty();
    assertThat(inShallow.notPossible()).startsWith("this clone is shallow and does not hold the release commit "
        + released);

    Path noGit = releaseDir(tmp.resolve("archive"));
    assertThat(ReleasedHistories.compareWithCommit(noGit, released).notPossible())
        .contains("is not in a git repository");
  }

  @Test
  void aReleasedTypeNameHeadNoLongerRegistersIsNamed() throws IOException {
    List<String> head = ReleasedHistories.registeredTypeNames();
    assertThat(head).contains("workflow PlannedFailover", "workflow EmergencyFailover", "workflow DryRun",
        "signal PlannedFailover cancel", "signal PlannedFailover sourceDied", "query PlannedFailover status",
        "signal EmergencyFailover cancel", "activity Fence", "activity WaitForGtidSet", "activity Promote",
        "activity SidecarConfirmFenced");
    Path dir = Files.createDirectories(tmp.resolve("0.0.0-test"));
    assertThat(ReleasedHistories.missingTypes(dir, head)).containsExactly("no types.txt in 0.0.0-test");
    ReleasedHistories.writeTypes(dir);
    assertThat(ReleasedHistories.missingTypes(dir, head)).isEmpty();
    Files.writeString(dir.resolve(ReleasedHistories.TYPES), "activity FenceSource\n",
        java.nio.file.StandardOpenOption.APPEND);
    assertThat(ReleasedHistories.missingTypes(dir, head)).containsExactly("activity FenceSource");
  }

  @Test
  void theChangelogsReleaseSectionsAndTheCommitTheyName() {
    String changelog = """
        # Changelog

        ## Unreleased

        - something 1234567890abc not released

        ## [0.1.0] - 2026-12-02

        Histories frozen at 89abcdef0.

        - the first release
        """;
    var released = ReleasedHistories.releasedInChangelog(changelog);
    assertThat(released).containsOnlyKeys("0.1.0");
    assertThat(ReleasedHistories.namesCommit(released.get("0.1.0"), "89abcdef0123456789abcdef0123456789abcdef"))
        .isTrue();
    assertThat(ReleasedHistories.namesCommit(released.get("0.1.0"), "1234567890abcdef0123456789abcdef01234567"))
        .as("a commit named in another section").isFalse();
  }
}
