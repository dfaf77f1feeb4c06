package io.shipstream.failover.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** How a test mariadbd is configured: everything on the command line, no option file read. */
final class MariaDbCommandLine {

  /**
   * Small and fast. innodb_flush_log_at_trx_commit=2 and sync_binlog=0 skip the fsync per commit:
   * a committed transaction is still in the OS page cache when mariadbd is SIGKILLed, so only an
   * OS crash could lose it, which tests never cause. The template is initialised with the same
   * InnoDB options, so the first start does not resize the redo log.
   */
  static final List<String> INNODB_OPTIONS =
      List.of(
          "--innodb-buffer-pool-size=32M",
          "--innodb-log-file-size=8M",
          "--innodb-flush-log-at-trx-commit=2",
          "--innodb-temp-data-file-path=ibtmp1:1M:autoextend");

  private MariaDbCommandLine() {}

  static List<String> build(Path datadir, int port, Path socket, Path pidFile, Path errorLog, int serverId) {
    List<String> command = new ArrayList<>();
    command.add(Binaries.mariadbd().toString());
    addServerBasics(command, datadir.toString(), port, socket.toString(), pidFile.toString());
    command.add("--log-error=" + errorLog);
    command.add("--tmpdir=" + privateTmpdir(datadir));
    command.add("--server-id=" + serverId);
    // Fixed binlog and relay log names, so they do not depend on the host name.
    command.add("--log-bin=mariadb-bin");
    command.add("--relay-log=relay-bin");
    command.add("--binlog-format=ROW");
    command.add("--gtid-strict-mode=ON");
    command.add("--log-slave-updates=ON");
    command.add("--sync-binlog=0");
    command.add("--skip-name-resolve");
    command.add("--performance-schema=OFF");
    command.add("--character-set-server=utf8mb4");
    command.add("--collation-server=utf8mb4_general_ci");
    // A replica notices a frozen (SIGSTOPped) source after 10 s instead of the default 60 s.
    command.add("--slave-net-timeout=10");
    command.addAll(INNODB_OPTIONS);
    return command;
  }

  /**
   * A temporary directory of the server's own beside its datadir: servers sharing the host's /tmp
   * made mariadb-install-db and a fence fail, rarely, under heavy concurrent load.
   */
  static Path privateTmpdir(Path datadir) {
    Path tmp = datadir.toAbsolutePath().resolveSibling(datadir.getFileName() + "-tmp");
    try {
      Files.createDirectories(tmp);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + tmp, e);
    }
    return tmp;
  }

  /**
   * What starts every test server's command line, mariadbd's and mysqld's alike: no option file,
   * its own datadir, port, socket and pid file, listening on loopback only.
   */
  static void addServerBasics(List<String> command, String datadir, int port, String socket, String pidFile) {
    command.add("--no-defaults");
    command.add("--user=root");
    command.add("--datadir=" + datadir);
    command.add("--port=" + port);
    command.add("--bind-address=" + MariaDbServer.HOST);
    command.add("--socket=" + socket);
    command.add("--pid-file=" + pidFile);
  }
}
