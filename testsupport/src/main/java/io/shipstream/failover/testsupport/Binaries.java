package io.shipstream.failover.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Finds the server binaries the tests launch. Debian puts {@code mariadbd} in /usr/sbin, which is
 * not on a normal user's PATH, so the usual sbin directories are searched after PATH.
 */
public final class Binaries {
  private static final List<String> EXTRA_DIRS =
      List.of("/usr/sbin", "/usr/local/sbin", "/usr/bin", "/usr/local/bin", "/sbin", "/bin");

  private Binaries() {}

  public static Path mariadbd() {
    return require("mariadbd", "apt-get install mariadb-server");
  }

  public static Path mariadbInstallDb() {
    return require("mariadb-install-db", "apt-get install mariadb-server");
  }

  public static Path redisServer() {
    return require("redis-server", "apt-get install redis-server");
  }

  /** {@code setpriv} ties a child's life to ours; without it we rely on the shutdown hook alone. */
  static Optional<Path> setpriv() {
    return find("setpriv");
  }

  static Path kill() {
    return require("kill", "apt-get install procps");
  }

  /** Searches PATH, then the usual system directories, for an executable file of that name. */
  public static Optional<Path> find(String name) {
    Set<String> dirs = new LinkedHashSet<>();
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(":")) {
        if (!dir.isBlank()) {
          dirs.add(dir);
        }
      }
    }
    dirs.addAll(EXTRA_DIRS);
    for (String dir : dirs) {
      Path candidate = Path.of(dir, name);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  private static Path require(String name, String installHint) {
    return find(name)
        .orElseThrow(
            () ->
                new IllegalStateException(
                name + " not found on PATH or in " + new ArrayList<>(EXTRA_DIRS) + ": install with " + installHint));
  }
}
