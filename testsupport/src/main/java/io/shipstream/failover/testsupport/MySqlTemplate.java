package io.shipstream.failover.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MySQL datadirs, all inside the MySQL root so that the chrooted server can reach them: an
 * initialised template, and a directory per JVM for the servers' copies of it.
 *
 * <p>{@code mysqld --initialize-insecure} takes seconds, a copy of its ~100 MB far less, so the
 * template is made once per root and kept there for later runs ({@code data/template-<key>}, the
 * key naming the version and everything the template is made with), made in a directory of its
 * own and renamed into place, so another JVM sees a finished template or none. Each copy loses
 * {@code auto.cnf}, so each server makes its own server_uuid at its first start: replication
 * refuses a source with the replica's own uuid.
 *
 * <p>The accounts are created while initialising, with the binary log off, so every server starts
 * with the same users and an empty gtid_executed, and any server can replicate from any other.
 * MySQL 9.7 has only caching_sha2_password left of the usual plugins (mysql_native_password was
 * removed in 9.0), so that is what they use.
 *
 * <p>A JVM's servers live in {@code data/jvm-<pid>}, removed when the JVM exits; one left behind by
 * a JVM that was killed is removed by the next JVM that starts a MySQL server.
 */
final class MySqlTemplate {
  private static final Logger LOG = LoggerFactory.getLogger(MySqlTemplate.class);
  /** Inside the root. */
  static final String DATA = "/data";

  private static Path template;
  private static Path runDirectory;

  private MySqlTemplate() {}

  /** Copies the template into {@code target} (a path on the host, inside the root), without its auto.cnf. */
  static void copyTo(Path target) {
    MariaDbTemplate.copyTree(datadir(), target);
    try {
      Files.deleteIfExists(target.resolve("auto.cnf"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove auto.cnf from " + target, e);
    }
  }

  /** The template datadir on the host, made on first use. */
  static synchronized Path datadir() {
    if (template == null) {
      template = findOrCreate();
    }
    return template;
  }

  /** This JVM's directory for server datadirs, on the host, inside the root. */
  static synchronized Path runDirectory() {
    if (runDirectory == null) {
      Path root = MySqlRoot.require();
      Path data = root.resolve(DATA.substring(1));
      removeLeftovers(data);
      Path dir = data.resolve("jvm-" + ProcessHandle.current().pid());
      try {
        Files.createDirectories(dir);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create " + dir, e);
      }
      Runtime.getRuntime()
          .addShutdownHook(new Thread(() -> MariaDbTemplate.deleteRecursively(dir), "mysql-data-cleanup"));
      runDirectory = dir;
    }
    return runDirectory;
  }

  /** The path the chrooted server sees for {@code hostPath}, which must be inside the root. */
  static String insideRoot(Path hostPath) {
    Path root = MySqlRoot.directory().toAbsolutePath();
    Path absolute = hostPath.toAbsolutePath();
    if (!absolute.startsWith(root)) {
      throw new IllegalArgumentException(hostPath + " is outside the MySQL root " + root);
    }
    return "/" + root.relativize(absolute);
  }

  private static Path findOrCreate() {
    Path root = MySqlRoot.require();
    String accounts = accountsSql();
    String key = MySqlRoot.version() + "-"
        + Integer.toHexString(Objects.hash(accounts, MySqlCommandLine.INNODB_OPTIONS, "v1"));
    Path data = root.resolve(DATA.substring(1));
    Path finished = data.resolve("template-" + key);
    if (Files.isDirectory(finished)) {
      LOG.info("MySQL template datadir {} reused", finished);
      return finished.resolve("data");
    }
    long started = System.nanoTime();
    Path work = data.resolve("template-making-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
    try {
      Files.createDirectories(work);
      Files.writeString(work.resolve("accounts.sql"), accounts, StandardCharsets.UTF_8);
      Path log = work.resolve("initialize.log");
      List<String> command = new ArrayList<>(List.of(
          MySqlRoot.chroot().toString(), root.toString(), MySqlRoot.MYSQLD,
          "--no-defaults",
          "--initialize-insecure",
          "--user=root",
          "--datadir=" + insideRoot(work.resolve("data")),
          "--init-file=" + insideRoot(work.resolve("accounts.sql")),
          // Nothing of the initialisation is logged: the servers start with no transaction.
          "--skip-log-bin"));
      command.addAll(MySqlCommandLine.INNODB_OPTIONS);
      int exit = ManagedProcess.launch("mysqld --initialize", command, work, log).awaitExit(Duration.ofMinutes(2));
      if (exit != 0) {
        throw new IllegalStateException("mysqld --initialize-insecure failed with exit code " + exit + ":\n"
            + ManagedProcess.tail(log, 30));
      }
      try {
        Files.move(work, finished, StandardCopyOption.ATOMIC_MOVE);
      } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException e) {
        // Another JVM finished one first; theirs is as good.
        MariaDbTemplate.deleteRecursively(work);
      } catch (IOException e) {
        if (!Files.isDirectory(finished)) {
          throw e;
        }
        MariaDbTemplate.deleteRecursively(work);
      }
      LOG.info("MySQL {} template datadir initialised in {} ms: {}",
          MySqlRoot.version(), (System.nanoTime() - started) / 1_000_000, finished);
      return finished.resolve("data");
    } catch (IOException e) {
      MariaDbTemplate.deleteRecursively(work);
      throw new UncheckedIOException("cannot make the MySQL template datadir in " + data, e);
    } catch (RuntimeException e) {
      MariaDbTemplate.deleteRecursively(work);
      throw e;
    }
  }

  private static String accountsSql() {
    Account admin = MariaDbServer.ADMIN;
    Account app = MariaDbServer.APP;
    Account repl = MariaDbServer.REPLICATION;
    return String.join("\n",
        "CREATE USER '" + admin.user() + "'@'%' IDENTIFIED BY '" + admin.password() + "';",
        // ALL PRIVILEGES includes SUPER, CONNECTION_ADMIN and REPLICATION_SLAVE_ADMIN.
        "GRANT ALL PRIVILEGES ON *.* TO '" + admin.user() + "'@'%' WITH GRANT OPTION;",
        // The application may only touch appdb, and has neither SUPER nor CONNECTION_ADMIN, so
        // read_only refuses its writes.
        "CREATE USER '" + app.user() + "'@'%' IDENTIFIED BY '" + app.password() + "';",
        "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE ON appdb.* TO '" + app.user() + "'@'%';",
        "CREATE USER '" + repl.user() + "'@'%' IDENTIFIED BY '" + repl.password() + "';",
        "GRANT REPLICATION SLAVE ON *.* TO '" + repl.user() + "'@'%';",
        "");
  }

  /** Removes the run directories of JVMs that are gone, and templates half made by them. */
  private static void removeLeftovers(Path data) {
    if (!Files.isDirectory(data)) {
      return;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(data)) {
      for (Path entry : entries) {
        String name = entry.getFileName().toString();
        Optional<Long> pid = name.startsWith("jvm-") ? pidOf(name.substring(4))
            : name.startsWith("template-making-") ? pidOf(name.substring(16).split("-")[0]) : Optional.empty();
        if (pid.isPresent() && !ProcessHandle.of(pid.get()).map(ProcessHandle::isAlive).orElse(false)) {
          LOG.info("removing {}, left behind by JVM {} which is gone", entry, pid.get());
          MariaDbTemplate.deleteRecursively(entry);
        }
      }
    } catch (IOException e) {
      LOG.warn("cannot list {}: {}", data, e.getMessage());
    }
  }

  private static Optional<Long> pidOf(String text) {
    try {
      return Optional.of(Long.parseLong(text));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}
