package io.shipstream.failover.workflows.release;

import io.shipstream.failover.workflows.RegisteredTypes;
import io.shipstream.failover.workflows.fakes.FakeDragonfly;
import io.shipstream.failover.workflows.fakes.FakeDryRun;
import io.shipstream.failover.workflows.fakes.FakeHooks;
import io.shipstream.failover.workflows.fakes.FakeKubernetes;
import io.shipstream.failover.workflows.fakes.FakeMysql;
import io.shipstream.failover.workflows.fakes.FakeSidecar;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A release's frozen histories: {@code histories/<version>/} holds the complete and the in-flight
 * ({@link InFlightCut#PARTIAL_PREFIX}) histories recorded from that release, {@code types.txt} (every
 * workflow, signal, query, update and activity type name it registered), {@code payloads/} (its
 * golden payloads: {@link ReleasePayloads}), {@code SHA256SUMS} (the {@code sha256sum} of every other
 * file but {@code RELEASE}, those in {@code payloads/} too) and {@code RELEASE} (the commit that
 * added the directory, written after it). What {@link ReleasedHistoriesReplayTest} checks and
 * {@code scripts/cut-release-histories} writes: the manifest, the comparison with the release's
 * commit, and the type names.
 */
public final class ReleasedHistories {
  /** A release directory's name: {@code 0.1.0}, {@code 1.2.0-rc.1}. */
  public static final Pattern VERSION = Pattern.compile("\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.-]+)?");
  public static final String MANIFEST = "SHA256SUMS";
  public static final String RELEASE = "RELEASE";
  public static final String TYPES = "types.txt";

  /** The workflow implementations a worker hosts: every history is replayed with all of them. */
  public static final List<Class<?>> WORKFLOWS = InFlightCut.WORKFLOWS;
  /** The activity implementations the workflow tests register, one per activity interface a worker hosts. */
  public static final List<Class<?>> ACTIVITIES = List.of(FakeMysql.class, FakeKubernetes.class, FakeDragonfly.class,
      FakeSidecar.class, FakeHooks.class, FakeDryRun.class);

  private ReleasedHistories() {}

  /** The histories' source directory, from the workflows module (where Maven runs its tests). */
  public static Path root() {
    return Path.of("src", "test", "resources", "histories").toAbsolutePath();
  }

  /** The directory a step run by name was given ({@code -D<property>=<dir>}), absolute. */
  static Path directoryProperty(String property, String what) {
    String value = System.getProperty(property);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("-D" + property + "=<" + what + "> is required");
    }
    return Path.of(value).toAbsolutePath();
  }

  /** The release directories under {@code root}, by name. */
  public static List<Path> releaseDirs(Path root) throws IOException {
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    try (Stream<Path> dirs = Files.list(root)) {
      return dirs.filter(Files::isDirectory).filter(d -> VERSION.matcher(d.getFileName().toString()).matches())
          .sorted().toList();
    }
  }

  /** The histories of a release directory (every {@code .json}), by name. */
  public static List<Path> histories(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".json")).sorted().toList();
    }
  }

  /** Whether the file is an in-flight history (a prefix of a run), by its name. */
  public static boolean isPartial(Path history) {
    return history.getFileName().toString().startsWith(InFlightCut.PARTIAL_PREFIX);
  }

  // --- the hash manifest ---------------------------------------------------------------------

  /**
   * The files the manifest covers: every regular file but the manifest and {@code RELEASE}, those in
   * subdirectories too ({@code payloads/}), by their path relative to {@code dir} with {@code /}.
   */
  static List<String> covered(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).map(f -> relative(dir, f))
          .filter(n -> !n.equals(MANIFEST) && !n.equals(RELEASE)).sorted().toList();
    }
  }

  private static String relative(Path dir, Path file) {
    return dir.relativize(file).toString().replace(java.io.File.separatorChar, '/');
  }

  /** The manifest of {@code dir} as it is now, in {@code sha256sum}'s format (so {@code sha256sum -c} reads it). */
  public static String manifest(Path dir) throws IOException {
    StringBuilder out = new StringBuilder();
    for (String name : covered(dir)) {
      out.append(sha256(Files.readAllBytes(dir.resolve(name)))).append("  ").append(name).append('\n');
    }
    return out.toString();
  }

  public static void writeManifest(Path dir) throws IOException {
    Files.writeString(dir.resolve(MANIFEST), manifest(dir));
  }

  /** What differs between {@code dir} and its manifest, each naming its file; empty when nothing does. */
  public static List<String> manifestProblems(Path dir) throws IOException {
    Path file = dir.resolve(MANIFEST);
    if (!Files.isRegularFile(file)) {
      return List.of("no " + MANIFEST + " in " + dir.getFileName());
    }
    Map<String, String> listed = new LinkedHashMap<>();
    List<String> problems = new ArrayList<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (line.isBlank()) {
        continue;
      }
      Matcher m = Pattern.compile("([0-9a-f]{64}) [ *](.+)").matcher(line);
      if (!m.matches()) {
        problems.add(MANIFEST + " has a line that is not '<sha256>  <file>': " + line);
        continue;
      }
      listed.put(m.group(2), m.group(1));
    }
    for (Map.Entry<String, String> entry : listed.entrySet()) {
      Path f = dir.resolve(entry.getKey());
      if (!Files.isRegularFile(f)) {
        problems.add(entry.getKey() + ": listed in " + MANIFEST + " but missing");
      } else if (!sha256(Files.readAllBytes(f)).equals(entry.getValue())) {
        problems.add(entry.getKey() + ": changed since it was released (its SHA-256 is not the one in " + MANIFEST
            + ")");
      }
    }
    for (String name : covered(dir)) {
      if (!listed.containsKey(name)) {
        problems.add(name + ": added after the release (not in " + MANIFEST + ")");
      }
    }
    return problems;
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  // --- the comparison with the release's commit ----------------------------------------------

  /** What comparing a release directory with its commit found: problems, or why it could not be made. */
  public record GitComparison(List<String> problems, String notPossible) {
    static GitComparison cannot(String why) {
      return new GitComparison(List.of(), why);
    }
  }

  /** The commit {@code RELEASE} names; empty without the file. */
  public static Optional<String> releaseCommit(Path dir) throws IOException {
    Path file = dir.resolve(RELEASE);
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    return Files.readAllLines(file).stream().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#"))
        .findFirst();
  }

  /**
   * Compares every file of {@code dir} but {@code RELEASE} with the same path at {@code commit}
   * ({@code git show}), byte for byte, and the file names both ways. Not possible (with the
   * reason) only where git cannot answer: git missing, no repository, or a shallow clone without
   * the commit; a commit a full clone does not have is a problem.
   */
  public static GitComparison compareWithCommit(Path dir, String commit) {
    if (!commit.matches("[0-9a-f]{7,40}")) {
      return new GitComparison(List.of(RELEASE + " names '" + commit + "', not a commit id"), null);
    }
    Git.Result inside;
    try {
      inside = Git.run(dir, "rev-parse", "--is-inside-work-tree");
    } catch (IOException e) {
      return GitComparison.cannot("git cannot be run here (" + e.getMessage() + ")");
    }
    if (inside.code() != 0) {
      return GitComparison.cannot(dir + " is not in a git repository (a source archive?): " + inside.text().strip());
    }
    try {
      if (Git.run(dir, "cat-file", "-e", commit + "^{commit}").code() != 0) {
        if (Git.run(dir, "rev-parse", "--is-shallow-repository").text().strip().equals("true")) {
          return GitComparison.cannot("this clone is shallow and does not hold the release commit " + commit
              + " (CI fetches the full history: fetch-depth 0)");
        }
        return new GitComparison(List.of(RELEASE + " names commit " + commit
            + ", which this repository does not hold"), null);
      }
      List<String> problems = new ArrayList<>();
      Git.Result tree = Git.run(dir, "ls-tree", "-r", "--name-only", commit, "--", ".");
      TreeSet<String> atCommit = new TreeSet<>();
      if (tree.code() == 0) {
        tree.text().lines().filter(l -> !l.isBlank()).forEach(atCommit::add);
      }
      atCommit.remove(RELEASE);
      TreeSet<String> now = new TreeSet<>(covered(dir));
      if (Files.isRegularFile(dir.resolve(MANIFEST))) {
        now.add(MANIFEST);
      }
      for (String name : now) {
        if (!atCommit.contains(name)) {
          problems.add(name + ": not in the release commit " + commit + " (added after the release)");
          continue;
        }
        Git.Result released = Git.run(dir, "show", "--no-textconv", commit + ":./" + name);
        if (released.code() != 0) {
          problems.add(name + ": git show " + commit + ":" + name + " failed: " + released.text().strip());
        } else if (!Arrays.equals(released.bytes(), Files.readAllBytes(dir.resolve(name)))) {
          problems.add(name + ": differs from the release commit " + commit + " (re-recorded or edited)");
        }
      }
      for (String name : atCommit) {
        if (!now.contains(name)) {
          problems.add(name + ": in the release commit " + commit + " but missing now");
        }
      }
      return new GitComparison(problems, null);
    } catch (IOException e) {
      return new GitComparison(List.of("git failed: " + e.getMessage()), null);
    }
  }

  /** Runs git, its output as bytes; stderr is folded in only for the message of a failure. */
  static final class Git {
    record Result(int code, byte[] bytes) {
      String text() {
        return new String(bytes, StandardCharsets.UTF_8);
      }
    }

    static Result run(Path dir, String... args) throws IOException {
      List<String> command = new ArrayList<>(List.of("git", "-c", "core.quotepath=off"));
      command.addAll(List.of(args));
      Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(false).start();
      p.getOutputStream().close();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      Thread drain = new Thread(() -> {
        try (InputStream in = p.getErrorStream()) {
          in.transferTo(err);
        } catch (IOException ignored) {
          // The message is best effort.
        }
      });
      drain.start();
      byte[] out;
      try (InputStream in = p.getInputStream()) {
        out = in.readAllBytes();
      }
      try {
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          throw new IOException("git " + String.join(" ", args) + " did not end within 60 s");
        }
        drain.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
      return p.exitValue() == 0 ? new Result(0, out) : new Result(p.exitValue(), err.toByteArray());
    }
  }

  // --- the type names ------------------------------------------------------------------------

  /** The names HEAD registers. */
  public static List<String> registeredTypeNames() {
    return RegisteredTypes.names(WORKFLOWS, ACTIVITIES);
  }

  public static void writeTypes(Path dir) throws IOException {
    Files.writeString(dir.resolve(TYPES), String.join("\n", registeredTypeNames()) + "\n");
  }

  /** The names a release listed that {@code registered} lacks. */
  public static List<String> missingTypes(Path dir, List<String> registered) throws IOException {
    Path file = dir.resolve(TYPES);
    if (!Files.isRegularFile(file)) {
      return List.of("no " + TYPES + " in " + dir.getFileName());
    }
    return RegisteredTypes.missing(Files.readAllLines(file), registered);
  }

  // --- the changelog -------------------------------------------------------------------------

  /** The versions CHANGELOG.md has released ({@code ## [0.1.0] - ...} or {@code ## 0.1.0}), each with its section. */
  public static Map<String, String> releasedInChangelog(String changelog) {
    Map<String, String> sections = new LinkedHashMap<>();
    Matcher heading = Pattern.compile("(?m)^## \\[?(" + VERSION.pattern() + ")\\]?.*$").matcher(changelog);
    List<int[]> spans = new ArrayList<>();
    List<String> versions = new ArrayList<>();
    while (heading.find()) {
      versions.add(heading.group(1));
      spans.add(new int[] {heading.start()});
    }
    Matcher anyHeading = Pattern.compile("(?m)^## ").matcher(changelog);
    for (int i = 0; i < versions.size(); i++) {
      int start = spans.get(i)[0];
      int end = anyHeading.find(start + 3) ? anyHeading.start() : changelog.length();
      sections.put(versions.get(i), changelog.substring(start, end));
    }
    return sections;
  }

  /** CHANGELOG.md, from the module directory up; empty when there is none. */
  public static Optional<Path> changelog() {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("CHANGELOG.md"))) {
        return Optional.of(d.resolve("CHANGELOG.md"));
      }
    }
    return Optional.empty();
  }

  /** Whether {@code section} names {@code commit} (in full, or by a prefix of 7 characters or more). */
  public static boolean namesCommit(String section, String commit) {
    Matcher ids = Pattern.compile("\\b[0-9a-f]{7,40}\\b").matcher(section);
    while (ids.find()) {
      if (commit.startsWith(ids.group())) {
        return true;
      }
    }
    return false;
  }
}
