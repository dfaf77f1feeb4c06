package io.shipstream.failover.testsupport;

import io.shipstream.failover.model.gtid.MariaDbGtidSet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real {@code mariadbd} in its own process, datadir and loopback port, with GTID replication
 * switched on. Start it with {@link #start}; {@link #close} (or the JVM's exit, however it exits)
 * ends the process. Every server has the accounts {@link #ADMIN}, {@link #APP} and {@link
 * #REPLICATION}.
 */
public final class MariaDbServer extends LocalServer implements DatabaseServer {
  private static final Logger LOG = LoggerFactory.getLogger(MariaDbServer.class);

  /** The operator's account: every privilege, including SUPER and READ_ONLY ADMIN. */
  public static final Account ADMIN = new Account("failover", "failover-secret");
  /** The application: DML and CREATE on {@code appdb} only, so read_only binds it. */
  public static final Account APP = new Account("app", "app-secret");
  /** What replicas log in to their source with. */
  public static final Account REPLICATION = new Account("repl", "repl-secret");

  private static final AtomicInteger SERVER_IDS = new AtomicInteger();
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration STOP_GRACE = Duration.ofSeconds(30);
  private static final int MAX_SOCKET_PATH = 100;

  private final int serverId;
  private final Path datadir;
  private final Path errorLog;
  private final Path socket;
  private List<String> extraOptions = List.of();
  private Duration startupTime = Duration.ZERO;

  private MariaDbServer(String name, int serverId, Path directory) {
    super(name, directory);
    this.serverId = serverId;
    this.datadir = directory.resolve("data");
    this.errorLog = directory.resolve("error.log");
    Path preferredSocket = directory.resolve("mariadbd.sock").toAbsolutePath();
    // A Unix socket path is limited to about 108 bytes; deep build directories exceed that.
    this.socket =
        preferredSocket.toString().length() <= MAX_SOCKET_PATH
            ? preferredSocket
            : Path.of(System.getProperty("java.io.tmpdir"), "mariadbd-" + ProcessHandle.current().pid() + "-" + serverId + ".sock");
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
    MariaDbServer server = new MariaDbServer(effectiveName, serverId, RestartableProcess.newDirectory(baseDir, effectiveName));
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

  private void startOnFreePort() {
    process.launchOnFreePort(free -> {
      port = free;
      return launchAndAwaitReady(List.of());
    });
  }

  /** Starts it again on its port, with {@code onceOptions} for this start only. */
  private void relaunch(List<String> onceOptions) {
    if (!launchAndAwaitReady(onceOptions)) {
      throw new IllegalStateException(name + ": port " + port + " was taken while the server was down");
    }
  }

  /** Returns false when the port was taken meanwhile; throws for any other startup failure. */
  private boolean launchAndAwaitReady(List<String> onceOptions) {
    List<String> command =
        new java.util.ArrayList<>(MariaDbCommandLine.build(
            datadir.toAbsolutePath(),
            port,
            socket,
            directory.resolve("mariadbd.pid").toAbsolutePath(),
            errorLog.toAbsolutePath(),
            serverId));
    command.addAll(extraOptions);
    command.addAll(onceOptions);
    return awaitReady(process.launch(command, directory));
  }

  private boolean awaitReady(ManagedProcess launched) {
    long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
    SQLException last = null;
    while (System.nanoTime() < deadline) {
      if (!launched.isAlive()) {
        String log = ManagedProcess.tail(errorLog, 25);
        if (log.contains("Bind on TCP/IP port") || log.contains("Address already in use")) {
          return false;
        }
        throw new IllegalStateException(
            name + " exited with code " + launched.exitCode().orElse(-1) + " during startup; " + errorLog + ":\n" + log);
      }
      try (Connection connection = connect(ADMIN, Duration.ofSeconds(1), Duration.ofSeconds(5))) {
        return true;
      } catch (SQLException e) {
        last = e;
      }
      sleep(Duration.ofMillis(20));
    }
    launched.kill();
    throw new IllegalStateException(
        name + " did not accept connections within " + STARTUP_TIMEOUT + " (" + (last == null ? "" : last.getMessage())
            + "); " + errorLog + ":\n" + ManagedProcess.tail(errorLog, 25));
  }

  @Override
  public Flavor flavor() {
    return Flavor.MARIADB;
  }

  public int serverId() {
    return serverId;
  }

  public Path errorLog() {
    return errorLog;
  }

  /** Wall time of the first start, template copy included. */
  public Duration startupTime() {
    return startupTime;
  }

  /** The URL without a database, as an application would get it from a Service. */
  @Override
  public String jdbcUrl() {
    return "jdbc:mariadb://" + HOST + ":" + port + "/";
  }

  @Override
  public Connection adminConnection() throws SQLException {
    return connect(ADMIN, Duration.ofSeconds(2), Duration.ofSeconds(30));
  }

  @Override
  public Connection appConnection() throws SQLException {
    return connect(APP, Duration.ofSeconds(2), Duration.ofSeconds(30));
  }

  @Override
  public Connection connect(Account account, Duration connectTimeout, Duration socketTimeout) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", account.user());
    properties.setProperty("password", account.password());
    properties.setProperty("connectTimeout", Long.toString(connectTimeout.toMillis()));
    properties.setProperty("socketTimeout", Long.toString(socketTimeout.toMillis()));
    return DriverManager.getConnection(jdbcUrl(), properties);
  }

  /** Graceful shutdown (SIGTERM), SIGKILL if it takes longer than 30 s. The datadir is kept. */
  @Override
  public void stop() {
    if (process.stop(STOP_GRACE)) {
      LOG.info("{} stopped", name);
    }
  }

  /** Crashes the server (SIGKILL); {@link #restart} recovers it like a real crash would. */
  @Override
  public void kill9() {
    if (process.kill9()) {
      LOG.info("{} killed with SIGKILL", name);
    }
  }

  @Override
  public void pause() {
    super.pause();
    LOG.info("{} paused (SIGSTOP)", name);
  }

  @Override
  public void resume() {
    super.resume();
    LOG.info("{} resumed (SIGCONT)", name);
  }

  /** Stops the server if it still runs, then starts it again on the same datadir and port. */
  @Override
  public void restart() {
    stop();
    long started = System.nanoTime();
    relaunch(List.of());
    LOG.info("{} restarted on port {} in {} ms", name, port, (System.nanoTime() - started) / 1_000_000);
  }

  /**
   * Stops the server if it still runs, then starts it read-only (read_only=ON from the command
   * line), as a production server configured to boot fenced comes back after a crash: it never
   * takes an application write before something decides it is the primary.
   */
  public void restartFenced() {
    stop();
    long started = System.nanoTime();
    relaunch(List.of("--read-only=ON"));
    LOG.info("{} restarted fenced on port {} in {} ms", name, port, (System.nanoTime() - started) / 1_000_000);
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

  @Override
  public void setReadOnly(boolean readOnly) {
    execute("SET GLOBAL read_only = " + (readOnly ? 1 : 0));
  }

  @Override
  public boolean isReadOnly() {
    return queryLong("SELECT @@global.read_only") == 1;
  }

  public String gtidBinlogPos() {
    return queryString("SELECT @@global.gtid_binlog_pos");
  }

  /** gtid_binlog_pos: with log_slave_updates, every transaction the server has executed. */
  @Override
  public String gtidExecuted() {
    return gtidBinlogPos();
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
  public void resetReplication() {
    execute("STOP SLAVE", "RESET SLAVE ALL");
  }

  /** Replication state of the default connection; empty when this server is not a replica. */
  @Override
  public ReplicaStatus replicaStatus() {
    return ReplicaStatus.read(this);
  }

  /**
   * Makes this server a GTID replica of {@code source} and waits until both replication threads
   * run. Works for a fresh server and for a former primary: the slave position starts at the
   * newest GTID this server already has in each domain, so nothing is applied twice.
   */
  @Override
  public void replicateFrom(DatabaseServer source) {
    if (source.flavor() != Flavor.MARIADB) {
      throw new IllegalArgumentException(name + " cannot replicate from " + source + ": GTIDs of two flavors do not mix");
    }
    execute("STOP SLAVE");
    String startAt = perDomainMax(gtidBinlogPos() + "," + queryString("SELECT @@global.gtid_slave_pos"));
    execute(
        "SET GLOBAL gtid_slave_pos = '" + startAt + "'",
        "CHANGE MASTER TO MASTER_HOST='" + source.host() + "', MASTER_PORT=" + source.port()
            + ", MASTER_USER='" + REPLICATION.user() + "', MASTER_PASSWORD='" + REPLICATION.password()
            + "', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1",
        "START SLAVE");
    ReplicaStatus.awaitRunning(this, Duration.ofSeconds(15));
    LOG.info("{} replicates from {}", name, source.name());
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

  /** Waits until this replica has applied everything {@code source} has in its binlog. */
  @Override
  public void awaitCaughtUpWith(DatabaseServer source, Duration timeout) {
    awaitReplicated(source.gtidExecuted(), timeout);
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
