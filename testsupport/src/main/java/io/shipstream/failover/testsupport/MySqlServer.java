package io.shipstream.failover.testsupport;

import io.shipstream.failover.model.gtid.GtidSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real MySQL 9.7 {@code mysqld}, run with chroot from the {@link MySqlRoot}, in its own process,
 * datadir and loopback port, with GTID replication switched on; the MySQL twin of {@link
 * MariaDbServer}, with the same accounts. Its datadir is a copy of the {@link MySqlTemplate} inside
 * the root (the chrooted server sees nothing else), deleted on {@link #close}; its error log is
 * written on the host under the directory it is started in, and kept. Clients speak to it with
 * MySQL Connector/J ({@link #jdbcUrl}).
 */
public final class MySqlServer implements DatabaseServer {
  private static final Logger LOG = LoggerFactory.getLogger(MySqlServer.class);
  /** Server ids apart from MariaDbServer's, so that servers of one JVM never share one. */
  private static final AtomicInteger SERVER_IDS = new AtomicInteger(1000);
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration STOP_GRACE = Duration.ofSeconds(30);

  private final String name;
  private final int serverId;
  private final Path directory;
  private final Path dataHome;
  private final Path errorLog;
  private int port;
  private List<String> extraOptions = List.of();
  private volatile ManagedProcess process;
  private Duration startupTime = Duration.ZERO;

  private MySqlServer(String name, int serverId, Path directory, Path dataHome) {
    this.name = name;
    this.serverId = serverId;
    this.directory = directory;
    this.dataHome = dataHome;
    this.errorLog = directory.resolve("error.log");
  }

  /** Starts a server named {@code mysql-<serverId>}; see {@link #start(Path, String, List)}. */
  public static MySqlServer start(Path baseDir) {
    return start(baseDir, null);
  }

  public static MySqlServer start(Path baseDir, String name) {
    return start(baseDir, name, List.of());
  }

  /**
   * Starts a server with its logs in a new directory under {@code baseDir} and its datadir in the
   * root, with extra mysqld options appended to the usual ones (kept for every restart). Throws
   * with the reason when MySQL cannot run here; tests call {@link Flavor#assumeAvailable} first.
   */
  public static MySqlServer start(Path baseDir, String name, List<String> extraOptions) {
    MySqlRoot.require();
    int serverId = SERVER_IDS.incrementAndGet();
    String effectiveName = name == null ? "mysql-" + serverId : name;
    long started = System.nanoTime();
    Path directory;
    Path dataHome;
    try {
      Files.createDirectories(baseDir);
      directory = Files.createTempDirectory(baseDir.toAbsolutePath(), effectiveName + "-");
      // Short: the socket lives here, and a Unix socket path is limited to about 108 bytes.
      dataHome = Files.createDirectory(MySqlTemplate.runDirectory().resolve(Integer.toString(serverId)));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the directories of " + effectiveName, e);
    }
    MySqlServer server = new MySqlServer(effectiveName, serverId, directory, dataHome);
    server.extraOptions = List.copyOf(extraOptions);
    MySqlTemplate.copyTo(server.datadir());
    long copied = System.nanoTime();
    server.startOnFreePort();
    server.startupTime = Duration.ofNanos(System.nanoTime() - started);
    LOG.info("{} (MySQL {}, server_id {}) ready on {}:{} in {} ms (datadir copy {} ms)", effectiveName,
        MySqlRoot.version(), serverId, MariaDbServer.HOST, server.port, server.startupTime.toMillis(),
        (copied - started) / 1_000_000);
    return server;
  }

  private Path datadir() {
    return dataHome.resolve("data");
  }

  private void startOnFreePort() {
    for (int attempt = 1; ; attempt++) {
      port = FreePorts.next();
      try {
        launchAndAwaitReady(List.of());
        return;
      } catch (PortTakenException e) {
        if (attempt == 3) {
          throw new IllegalStateException(name + " lost the race for a free port three times", e);
        }
        LOG.info("{}: port {} was taken meanwhile, trying another", name, port);
      }
    }
  }

  private void launchAndAwaitReady(List<String> onceOptions) {
    List<String> command = new ArrayList<>(MySqlCommandLine.build(
        MySqlTemplate.insideRoot(datadir()),
        port,
        MySqlTemplate.insideRoot(dataHome.resolve("mysqld.sock")),
        MySqlTemplate.insideRoot(dataHome.resolve("mysqld.pid")),
        serverId));
    command.addAll(extraOptions);
    command.addAll(onceOptions);
    // chroot and setpriv exec the server: the process started is mysqld itself.
    ManagedProcess launched = ManagedProcess.launch(name, command, directory, errorLog);
    process = launched;
    awaitReady(launched);
  }

  private void awaitReady(ManagedProcess launched) {
    long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
    SQLException last = null;
    while (System.nanoTime() < deadline) {
      if (!launched.isAlive()) {
        String log = ManagedProcess.tail(errorLog, 25);
        if (log.contains("Bind on TCP/IP port") || log.contains("Address already in use")) {
          throw new PortTakenException();
        }
        throw new IllegalStateException(
            name + " exited with code " + launched.exitCode().orElse(-1) + " during startup; " + errorLog + ":\n" + log);
      }
      try (Connection connection = connect(MariaDbServer.ADMIN, Duration.ofSeconds(1), Duration.ofSeconds(5))) {
        return;
      } catch (SQLException e) {
        last = e;
      }
      MariaDbServer.sleep(Duration.ofMillis(20));
    }
    launched.kill();
    throw new IllegalStateException(
        name + " did not accept connections within " + STARTUP_TIMEOUT + " (" + (last == null ? "" : last.getMessage())
            + "); " + errorLog + ":\n" + ManagedProcess.tail(errorLog, 25));
  }

  @Override
  public Flavor flavor() {
    return Flavor.MYSQL;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String host() {
    return MariaDbServer.HOST;
  }

  @Override
  public int port() {
    return port;
  }

  public int serverId() {
    return serverId;
  }

  @Override
  public Path directory() {
    return directory;
  }

  public Path errorLog() {
    return errorLog;
  }

  /** Wall time of the first start, template copy included. */
  public Duration startupTime() {
    return startupTime;
  }

  @Override
  public long pid() {
    ManagedProcess current = process;
    if (current == null) {
      throw new IllegalStateException(name + " was never started");
    }
    return current.pid();
  }

  @Override
  public boolean isRunning() {
    ManagedProcess current = process;
    return current != null && current.isAlive();
  }

  /**
   * For MySQL Connector/J. Without TLS, to keep each of the tests' many short connections cheap;
   * caching_sha2_password then needs the server's RSA key for a login its cache does not hold yet.
   */
  @Override
  public String jdbcUrl() {
    return "jdbc:mysql://" + MariaDbServer.HOST + ":" + port + "/?sslMode=DISABLED&allowPublicKeyRetrieval=true";
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

  @Override
  public void stop() {
    ManagedProcess current = process;
    if (current != null && current.isAlive()) {
      current.terminate(STOP_GRACE);
      LOG.info("{} stopped", name);
    }
  }

  @Override
  public void kill9() {
    ManagedProcess current = process;
    if (current != null) {
      current.kill();
      LOG.info("{} killed with SIGKILL", name);
    }
  }

  @Override
  public void pause() {
    requireProcess().signal("STOP");
    LOG.info("{} paused (SIGSTOP)", name);
  }

  @Override
  public void resume() {
    requireProcess().signal("CONT");
    LOG.info("{} resumed (SIGCONT)", name);
  }

  @Override
  public void restart() {
    stop();
    long started = System.nanoTime();
    launchAndAwaitReady(List.of());
    LOG.info("{} restarted on port {} in {} ms", name, port, (System.nanoTime() - started) / 1_000_000);
  }

  /** Like {@link MariaDbServer#restartFenced}: back with read_only=ON from the command line. */
  public void restartFenced() {
    stop();
    long started = System.nanoTime();
    launchAndAwaitReady(List.of("--read-only=ON"));
    LOG.info("{} restarted fenced on port {} in {} ms", name, port, (System.nanoTime() - started) / 1_000_000);
  }

  /** Ends the process for good (SIGKILL: the data is thrown away) and deletes the datadir. */
  @Override
  public void close() {
    ManagedProcess current = process;
    if (current != null && current.isAlive()) {
      current.kill();
    }
    MariaDbTemplate.deleteRecursively(dataHome);
  }

  // ---- SQL, all as ADMIN ----

  /**
   * Plain read_only, as on the MariaDB servers: it binds the application, not the operator's
   * account (which has SUPER). The product's fence uses super_read_only; clearing read_only clears
   * both.
   */
  @Override
  public void setReadOnly(boolean readOnly) {
    execute("SET GLOBAL read_only = " + (readOnly ? 1 : 0));
  }

  @Override
  public boolean isReadOnly() {
    return queryLong("SELECT @@global.read_only") == 1;
  }

  /** gtid_executed, printed with a newline after each comma; the whitespace is dropped. */
  @Override
  public String gtidExecuted() {
    String value = queryString("SELECT @@global.gtid_executed");
    return value == null ? "" : value.replaceAll("\\s+", "");
  }

  @Override
  public ReplicaStatus replicaStatus() {
    return ReplicaStatus.read(this);
  }

  /**
   * Makes this server a replica of {@code source} with GTID auto-positioning: it asks the source
   * for everything it has not executed, so a fresh server and a former primary are treated alike.
   * GET_SOURCE_PUBLIC_KEY lets the replication account log in with caching_sha2_password without TLS.
   */
  @Override
  public void replicateFrom(DatabaseServer source) {
    if (source.flavor() != Flavor.MYSQL) {
      throw new IllegalArgumentException(name + " cannot replicate from " + source + ": GTIDs of two flavors do not mix");
    }
    execute(
        "STOP REPLICA",
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST = '" + source.host() + "', SOURCE_PORT = " + source.port()
            + ", SOURCE_USER = '" + MariaDbServer.REPLICATION.user() + "', SOURCE_PASSWORD = '"
            + MariaDbServer.REPLICATION.password() + "', SOURCE_AUTO_POSITION = 1, SOURCE_CONNECT_RETRY = 1,"
            + " GET_SOURCE_PUBLIC_KEY = 1",
        "START REPLICA");
    ReplicaStatus.awaitRunning(this, Duration.ofSeconds(15));
    LOG.info("{} replicates from {}", name, source.name());
  }

  @Override
  public void stopReplicaSqlThread() {
    execute("STOP REPLICA SQL_THREAD");
  }

  @Override
  public void stopReplicaIoThread() {
    execute("STOP REPLICA IO_THREAD");
  }

  @Override
  public void resetReplication() {
    execute("STOP REPLICA", "RESET REPLICA ALL");
  }

  /** WAIT_FOR_EXECUTED_GTID_SET, which answers 0 once the whole set is executed. */
  @Override
  public void awaitReplicated(String gtidSet, Duration timeout) {
    String wanted = gtidSet.replaceAll("\\s+", "");
    if (GtidSet.parse(wanted).isEmpty()) {
      return;
    }
    String result = queryString(
        "SELECT WAIT_FOR_EXECUTED_GTID_SET('" + wanted + "', " + Math.max(1, (timeout.toMillis() + 999) / 1000) + ")");
    if (!"0".equals(result)) {
      throw new IllegalStateException(
          name + " did not apply " + wanted + " within " + timeout + "; it has " + gtidExecuted()
              + "; replica status: " + replicaStatus());
    }
  }

  private ManagedProcess requireProcess() {
    ManagedProcess current = process;
    if (current == null || !current.isAlive()) {
      throw new IllegalStateException(name + " is not running");
    }
    return current;
  }

  @Override
  public String toString() {
    return name + " (" + MariaDbServer.HOST + ":" + port + ")";
  }

  private static final class PortTakenException extends RuntimeException {
    PortTakenException() {
      super(null, null, false, false);
    }
  }
}
