package io.shipstream.failover.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The root file system MySQL 9.7 runs from. Debian packages 9.7 only in its unstable suite, built
 * for a newer C library than the host's, so scripts/prerequisites makes a root with {@code
 * debootstrap --variant=minbase --include=mysql-server-core sid} once and caches it outside the
 * repository; servers run in it with {@code chroot}, which needs root.
 *
 * <p>Where it lives: {@link #LOCATION} (the system property {@code bloodraven.mysql.root}, else
 * {@code BLOODRAVEN_MYSQL_ROOT}, else {@code /var/cache/bloodraven/mysql-root}), the same rule as
 * the script's. A root that is not there (never made, or this process is not root) makes the MySQL
 * tests skip with that reason. A root that is there but whose {@code mysqld} is not 9.7.x, or does
 * not run, fails them: only that binary is accepted, never the host's {@code /usr/sbin/mysqld} (on
 * Debian bookworm a link to MariaDB's mariadbd).
 */
public final class MySqlRoot {
  static final CacheDirectory LOCATION =
      new CacheDirectory("bloodraven.mysql.root", "BLOODRAVEN_MYSQL_ROOT", "/var/cache/bloodraven/mysql-root");
  /** Set to true where a skipped MySQL flavor would hide a broken setup (CI). */
  static final String REQUIRED_ENV = "BLOODRAVEN_MYSQL_REQUIRED";
  /** Written last by scripts/prerequisites: without it the root may be a partial one. */
  static final String MARKER = ".bloodraven-mysql-root";
  /** The path of the server inside the root. */
  static final String MYSQLD = "/usr/sbin/mysqld";
  private static final Pattern VERSION = Pattern.compile("Ver (9\\.7\\.\\d+)\\S*");

  private static Optional<String> unavailable;
  private static String version;

  private MySqlRoot() {}

  /** The root directory, whether or not it is there. */
  public static Path directory() {
    return LOCATION.path();
  }

  static boolean required() {
    return "true".equalsIgnoreCase(System.getenv(REQUIRED_ENV));
  }

  /**
   * Why MySQL cannot run here, or empty. Checked once per JVM; a root that is present but wrong
   * throws rather than skipping.
   */
  public static synchronized Optional<String> unavailableReason() {
    if (unavailable == null) {
      unavailable = check();
    }
    return unavailable;
  }

  /** The root, checked; throws with the reason when MySQL cannot run here. */
  static Path require() {
    unavailableReason().ifPresent(reason -> {
      throw new IllegalStateException(reason);
    });
    return directory();
  }

  /** The server's version as it reports it, for example {@code 9.7.4}. */
  public static synchronized String version() {
    require();
    return version;
  }

  private static Optional<String> check() {
    Path root = directory();
    long uid = uid();
    if (uid != 0) {
      return Optional.of("MySQL 9.7 runs with chroot, which needs root; this process runs as uid " + uid);
    }
    if (Binaries.find("chroot").isEmpty()) {
      return Optional.of("MySQL 9.7 runs with chroot, which is not installed");
    }
    if (!Files.isRegularFile(root.resolve(MARKER))) {
      return Optional.of("no MySQL 9.7 root at " + root + " (" + MARKER + " missing): scripts/prerequisites makes it"
          + " as root with debootstrap; its output says why it did not");
    }
    String answer = run(List.of(chroot().toString(), root.toString(), MYSQLD, "--version"));
    Matcher matcher = VERSION.matcher(answer);
    if (!matcher.find()) {
      throw new IllegalStateException("the MySQL root " + root + " holds no MySQL 9.7.x server: " + MYSQLD
          + " --version answered: " + answer.strip() + "; remove " + root + " and run scripts/prerequisites again");
    }
    version = matcher.group(1);
    return Optional.empty();
  }

  static Path chroot() {
    return Binaries.find("chroot").orElseThrow(() -> new IllegalStateException("chroot not found"));
  }

  private static String run(List<String> command) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      process.getOutputStream().close();
      if (!process.waitFor(Duration.ofSeconds(30).toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return "(no answer within 30 s)";
      }
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return process.exitValue() == 0 ? output : "exit code " + process.exitValue() + ": " + output;
    } catch (IOException e) {
      return "cannot run " + command + ": " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** The effective user id, from /proc (Java has no portable API for it). */
  private static long uid() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.UTF_8)) {
        if (line.startsWith("Uid:")) {
          return Long.parseLong(line.substring(4).trim().split("\\s+")[1]);
        }
      }
      return -1;
    } catch (IOException | UncheckedIOException e) {
      return -1;
    }
  }
}
