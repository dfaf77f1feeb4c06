package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which release the upgrade drill starts from. */
class ReleaseBuildTest {
  @TempDir
  Path histories;

  @Test
  void theNewestReleasedVersionIsTakenByNumberNotByName() throws Exception {
    release("0.9.0", "aaaaaaa");
    release("0.10.0", "bbbbbbb");
    release("0.10.1-rc.1", "ccccccc");
    Files.createDirectories(histories.resolve("0.11.0"));
    assertThat(ReleaseBuild.newestRelease(histories)).contains(new ReleaseBuild.Release("0.10.1-rc.1", "ccccccc"));
    release("0.10.1", "ddddddd");
    assertThat(ReleaseBuild.newestRelease(histories)).contains(new ReleaseBuild.Release("0.10.1", "ddddddd"));
  }

  @Test
  void aDirectoryWithoutItsReleaseCommitIsNoReleaseYet() throws Exception {
    assertThat(ReleaseBuild.newestRelease(histories.resolve("absent"))).isEmpty();
    Files.createDirectories(histories.resolve("0.1.0"));
    Files.writeString(histories.resolve("planned-succeeded.json"), "{}");
    assertThat(ReleaseBuild.newestRelease(histories)).isEmpty();
  }

  @Test
  void withNothingReleasedTheDrillSaysSo() throws Exception {
    Path repository = histories.resolve("repo");
    Files.createDirectories(repository.resolve("workflows/src/test/resources/histories"));
    String forced = System.clearProperty(ReleaseBuild.FROM_COMMIT);
    try {
      ReleaseBuild.Result<ReleaseBuild.Release> previous = ReleaseBuild.previousRelease(repository);
      assertThat(previous.present()).isFalse();
      assertThat(previous.absentReason()).startsWith("nothing released yet");
    } finally {
      if (forced != null) {
        System.setProperty(ReleaseBuild.FROM_COMMIT, forced);
      }
    }
  }

  /** The release's commit is built from git: a shallow clone without it skips, with that reason; a full one has it. */
  @Test
  void aShallowCloneWithoutTheReleaseCommitSaysSo() throws Exception {
    Path origin = histories.resolve("origin");
    Files.createDirectories(origin);
    git(origin, "init", "-q");
    Files.writeString(origin.resolve("a"), "1");
    git(origin, "add", "a");
    git(origin, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "released");
    String released = git(origin, "rev-parse", "HEAD");
    Files.writeString(origin.resolve("a"), "2");
    git(origin, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-am", "after");
    String forced = System.clearProperty(ReleaseBuild.FROM_COMMIT);
    try {
      for (boolean shallow : new boolean[] {true, false}) {
        Path clone = histories.resolve(shallow ? "shallow" : "full");
        git(histories, "clone", "-q", shallow ? "--depth=1" : "--no-local", "file://" + origin, clone.toString());
        Path dir = Files.createDirectories(clone.resolve("workflows/src/test/resources/histories/0.1.0"));
        Files.writeString(dir.resolve("RELEASE"), released + "\n");
        ReleaseBuild.Result<ReleaseBuild.Release> previous = ReleaseBuild.previousRelease(clone);
        if (shallow) {
          assertThat(previous.absentReason()).contains("shallow").contains(released);
        } else {
          assertThat(previous.value()).isEqualTo(new ReleaseBuild.Release("0.1.0", released));
        }
      }
    } finally {
      if (forced != null) {
        System.setProperty(ReleaseBuild.FROM_COMMIT, forced);
      }
    }
  }

  private static String git(Path dir, String... args) throws Exception {
    java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of("git"));
    command.addAll(java.util.List.of(args));
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes()).strip();
    assertThat(p.waitFor()).as("git %s: %s", String.join(" ", args), out).isZero();
    return out;
  }

  private void release(String version, String commit) throws Exception {
    Path dir = Files.createDirectories(histories.resolve(version));
    Files.writeString(dir.resolve("RELEASE"), "# the commit that froze it\n" + commit + "\n");
  }
}
