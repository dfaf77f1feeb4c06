package io.shipstream.failover.testsupport;

import io.shipstream.failover.model.gtid.GtidSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
public final class MySqlServer extends LocalDatabaseServer {
  private static final Logger LOG = LoggerFactory.getLogger(MySqlServer.class);
  /** Server ids apart from MariaDbServer's, so that servers of one JVM never share one. */
  private static final AtomicInteger SERVER_IDS = new AtomicInteger(1000);

  private final Path dataHome;

  private MySqlServer(String name, int serverId, Path directory, Path dataHome) {
    super(name, serverId, directory);
    this.dataHome = dataHome;
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

  @Override
  List<String> commandLine() {
    return MySqlCommandLine.build(
        MySqlTemplate.insideRoot(datadir()),
        port,
        MySqlTemplate.insideRoot(dataHome.resolve("mysqld.sock")),
        MySqlTemplate.insideRoot(dataHome.resolve("mysqld.pid")),
        serverId);
  }

  /**
   * chroot and setpriv exec the server: the process started is mysqld itself. With no
   * --log-error, its error log is its output.
   */
  @Override
  ManagedProcess launch(List<String> command) {
    return process.launch(command, directory, errorLog);
  }

  /** The chrooted server names its files from inside the root. */
  @Override
  Path hostPath(String serverPath) {
    return MySqlRoot.directory().resolve(serverPath.substring(1));
  }

  @Override
  public Flavor flavor() {
    return Flavor.MYSQL;
  }

  /**
   * For MySQL Connector/J. Without TLS, to keep each of the tests' many short connections cheap;
   * caching_sha2_password then needs the server's RSA key for a login its cache does not hold yet.
   * With TLS where the server requires secure transport only: Connector/J checks a server
   * certificate's dates even where it verifies nothing, so a server given an expired or
   * not-yet-valid certificate on purpose (TlsIT) is reached in plaintext.
   */
  @Override
  public String jdbcUrl() {
    if (requiresSecureTransport()) {
      return "jdbc:mysql://" + MariaDbServer.HOST + ":" + port + "/?sslMode=REQUIRED";
    }
    return "jdbc:mysql://" + MariaDbServer.HOST + ":" + port + "/?sslMode=DISABLED&allowPublicKeyRetrieval=true";
  }

  /** Ends the process for good (SIGKILL: the data is thrown away) and deletes the datadir. */
  @Override
  public void close() {
    process.close();
    MariaDbTemplate.deleteRecursively(dataHome);
  }

  // ---- SQL, all as ADMIN ----

  /** gtid_executed, printed with a newline after each comma; the whitespace is dropped. */
  @Override
  public String gtidExecuted() {
    String value = queryString("SELECT @@global.gtid_executed");
    return value == null ? "" : value.replaceAll("\\s+", "");
  }

  /**
   * Makes this server a replica of {@code source} with GTID auto-positioning: it asks the source
   * for everything it has not executed, so a fresh server and a former primary are treated alike.
   * GET_SOURCE_PUBLIC_KEY lets the replication account log in with caching_sha2_password without TLS.
   */
  @Override
  public void replicateFrom(DatabaseServer source) {
    if (source.flavor() != Flavor.MYSQL) {
      throw new IllegalArgumentException(
          name + " cannot replicate from " + source + ": GTIDs of two flavors do not mix");
    }
    startReplicationFrom(source.host(), source.port());
    ReplicaStatus.awaitRunning(this, Duration.ofSeconds(15));
    LOG.info("{} replicates from {}", name, source.name());
  }

  @Override
  public void startReplicationFrom(String host, int port) {
    execute(
        "STOP REPLICA",
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST = '" + host + "', SOURCE_PORT = " + port
            + ", SOURCE_USER = '" + MariaDbServer.REPLICATION.user() + "', SOURCE_PASSWORD = '"
            + MariaDbServer.REPLICATION.password() + "', SOURCE_AUTO_POSITION = 1, SOURCE_CONNECT_RETRY = 1,"
            + " GET_SOURCE_PUBLIC_KEY = 1, SOURCE_HEARTBEAT_PERIOD = 1"
            + (hasTls()
                ? ", SOURCE_SSL = 1, SOURCE_SSL_VERIFY_SERVER_CERT = 1, SOURCE_SSL_CA = '" + option("ssl-ca") + "'"
                : ""),
        "START REPLICA");
  }

  /**
   * Binlogged under this server's server_uuid; the GTIDs returned are those of that uuid that were
   * not in gtid_executed before (a replica's applied writes carry its source's uuid).
   */
  @Override
  public String executeErrant(String... sql) {
    String uuid = queryString("SELECT @@global.server_uuid");
    GtidSet before = GtidSet.parse(gtidExecuted());
    String[] statements = new String[sql.length + 1];
    statements[0] = "SET SESSION sql_log_bin = 1";
    System.arraycopy(sql, 0, statements, 1, sql.length);
    execute(statements);
    String added = GtidSet.parse(gtidExecuted()).subtract(before).toString().replaceAll("\\s+", "");
    return String.join(",", List.of(added.split(",")).stream().filter(g -> g.startsWith(uuid + ":")).toList());
  }

  @Override
  public void stopReplication() {
    execute("STOP REPLICA");
  }

  @Override
  public void delayReplication(int seconds) {
    execute("STOP REPLICA", "CHANGE REPLICATION SOURCE TO SOURCE_DELAY = " + seconds, "START REPLICA");
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
  public void startReplicaIoThread() {
    execute("START REPLICA IO_THREAD");
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

  /** RESET MASTER is gone since 8.4; gtid_purged may be set once gtid_executed is empty. */
  @Override
  public void resetGtidHistoryTo(String executed) {
    execute("STOP REPLICA", "RESET BINARY LOGS AND GTIDS",
        "SET GLOBAL gtid_purged = '" + executed.replaceAll("\\s+", "") + "'");
  }
}
