package io.shipstream.failover.dev;

import io.shipstream.failover.testsupport.CacheDirectory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A released worker, watcher and sidecar, built from the release's commit and kept outside the
 * repository, so that an upgrade drill runs the previous release's own code beside HEAD's.
 *
 * <p>The release is the newest {@code workflows/src/test/resources/histories/<version>/RELEASE}
 * (the commit that froze it), or the commit of the system property {@value #FROM_COMMIT}. Its tree
 * ({@code git archive}, no link to the repository) is built once with {@code mvn package} (never
 * {@code install}: the release's artifacts must not replace HEAD's in the local repository), each
 * process's runtime jars are copied into {@code <cache>/<commit>/<module>/lib}, the sources are
 * removed, and a marker is written last; the directory is renamed into place only then, under a
 * file lock, so two runs never share a half-built one. The cache is {@link #CACHE} (named as the
 * MySQL root is: the system property {@code bloodraven.release.cache}, else {@code
 * BLOODRAVEN_RELEASE_CACHE}, else {@code /var/cache/bloodraven/releases} where it can be written),
 * else {@code ~/.cache/bloodraven/releases}.
 */
public final class ReleaseBuild {
  static final String FROM_COMMIT = "upgrade.fromCommit";
  static final CacheDirectory CACHE =
      new CacheDirectory("bloodraven.release.cache", "BLOODRAVEN_RELEASE_CACHE", "/var/cache/bloodraven/releases");
  /** Written last: a directory without it is a build that did not finish. */
  static final String MARKER = ".bloodraven-release-build";
  /** The processes a drill runs from the release. */
  static final List<String> MODULES = List.of("worker", "watcher", "sidecar");
  private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)\\.(\\d+)(-[0-9A-Za-z.-]+)?");
  private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(15);

  /** The release a drill starts from: its version (or the property's name for it) and commit. */
  public record Release(String version, String commit) {}

  /** A built release: {@link #classpath} of each of {@link #MODULES}. */
  public record Built(Release release, Path directory, Duration buildTime, boolean fromCache) {
    /** The class path of the module's process: every jar of its {@code lib}. */
    public String classpath(String module) {
      return directory.resolve(module).resolve("lib").toString() + "/*";
    }
  }

  private ReleaseBuild() {}

  /**
   * The release to upgrade from, or why there is none: no release directory with a {@code
   * RELEASE} yet ("nothing released yet"), or git cannot show the commit (no git, no repository, a
   * shallow clone without it).
   */
  public static Result<Release> previousRelease(Path repository) {
    String forced = System.getProperty(FROM_COMMIT);
    Release release;
    if (forced != null && !forced.isBlank()) {
      release = new Release(forced.strip(), forced.strip());
    } else {
      Optional<Release> newest = newestRelease(repository.resolve("workflows/src/test/resources/histories"));
      if (newest.isEmpty()) {
        return Result.absent("nothing released yet: no workflows/src/test/resources/histories/<version>/RELEASE");
      }
      release = newest.get();
    }
    Git git;
    try {
      git = Git.run(repository, "rev-parse", "--verify", "--quiet", release.commit() + "^{commit}");
    } catch (IOException e) {
      return Result.absent("git cannot be run here (" + e.getMessage() + "), so " + release + " cannot be built");
    }
    if (git.code() != 0) {
      String shallow = run(repository, "rev-parse", "--is-shallow-repository");
      if ("true".equals(shallow)) {
        return Result.absent("this clone is shallow and does not hold " + release + " (CI fetches the full history)");
      }
      if (shallow == null) {
        return Result.absent(repository + " is not a git repository (a source archive?), so " + release
            + " cannot be built");
      }
      throw new IllegalStateException(release + ": this full clone does not hold commit " + release.commit());
    }
    return Result.of(new Release(release.version(), git.output().strip()));
  }

  /** The release directory with the highest version that has a {@code RELEASE}. */
  static Optional<Release> newestRelease(Path histories) {
    if (!Files.isDirectory(histories)) {
      return Optional.empty();
    }
    try (Stream<Path> dirs = Files.list(histories)) {
      return dirs.filter(d -> VERSION.matcher(d.getFileName().toString()).matches())
          .filter(d -> Files.isRegularFile(d.resolve("RELEASE")))
          .max(Comparator.comparing(d -> versionKey(d.getFileName().toString())))
          .map(d -> new Release(d.getFileName().toString(), releaseCommit(d.resolve("RELEASE"))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Sorts 0.10.0 after 0.9.0, and 1.0.0-rc.1 before 1.0.0. */
  static String versionKey(String version) {
    var m = VERSION.matcher(version);
    if (!m.matches()) {
      throw new IllegalArgumentException(version);
    }
    return String.format("%09d.%09d.%09d.%s", Long.parseLong(m.group(1)), Long.parseLong(m.group(2)),
        Long.parseLong(m.group(3)), m.group(4) == null ? "~" : m.group(4));
  }

  private static String releaseCommit(Path file) {
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8).stream().map(String::strip)
          .filter(l -> !l.isEmpty() && !l.startsWith("#")).findFirst()
          .orElseThrow(() -> new IllegalStateException(file + " names no commit"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Where built releases are kept. */
  public static Path cache() {
    Optional<Path> configured = CACHE.configured();
    if (configured.isPresent()) {
      return configured.get();
    }
    Path cache = Path.of(CACHE.fallback());
    try {
      Files.createDirectories(cache);
      if (Files.isWritable(cache)) {
        return cache;
      }
    } catch (IOException e) {
      // Not root: the user's own cache below.
    }
    return Path.of(System.getProperty("user.home"), ".cache", "bloodraven", "releases");
  }

  /**
   * The release built in the cache: reused when its marker is there, built otherwise (the build's
   * output in {@code log}). Throws when the build fails: a release that git holds must build.
   */
  public static Built build(Path repository, Release release, Path log) {
    Path cache = cache();
    Path target = cache.resolve(release.commit());
    long t0 = System.nanoTime();
    try {
      Files.createDirectories(cache);
      try (FileChannel channel = FileChannel.open(cache.resolve(release.commit() + ".lock"),
          StandardOpenOption.CREATE, StandardOpenOption.WRITE); FileLock ignored = channel.lock()) {
        if (Files.isRegularFile(target.resolve(MARKER))
            && MODULES.stream().allMatch(m -> Files.isDirectory(target.resolve(m).resolve("lib")))) {
          return new Built(release, target, Duration.ofNanos(System.nanoTime() - t0), true);
        }
        // A directory without the marker is what a killed build left, one without a module's jars
        // a build of fewer modules: never used, made again.
        io.shipstream.failover.testsupport.FileTrees.delete(target);
        Path work = cache.resolve(release.commit() + ".building");
        io.shipstream.failover.testsupport.FileTrees.delete(work);
        Path src = work.resolve("src");
        Files.createDirectories(src);
        exec(List.of("bash", "-c", "set -o pipefail; git -C \"$0\" archive --format=tar \"$1\" | tar -x -C \"$2\"",
            repository.toString(), release.commit(), src.toString()), repository, log);
        List<String> mvn = new ArrayList<>(List.of(maven(), "-B", "-ntp", "-q"));
        if (offline()) {
          mvn.add("-o");
        }
        // package, not install: HEAD's artifacts in the local repository stay HEAD's. Reactor modules
        // resolve to the jars this build packages, so copy-dependencies takes the release's own.
        // -DskipTests, not -Dmaven.test.skip: a module's test-scope dependency on another's test jar
        // (workflows on wire's, since 0.1.0) must be built to be resolved; the tests are compiled, not run.
        mvn.addAll(List.of("package", "dependency:copy-dependencies", "-DincludeScope=runtime",
            "-DskipTests", "-Dmaven.javadoc.skip=true", "-pl", String.join(",", MODULES), "-am"));
        exec(mvn, src, log);
        for (String module : MODULES) {
          Path lib = work.resolve(module).resolve("lib");
          Files.createDirectories(lib);
          Path built = src.resolve(module).resolve("target");
          try (Stream<Path> files = Stream.concat(Files.list(built), Files.list(built.resolve("dependency")))) {
            for (Path jar : files.filter(f -> f.getFileName().toString().endsWith(".jar"))
                .filter(f -> !f.getFileName().toString().endsWith("-tests.jar")).toList()) {
              Files.copy(jar, lib.resolve(jar.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
          }
        }
        io.shipstream.failover.testsupport.FileTrees.delete(src);
        Files.writeString(work.resolve(MARKER), release.version() + " " + release.commit() + "\n");
        Files.move(work, target, StandardCopyOption.ATOMIC_MOVE);
        return new Built(release, target, Duration.ofNanos(System.nanoTime() - t0), false);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot build " + release + " in " + target + " (see " + log + ")", e);
    }
  }

  /**
   * Offline unless said otherwise: where Maven Central is reachable (CI), {@code
   * -Dupgrade.mavenOnline=true} or {@code CI=true} lets the build fetch what the release needs
   * that HEAD does not.
   */
  private static boolean offline() {
    return !Boolean.getBoolean("upgrade.mavenOnline") && !"true".equalsIgnoreCase(System.getenv("CI"));
  }

  /** {@code $MAVEN_HOME/bin/mvn} when set (Maven sets maven.home for its own JVM), else mvn on the PATH. */
  private static String maven() {
    for (String home : new String[] {System.getProperty("maven.home"), System.getenv("MAVEN_HOME")}) {
      if (home != null && Files.isExecutable(Path.of(home, "bin", "mvn"))) {
        return Path.of(home, "bin", "mvn").toString();
      }
    }
    return "mvn";
  }

  private static void exec(List<String> command, Path dir, Path log) throws IOException {
    Files.createDirectories(log.toAbsolutePath().getParent());
    Files.writeString(log, "$ " + String.join(" ", command) + "\n", StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())).start();
    try {
      if (!p.waitFor(BUILD_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", command) + " did not end within " + BUILD_TIMEOUT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    if (p.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed with exit code " + p.exitValue()
          + "; its output is in " + log);
    }
  }

  /** git's output, or null when it fails. */
  private static String run(Path dir, String... args) {
    try {
      Git git = Git.run(dir, args);
      return git.code() == 0 ? git.output().strip() : null;
    } catch (IOException e) {
      return null;
    }
  }

  private record Git(int code, String output) {
    static Git run(Path dir, String... args) throws IOException {
      List<String> command = new ArrayList<>(List.of("git"));
      command.addAll(List.of(args));
      Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      try {
        p.waitFor(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
      return new Git(p.exitValue(), out);
    }
  }

  /** A value, or the reason there is none. */
  public record Result<T>(T value, String absentReason) {
    static <T> Result<T> of(T value) {
      return new Result<>(value, null);
    }

    static <T> Result<T> absent(String reason) {
      return new Result<>(null, reason);
    }

    public boolean present() {
      return value != null;
    }
  }
}
