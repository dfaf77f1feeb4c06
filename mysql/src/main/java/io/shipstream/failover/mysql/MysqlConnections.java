package io.shipstream.failover.mysql;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executor;

/**
 * The one place that opens connections to the servers: MySQL servers with MySQL Connector/J
 * ({@code jdbc:mysql:}), MariaDB servers with MariaDB Connector/J ({@code jdbc:mariadb:}).
 *
 * <p>The flavor is known before the first connection: the site declares it ({@link
 * MysqlAddress#flavor()}), or the server's greeting says it ({@link Greeting}: one TCP connection
 * without a login, once per endpoint, remembered by {@link ServerFlavors}). Every connection's
 * server version is checked against it: a server that turns out to be the other flavor is refused
 * with {@link FlavorMismatchException} when declared, and when detected (the endpoint now serves
 * another server) the remembered flavor is forgotten and the connection opened again with the
 * right driver.
 *
 * <p>A connection an activity finished with cleanly is kept for a short while and handed to the
 * next activity for the same server and login, because the steps of one failover follow each
 * other within milliseconds and a new connection costs three or four network round trips before
 * its first statement (the TCP and MySQL handshakes): ~250 ms for a site 70 ms away, on every
 * step, where a ping costs one. A kept connection idle for more than {@link #FRESH} is handed out
 * only after a ping answered within a second (one that answered more recently is handed out as
 * it is), and closed after {@link #MAX_IDLE}: a server that restarted, went away or was cut off
 * meanwhile fails the ping (a partition holds it for that second, no longer than the connect
 * timeout would), the connection is closed and a new one opened. A session that saw an error, or
 * that changed session state, is never kept.
 *
 * <p>The timeouts are given per call ({@link Timeouts}): the activities connect within 2 s so an
 * unreachable server is reported quickly, and size the socket timeout to the longest statement a
 * call runs; the watcher's polls and the sidecar's looks have their own. Extra driver properties
 * (TLS: {@code sslMode}, {@code serverSslCert}; or {@code allowPublicKeyRetrieval} for MySQL 8's
 * caching_sha2_password without TLS) come from the worker's configuration, in MariaDB Connector/J's
 * names, and the group's TLS from its {@link Credentials#sessionTls()} (both drivers, see {@link
 * SessionTls}), which wins over them; {@code sslMode} is translated for Connector/J ({@code disable}, the default of both here,
 * is {@code DISABLED}; {@code trust} {@code REQUIRED}; {@code verify-ca} {@code VERIFY_CA}; {@code
 * verify-full} {@code VERIFY_IDENTITY}). Both flavors get one policy: the same timeouts, the same
 * keeping, ping and replacement.
 */
public final class MysqlConnections {
  /** A connection idle this long is closed rather than handed out. */
  static final Duration MAX_IDLE = Duration.ofSeconds(30);
  /**
   * A kept connection whose last statement was answered this recently is handed out without a
   * ping: the steps of one failover follow each other within milliseconds, and a ping is a round
   * trip of the link inside the write window. A server that went away within it fails the step's
   * first statement as a lost connection, which the activity's retry meets with a new connection.
   */
  static final Duration FRESH = Duration.ofSeconds(1);
  private static final int MAX_KEPT_PER_SERVER = 4;
  private static final Executor SAME_THREAD = Runnable::run;
  /** Closes what stayed idle too long even when no activity comes to notice. */
  private static final java.util.concurrent.ScheduledExecutorService SWEEPER =
      java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "mysql-idle-sweeper");
        t.setDaemon(true);
        return t;
      });

  private static final java.sql.Driver MYSQL_DRIVER = mysqlDriver();
  private static final java.sql.Driver MARIADB_DRIVER = new org.mariadb.jdbc.Driver();

  private record Key(String host, int port, ServerFlavor flavor, String username, String password, SessionTls tls) {}

  private record Idle(Connection connection, long since) {}

  private final Map<String, String> driverProperties;
  private final boolean keep;
  private final Map<Key, Deque<Idle>> idle = new HashMap<>();
  private final ServerFlavors flavors;
  private final long freshNanos;
  private final java.util.concurrent.atomic.AtomicLong opened = new java.util.concurrent.atomic.AtomicLong();
  private final java.util.concurrent.atomic.AtomicLong pinged = new java.util.concurrent.atomic.AtomicLong();
  private final java.util.concurrent.atomic.AtomicLong exchanges = new java.util.concurrent.atomic.AtomicLong();

  /**
   * What went over the network so far: connections opened (each a TCP and a MySQL handshake and a
   * login), pings of kept connections, and statement exchanges (one per statement, or per batch of
   * statements sent together): across a WAN link each costs at least one round trip.
   */
  public record Counts(long opened, long pinged, long exchanges) {
    public Counts minus(Counts earlier) {
      return new Counts(opened - earlier.opened, pinged - earlier.pinged, exchanges - earlier.exchanges);
    }
  }

  public Counts counts() {
    return new Counts(opened.get(), pinged.get(), exchanges.get());
  }

  void exchanged() {
    exchanges.incrementAndGet();
  }

  public MysqlConnections() {
    this(Map.of());
  }

  public MysqlConnections(Map<String, String> driverProperties) {
    this(driverProperties, true);
  }

  /** {@code keep} false: every connection is closed after use, none is handed out twice. */
  public MysqlConnections(Map<String, String> driverProperties, boolean keep) {
    this(driverProperties, keep, ServerFlavors.SHARED);
  }

  MysqlConnections(Map<String, String> driverProperties, boolean keep, ServerFlavors flavors) {
    this(driverProperties, keep, flavors, FRESH);
  }

  /** {@code fresh}: see {@link #FRESH}; zero pings every kept connection before handing it out. */
  MysqlConnections(Map<String, String> driverProperties, boolean keep, ServerFlavors flavors, Duration fresh) {
    this.freshNanos = fresh.toNanos();
    this.flavors = flavors;
    this.driverProperties = Map.copyOf(driverProperties);
    this.keep = keep;
    if (keep) {
      // Held weakly: an instance nobody uses any more is not kept alive by its sweep.
      java.lang.ref.WeakReference<MysqlConnections> self = new java.lang.ref.WeakReference<>(this);
      java.util.concurrent.ScheduledFuture<?>[] task = new java.util.concurrent.ScheduledFuture<?>[1];
      task[0] = SWEEPER.scheduleWithFixedDelay(() -> {
        MysqlConnections c = self.get();
        if (c == null) {
          task[0].cancel(false);
          return;
        }
        synchronized (c.idle) {
          c.closeExpired(System.nanoTime());
        }
      }, MAX_IDLE.toMillis(), MAX_IDLE.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }
  }

  /** Every connection is closed after use: for a process that talks to a server now and then. */
  public static MysqlConnections unpooled() {
    return new MysqlConnections(Map.of(), false);
  }

  /** The flavor a connection to {@code address} is opened for: declared, or read from its greeting. */
  ServerFlavor flavor(MysqlAddress address, Timeouts timeouts) throws SQLException {
    return address.flavor() != null ? address.flavor() : flavors.of(address.host(), address.port(), timeouts);
  }

  /**
   * A connection for a session; {@code unchecked}: a kept one handed out without a ping (see {@link
   * #FRESH}), whose first statement may find it ended.
   */
  record Opened(Connection connection, boolean unchecked) {}

  Opened open(MysqlAddress address, Credentials credentials, Timeouts timeouts) throws SQLException {
    ServerFlavor flavor = flavor(address, timeouts);
    Key key = key(address, flavor, credentials);
    Opened kept = takeKept(key, timeouts.socket());
    if (kept != null) {
      return kept;
    }
    opened.incrementAndGet();
    return new Opened(openNew(address, flavor, credentials, timeouts), false);
  }

  private Connection openNew(MysqlAddress address, ServerFlavor flavor, Credentials credentials, Timeouts timeouts)
      throws SQLException {
    Connection connection = connect(address, flavor, credentials, timeouts);
    ServerFlavor actual;
    String version;
    try {
      version = connection.getMetaData().getDatabaseProductVersion();
      actual = ServerFlavor.ofVersion(version);
    } catch (SQLException | RuntimeException e) {
      closeQuietly(connection);
      throw e;
    }
    if (actual == flavor) {
      return connection;
    }
    closeQuietly(connection);
    if (address.flavor() != null) {
      throw new WrongFlavor(address, flavor, actual, version);
    }
    // Detected, and the endpoint now serves the other flavor: forget it and use the right driver.
    flavors.forget(address.host(), address.port());
    flavors.remember(address.host(), address.port(), actual);
    return openNew(address.withFlavor(actual), actual, credentials, timeouts);
  }

  private Connection connect(MysqlAddress address, ServerFlavor flavor, Credentials credentials, Timeouts timeouts)
      throws SQLException {
    Properties properties = new Properties();
    // MySQL 9 has no mysql_native_password: its accounts use caching_sha2_password, whose first
    // login after a server start needs TLS or the server's RSA key. Without TLS the key is asked
    // for, as replicas do (GET_SOURCE_PUBLIC_KEY); configured driver properties override this.
    properties.setProperty("allowPublicKeyRetrieval", "true");
    properties.putAll(driverProperties);
    // The group's TLS (its Secret, or the sidecar's mounts) is the group's word, stronger than the
    // process's configuration: with it on, allowPublicKeyRetrieval is off (see SessionTls).
    SessionTls tls = credentials.sessionTls();
    if (tls.mode().encrypted()) {
      properties.putAll(tls.driverProperties(flavor));
    }
    properties.setProperty("user", credentials.username());
    properties.setProperty("password", credentials.password());
    // Milliseconds for both drivers.
    properties.setProperty("connectTimeout", Long.toString(timeouts.connect().toMillis()));
    properties.setProperty("socketTimeout", Long.toString(timeouts.socket().toMillis()));
    // Statements are sent as text: SET GLOBAL, KILL and CHANGE MASTER are not all preparable.
    properties.setProperty("useServerPrepStmts", "false");
    // The steps inside the write window send their statements as one exchange ("STOP SLAVE; RESET
    // SLAVE ALL; SET GLOBAL read_only = 0; SELECT ..."), see MysqlSession.queryAll: one round trip
    // of a WAN link instead of one per statement. Same name in both drivers.
    properties.setProperty("allowMultiQueries", "true");
    String hostPort = address.host() + ":" + address.port() + "/";
    if (flavor == ServerFlavor.MARIADB) {
      Connection c = MARIADB_DRIVER.connect("jdbc:mariadb://" + hostPort, properties);
      return requireConnected(c, address);
    }
    // Connector/J prefers TLS by default; MariaDB Connector/J does not use it unless told, and one
    // policy holds for both: no TLS unless configured, in the configured mode.
    if (!tls.mode().encrypted()) {
      properties.setProperty("sslMode", connectorJSslMode(driverProperties.get("sslMode")));
    }
    // MariaDB Connector/J bounds the greeting and the login by connectTimeout, Connector/J by
    // socketTimeout: the handshake gets the connect timeout here too (a frozen server accepts the
    // TCP connection and never greets), and the statements the socket timeout once connected.
    properties.setProperty("socketTimeout", Long.toString(timeouts.connect().toMillis()));
    Connection c = requireConnected(MYSQL_DRIVER.connect("jdbc:mysql://" + hostPort, properties), address);
    try {
      c.setNetworkTimeout(SAME_THREAD, (int) timeouts.socket().toMillis());
    } catch (SQLException | RuntimeException e) {
      closeQuietly(c);
      throw e;
    }
    return c;
  }

  /** MariaDB Connector/J's sslMode in Connector/J's words. */
  static String connectorJSslMode(String mariadb) {
    if (mariadb == null) {
      return "DISABLED";
    }
    return switch (mariadb.toLowerCase(java.util.Locale.ROOT)) {
      case "disable", "disabled" -> "DISABLED";
      case "trust", "required" -> "REQUIRED";
      case "verify-ca", "verify_ca" -> "VERIFY_CA";
      case "verify-full", "verify_identity" -> "VERIFY_IDENTITY";
      // Refused: it falls back to plaintext when the server offers no TLS (see TlsMode).
      case "preferred" -> throw new IllegalArgumentException(
          "sslMode 'preferred' is refused: it falls back to plaintext when the server offers no TLS");
      default -> throw new IllegalArgumentException("sslMode '" + mariadb + "' has no Connector/J equivalent");
    };
  }

  private static Connection requireConnected(Connection c, MysqlAddress address) throws SQLException {
    if (c == null) {
      throw new SQLException("no driver accepted the URL for " + address);
    }
    return c;
  }

  private static java.sql.Driver mysqlDriver() {
    try {
      return new com.mysql.cj.jdbc.Driver();
    } catch (SQLException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private static Key key(MysqlAddress address, ServerFlavor flavor, Credentials credentials) {
    return new Key(address.host(), address.port(), flavor, credentials.username(), credentials.password(),
        credentials.sessionTls());
  }

  /** A declared flavor the server contradicts; {@link MysqlSession#open} reports it as {@link FlavorMismatchException}. */
  static final class WrongFlavor extends SQLException {
    final MysqlAddress address;
    final ServerFlavor declared;
    final ServerFlavor actual;
    final String version;

    WrongFlavor(MysqlAddress address, ServerFlavor declared, ServerFlavor actual, String version) {
      super(address + " is not " + declared.display() + " but " + version, "HY000");
      this.address = address;
      this.declared = declared;
      this.actual = actual;
      this.version = version;
    }
  }

  /**
   * Takes back a connection whose session ended without an error and left no session state
   * behind; it may be handed to the next {@link #open} for the same server and login.
   */
  void release(MysqlAddress address, ServerFlavor flavor, Credentials credentials, Connection connection) {
    if (!keep || isClosed(connection)) {
      closeQuietly(connection);
      return;
    }
    Key key = key(address, flavor, credentials);
    long now = System.nanoTime();
    synchronized (idle) {
      closeExpired(now);
      Deque<Idle> kept = idle.computeIfAbsent(key, k -> new ArrayDeque<>());
      if (kept.size() < MAX_KEPT_PER_SERVER) {
        kept.push(new Idle(connection, now));
        return;
      }
    }
    closeQuietly(connection);
  }

  /** Closes every kept connection (the worker is stopping). */
  public void closeIdle() {
    synchronized (idle) {
      idle.values().forEach(d -> d.forEach(i -> closeQuietly(i.connection())));
      idle.clear();
    }
  }

  private Opened takeKept(Key key, Duration socketTimeout) {
    while (true) {
      Idle candidate;
      long now = System.nanoTime();
      synchronized (idle) {
        closeExpired(now);
        Deque<Idle> kept = idle.get(key);
        candidate = kept == null ? null : kept.poll();
      }
      if (candidate == null) {
        return null;
      }
      Connection c = candidate.connection();
      try {
        if (now - candidate.since() < freshNanos && !c.isClosed()) {
          c.setNetworkTimeout(SAME_THREAD, (int) socketTimeout.toMillis());
          return new Opened(c, true);
        }
        pinged.incrementAndGet();
        if (c.isValid(1)) {
          c.setNetworkTimeout(SAME_THREAD, (int) socketTimeout.toMillis());
          return new Opened(c, false);
        }
      } catch (SQLException e) {
        // Gone: try the next one, or open a new connection.
      }
      closeQuietly(c);
    }
  }

  private void closeExpired(long now) {
    for (Deque<Idle> kept : idle.values()) {
      kept.removeIf(i -> {
        boolean expired = now - i.since() > MAX_IDLE.toNanos();
        if (expired) {
          closeQuietly(i.connection());
        }
        return expired;
      });
    }
  }

  private static boolean isClosed(Connection connection) {
    try {
      return connection.isClosed();
    } catch (SQLException e) {
      return true;
    }
  }

  static void closeQuietly(Connection connection) {
    try {
      connection.close();
    } catch (SQLException e) {
      // Nothing to do: the server side goes away with the socket.
    }
  }
}
