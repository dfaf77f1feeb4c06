package io.shipstream.failover.testsupport;

import java.util.ArrayList;
import java.util.List;

/** How a test mysqld is started: chroot into the MySQL root, everything on the command line. */
final class MySqlCommandLine {

  /**
   * Small and fast, as for mariadbd (see {@link MariaDbCommandLine#INNODB_OPTIONS}): no fsync per
   * commit, which only an OS crash could punish. The template is initialised with the same
   * options, so the first start does not resize the redo log.
   */
  static final List<String> INNODB_OPTIONS =
      List.of(
          "--innodb-buffer-pool-size=32M",
          "--innodb-redo-log-capacity=8M",
          "--innodb-doublewrite=OFF",
          "--innodb-flush-log-at-trx-commit=2");

  private MySqlCommandLine() {}

  /** Paths are as the chrooted server sees them (see {@link MySqlTemplate#insideRoot}). */
  static List<String> build(String datadir, int port, String socket, String pidFile, int serverId) {
    List<String> command = new ArrayList<>();
    command.add(MySqlRoot.chroot().toString());
    command.add(MySqlRoot.require().toString());
    command.add(MySqlRoot.MYSQLD);
    MariaDbCommandLine.addServerBasics(command, datadir, port, socket, pidFile);
    // Without --log-error the error log goes to stderr, which ManagedProcess writes to a file on
    // the host, outside the datadir, so it outlives the server's close.
    command.add("--mysqlx=OFF");
    // Without it, 9.7 refuses to start where its default directory does not exist.
    command.add("--secure-file-priv=");
    command.add("--server-id=" + serverId);
    command.add("--gtid-mode=ON");
    command.add("--enforce-gtid-consistency=ON");
    // Fixed binlog and relay log names, so they do not depend on the host name.
    command.add("--log-bin=bin");
    command.add("--relay-log=relay-bin");
    command.add("--sync-binlog=0");
    command.add("--skip-name-resolve");
    // Measured here: with the performance schema a server takes about 250 MB more (RSS 522 MB
    // against 275 MB on 9.7.4) and starts later. A real MySQL has it on by default; what the
    // product reads of it, performance_schema.variables_info (the sidecar's read of read_only's
    // origin), answers with it off too, which LocalServerIT shows on these servers.
    command.add("--performance-schema=OFF");
    // A replica notices a frozen (SIGSTOPped) source after 10 s instead of the default 60 s.
    command.add("--replica-net-timeout=10");
    command.addAll(INNODB_OPTIONS);
    return command;
  }
}
