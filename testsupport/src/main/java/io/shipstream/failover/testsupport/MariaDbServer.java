package io.shipstream.failover.testsupport;

import io.shipstream.failover.model.gtid.MariaDbGtidSet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real {@code mariadbd} in its own process, datadir and loopback port, with GTID replication
 * switched on. Start it with {@link #start}; {@link #close} (or the JVM's exit, however it exits)
 * ends the process. Every server has the accounts {@link #ADMIN}, {@link #APP} and {@link
 * #REPLICATION}.
 */
public final class MariaDbServer extends LocalDatabaseServer {
  private static final Logger LOG = LoggerFactory.getLogger(MariaDbServer.class);

  /** The operator's account: every privilege, including SUPER and READ_ONLY ADMIN. */
  public static final Account ADMIN = new Account("failover", "failover-secret");
  /** The application: DML and CREATE on {@code appdb} only, so read_only binds it. */
  public static final Account APP = new Account("app", "app-secret");
  /** What replicas log in to their source with. */
  public static final Account REPLICATION = new Account("repl", "repl-secret");

  private static final AtomicInteger SERVER_IDS = new AtomicInteger();
  private static final int MAX_SOCKET_PATH = 100;

  private final Path datadir;
  private final Path socket;

  private MariaDbServer(String name, int serverId, Path directory) {
    super(name, serverId, directory);
    this.datadir = directory.resolve("data");
    Path preferredSocket = directory.resolve("mariadbd.sock").toAbsolutePath();
    // A Unix socket path is limited to about 108 bytes; deep build directories exceed that.
    this.socket =
        preferredSocket.toString().length() <= MAX_SOCKET_PATH
            ? preferredSocket
            : Path.of(System.getProperty("java.io.tmpdir"),
                "mariadbd-" + ProcessHandle.current().pid() + "-" + serverId + ".sock");
  }

  /** Starts a server named {@code mariadb-<serverId>} in a new directory under {@code baseDir}. */
  public static MariaDbServer start(Path baseDir) {
    return start(baseDir, null);
  }

  /**
   * Options for many servers on one small machine (the scale benchmark runs 40): caches and
   * buffers cut to what a table of a few thousand rows needs. A server started with them uses
   * well under 100 MB resident.
   */
  public static final List<String> SMALL_FOOTPRINT = List.of(
      "--innodb-buffer-pool-size=8M",
      "--innodb-log-buffer-size=2M",
      "--key-buffer-size=64K",
      "--aria-pagecache-buffer-size=1M",
      "--max-connections=40",
      "--table-open-cache=200",
      "--table-definition-cache=400",
      "--tmp-table-size=1M",
      "--max-heap-table-size=1M",
      "--thread-cache-size=4");

  /** Starts a server with its datadir, logs and socket in a new directory under {@code baseDir}. */
  public static MariaDbServer start(Path baseDir, String name) {
    return start(baseDir, name, List.of());
  }

  /**
   * Starts a server with extra mariadbd options appended to the usual ones (for example {@link
   * #SMALL_FOOTPRINT}); they are kept for every restart.
   */
  public static MariaDbServer start(Path baseDir, String name, List<String> extraOptions) {
    int serverId = SERVER_IDS.incrementAndGet();
    String effectiveName = name == null ? "mariadb-" + serverId : name;
    long started = System.nanoTime();
    MariaDbServer server =
        new MariaDbServer(effectiveName, serverId, RestartableProcess.newDirectory(baseDir, effectiveName));
    server.extraOptions = List.copyOf(extraOptions);
    MariaDbTemplate.copyTo(server.datadir);
    long copied = System.nanoTime();
    server.startOnFreePort();
    server.startupTime = Duration.ofNanos(System.nanoTime() - started);
    LOG.info(
        "{} (server_id {}) ready on {}:{} in {} ms (datadir copy {} ms)",
        effectiveName, serverId, HOST, server.port, server.startupTime.toMillis(), (copied - started) / 1_000_000);
    return server;
  }

  @Override
  List<String> commandLine() {
    return MariaDbCommandLine.build(
        datadir.toAbsolutePath(),
        port,
        socket,
        directory.resolve("mariadbd.pid").toAbsolutePath(),
        errorLog.toAbsolutePath(),
        serverId);
  }

  /** The error log is mariadbd's own (--log-error); the process's output goes to stdout.log. */
  @Override
  ManagedProcess launch(List<String> command) {
    return process.launch(command, directory);
  }

  @Override
  public Flavor flavor() {
    return Flavor.MARIADB;
  }

  /** The URL without a database, as an application would get it from a Service. */
  @Override
  public String jdbcUrl() {
    return "jdbc:mariadb://" + HOST + ":" + port + "/" + (hasTls() ? "?sslMode=trust" : "");
  }

  /** Ends the process for good (SIGKILL: the data is thrown away) and deletes the datadir. */
  @Override
  public void close() {
    process.close();
    MariaDbTemplate.deleteRecursively(datadir);
    if (!socket.startsWith(directory.toAbsolutePath())) {
      try {
        Files.deleteIfExists(socket);
      } catch (IOException e) {
        LOG.debug("cannot delete {}: {}", socket, e.getMessage());
      }
    }
  }

  // ---- SQL helpers, all as ADMIN ----

  public String gtidBinlogPos() {
    return queryString("SELECT @@global.gtid_binlog_pos");
  }

  /** gtid_binlog_pos: with log_slave_updates, every transaction the server has executed. */
  @Override
  public String gtidExecuted() {
    return gtidBinlogPos();
  }

  @Override
  public void startReplicationFrom(String host, int port) {
    execute("STOP SLAVE", "CHANGE MASTER TO MASTER_HOST='" + host + "', MASTER_PORT=" + port
        + ", MASTER_USER='" + REPLICATION.user() + "', MASTER_PASSWORD='" + REPLICATION.password()
        + "', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1, MASTER_HEARTBEAT_PERIOD=1" + sslOptions(),
        "START SLAVE");
  }

  /**
   * In a GTID domain of its own (7), so that the source's replicated writes do not stop this
   * server's SQL thread under gtid_strict_mode; the GTIDs returned are those of this server id
   * that were not in gtid_binlog_pos before.
   */
  @Override
  public String executeErrant(String... sql) {
    String before = gtidBinlogPos();
    String[] statements = new String[sql.length + 2];
    statements[0] = "SET SESSION sql_log_bin = 1";
    statements[1] = "SET SESSION gtid_domain_id = 7";
    System.arraycopy(sql, 0, statements, 2, sql.length);
    execute(statements);
    List<String> old = List.of(before.split(","));
    return String.join(",", List.of(gtidBinlogPos().split(",")).stream()
        .filter(g -> !old.contains(g) && g.split("-").length == 3 && g.split("-")[1].equals(Integer.toString(serverId)))
        .toList());
  }

  @Override
  public void stopReplication() {
    execute("STOP SLAVE");
  }

  @Override
  public void delayReplication(int seconds) {
    execute("STOP SLAVE", "CHANGE MASTER TO MASTER_DELAY=" + seconds, "START SLAVE");
  }

  @Override
  public void stopReplicaSqlThread() {
    execute("STOP SLAVE SQL_THREAD");
  }

  @Override
  public void stopReplicaIoThread() {
    execute("STOP SLAVE IO_THREAD");
  }

  @Override
  public void startReplicaIoThread() {
    execute("START SLAVE IO_THREAD");
  }

  @Override
  public void resetReplication() {
    execute("STOP SLAVE", "RESET SLAVE ALL");
  }

  /**
   * Makes this server a GTID replica of {@code source} and waits until both replication threads
   * run. Works for a fresh server and for a former primary: the slave position starts at the
   * newest GTID this server already has in each domain, so nothing is applied twice.
   */
  @Override
  public void replicateFrom(DatabaseServer source) {
    if (source.flavor() != Flavor.MARIADB) {
      throw new IllegalArgumentException(
          name + " cannot replicate from " + source + ": GTIDs of two flavors do not mix");
    }
    execute("STOP SLAVE");
    String startAt = perDomainMax(gtidBinlogPos() + "," + queryString("SELECT @@global.gtid_slave_pos"));
    execute(
        "SET GLOBAL gtid_slave_pos = '" + startAt + "'",
        "CHANGE MASTER TO MASTER_HOST='" + source.host() + "', MASTER_PORT=" + source.port()
            + ", MASTER_USER='" + REPLICATION.user() + "', MASTER_PASSWORD='" + REPLICATION.password()
            + "', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1, MASTER_HEARTBEAT_PERIOD=1" + sslOptions(),
        "START SLAVE");
    ReplicaStatus.awaitRunning(this, Duration.ofSeconds(15));
    LOG.info("{} replicates from {}", name, source.name());
  }

  /** A channel of a server with certificates checks its source with the same CA, and its name. */
  private String sslOptions() {
    return hasTls() ? ", MASTER_SSL=1, MASTER_SSL_VERIFY_SERVER_CERT=1, MASTER_SSL_CA='" + option("ssl-ca") + "'" : "";
  }

  /** Waits until this replica has applied {@code gtidPos} (MASTER_GTID_WAIT, one GTID per domain). */
  @Override
  public void awaitReplicated(String gtidPos, Duration timeout) {
    String wanted = perDomainMax(gtidPos);
    if (wanted.isEmpty()) {
      return;
    }
    String result =
        queryString("SELECT MASTER_GTID_WAIT('" + wanted + "', " + Math.max(1, timeout.toMillis() / 1000.0) + ")");
    if (!"0".equals(result)) {
      throw new IllegalStateException(
          name + " did not apply " + wanted + " within " + timeout + "; replica status: " + replicaStatus());
    }
  }

  @Override
  public void resetGtidHistoryTo(String executed) {
    execute("STOP SLAVE", "RESET MASTER", "SET GLOBAL gtid_slave_pos = '" + perDomainMax(executed) + "'");
  }

  /**
   * One GTID per domain, the newest: what MASTER_GTID_WAIT and gtid_slave_pos accept. A binlog
   * position lists one GTID per domain and server id, so after a failover it has two for a domain.
   */
  private static String perDomainMax(String positions) {
    String joined = positions.replaceAll("^,+|,+$", "").replaceAll(",,+", ",");
    return MariaDbGtidSet.parse(joined).perDomainMax().toString();
  }

  static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

}
