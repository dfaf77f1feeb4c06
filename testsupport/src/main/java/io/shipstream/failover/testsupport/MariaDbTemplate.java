package io.shipstream.failover.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An initialised MariaDB datadir, made once per JVM and copied for every server: mariadb-install-db
 * takes seconds, a copy of its 20-odd MB takes milliseconds.
 *
 * <p>The accounts are created here, in bootstrap mode, where nothing is written to a binlog. Every
 * server therefore starts with the same users and an empty GTID state, so replicas never diverge
 * from their primary over account creation, and any server can become any other's replica. (The
 * alternative, creating them on each server with sql_log_bin=0 after start, costs a round trip per
 * server and is easy to get wrong in a helper that restarts servers.)
 */
final class MariaDbTemplate {
  private static final Logger LOG = LoggerFactory.getLogger(MariaDbTemplate.class);
  private static Path datadir;

  private MariaDbTemplate() {}

  /** The template datadir, created on first use. */
  static synchronized Path datadir() {
    if (datadir == null) {
      datadir = create();
    }
    return datadir;
  }

  /** Copies the template into {@code target}, which must not exist yet. */
  static void copyTo(Path target) {
    copyTree(datadir(), target);
  }

  /** Copies a directory tree into {@code target}, which must not exist yet, keeping file times. */
  static void copyTree(Path source, Path target) {
    try {
      Files.walkFileTree(
          source,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
              Files.createDirectories(target.resolve(source.relativize(dir)));
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
              Files.copy(file, target.resolve(source.relativize(file)), StandardCopyOption.COPY_ATTRIBUTES);
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot copy " + source + " to " + target, e);
    }
  }

  private static Path create() {
    long started = System.nanoTime();
    try {
      Path dir = Files.createTempDirectory("failover-mariadb-template-");
      Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteRecursively(dir), "mariadb-template-cleanup"));
      Path data = dir.resolve("data");
      Path sql = dir.resolve("accounts.sql");
      Files.writeString(sql, accountsSql(), StandardCharsets.UTF_8);
      Path log = dir.resolve("install.log");
      List<String> command = new ArrayList<>();
      command.add(Binaries.mariadbInstallDb().toString());
      command.add("--no-defaults");
      command.add("--datadir=" + data);
      command.add("--tmpdir=" + MariaDbCommandLine.privateTmpdir(data));
      command.add("--user=root");
      command.add("--skip-test-db");
      command.add("--skip-name-resolve");
      command.add("--extra-file=" + sql);
      command.addAll(MariaDbCommandLine.INNODB_OPTIONS);
      ManagedProcess install = ManagedProcess.launch("mariadb-install-db", command, dir, log);
      int exit = install.awaitExit(Duration.ofMinutes(2));
      if (exit != 0) {
        throw new IllegalStateException(
            "mariadb-install-db failed with exit code " + exit + ":\n" + ManagedProcess.tail(log, 30));
      }
      LOG.info("MariaDB template datadir initialised in {} ms", (System.nanoTime() - started) / 1_000_000);
      return data;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the MariaDB template datadir", e);
    }
  }

  private static String accountsSql() {
    Account admin = MariaDbServer.ADMIN;
    Account app = MariaDbServer.APP;
    Account repl = MariaDbServer.REPLICATION;
    StringBuilder sql = new StringBuilder();
    // Bootstrap mode starts with the grant tables disabled; loading them makes CREATE USER work.
    sql.append("FLUSH PRIVILEGES;\n");
    for (String host : List.of("127.0.0.1", "localhost", "%")) {
      String user = "'" + admin.user() + "'@'" + host + "'";
      sql.append("CREATE USER ").append(user).append(" IDENTIFIED BY '").append(admin.password()).append("';\n");
      // ALL PRIVILEGES includes SUPER, READ_ONLY ADMIN and REPLICATION SLAVE ADMIN in 10.11.
      sql.append("GRANT ALL PRIVILEGES ON *.* TO ").append(user).append(" WITH GRANT OPTION;\n");
    }
    // The application may only touch appdb, and has neither SUPER nor READ_ONLY ADMIN, so
    // read_only=1 refuses its writes.
    sql.append("CREATE USER '").append(app.user()).append("'@'%' IDENTIFIED BY '").append(app.password())
        .append("';\n");
    sql.append("GRANT SELECT, INSERT, UPDATE, DELETE, CREATE ON appdb.* TO '").append(app.user()).append("'@'%';\n");
    // A replica's IO thread needs only REPLICATION SLAVE on its source (binlog dump with GTID).
    sql.append("CREATE USER '").append(repl.user()).append("'@'%' IDENTIFIED BY '").append(repl.password())
        .append("';\n");
    sql.append("GRANT REPLICATION SLAVE ON *.* TO '").append(repl.user()).append("'@'%';\n");
    return sql.toString();
  }

  static void deleteRecursively(Path dir) {
    try {
      FileTrees.delete(dir);
    } catch (IOException e) {
      LOG.warn("cannot delete {}: {}", dir, e.getMessage());
    }
  }
}
