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
 * The one place that opens connections to the servers, with mariadb-java-client for both flavors.
 *
 * <p>A connection an activity finished with cleanly is kept for a short while and handed to the
 * next activity for the same server and login, because the steps of one failover follow each
 * other within milliseconds and a new connection costs three or four network round trips before
 * its first statement (the TCP and MySQL handshakes): ~250 ms for a site 70 ms away, on every
 * step, where a ping costs one. A kept connection is handed out only after a ping answered within
 * a second, and closed after {@link #MAX_IDLE}: a server that restarted, went away or was cut off
 * meanwhile fails the ping (a partition holds it for that second, no longer than the connect
 * timeout would), the connection is closed and a new one opened. A session that saw an error, or
 * that changed session state, is never kept.
 *
 * <p>The timeouts are given per call ({@link Timeouts}): the activities connect within 2 s so an
 * unreachable server is reported quickly, and size the socket timeout to the longest statement a
 * call runs; the watcher's polls and the sidecar's looks have their own. Extra driver properties
 * (TLS: {@code sslMode}, {@code serverSslCert}; or {@code allowPublicKeyRetrieval} for MySQL 8's
 * caching_sha2_password without TLS) come from the worker's configuration.
 */
public final class MysqlConnections {
  /** A connection idle this long is closed rather than handed out. */
  static final Duration MAX_IDLE = Duration.ofSeconds(30);
  private static final int MAX_KEPT_PER_SERVER = 4;
  private static final Executor SAME_THREAD = Runnable::run;
  /** Closes what stayed idle too long even when no activity comes to notice. */
  private static final java.util.concurrent.ScheduledExecutorService SWEEPER =
      java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "mysql-idle-sweeper");
        t.setDaemon(true);
        return t;
      });

  private record Key(String host, int port, String username, String password) {}

  private record Idle(Connection connection, long since) {}

  private final Map<String, String> driverProperties;
  private final boolean keep;
  private final Map<Key, Deque<Idle>> idle = new HashMap<>();

  public MysqlConnections() {
    this(Map.of());
  }

  public MysqlConnections(Map<String, String> driverProperties) {
    this(driverProperties, true);
  }

  /** {@code keep} false: every connection is closed after use, none is handed out twice. */
  public MysqlConnections(Map<String, String> driverProperties, boolean keep) {
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

  Connection open(MysqlAddress address, Credentials credentials, Timeouts timeouts) throws SQLException {
    Key key = new Key(address.host(), address.port(), credentials.username(), credentials.password());
    Connection kept = takeKept(key, timeouts.socket());
    if (kept != null) {
      return kept;
    }
    Properties properties = new Properties();
    // MySQL 9 has no mysql_native_password: its accounts use caching_sha2_password, whose first
    // login after a server start needs TLS or the server's RSA key. Without TLS the key is asked
    // for, as replicas do (GET_SOURCE_PUBLIC_KEY); configured driver properties override this.
    properties.setProperty("allowPublicKeyRetrieval", "true");
    properties.putAll(driverProperties);
    properties.setProperty("user", credentials.username());
    properties.setProperty("password", credentials.password());
    properties.setProperty("connectTimeout", Long.toString(timeouts.connect().toMillis()));
    properties.setProperty("socketTimeout", Long.toString(timeouts.socket().toMillis()));
    // Statements are sent as text: SET GLOBAL, KILL and CHANGE MASTER are not all preparable.
    properties.setProperty("useServerPrepStmts", "false");
    return DriverManager.getConnection("jdbc:mariadb://" + address.host() + ":" + address.port() + "/", properties);
  }

  /**
   * Takes back a connection whose session ended without an error and left no session state
   * behind; it may be handed to the next {@link #open} for the same server and login.
   */
  void release(MysqlAddress address, Credentials credentials, Connection connection) {
    if (!keep || isClosed(connection)) {
      closeQuietly(connection);
      return;
    }
    Key key = new Key(address.host(), address.port(), credentials.username(), credentials.password());
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

  private Connection takeKept(Key key, Duration socketTimeout) {
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
        if (c.isValid(1)) {
          c.setNetworkTimeout(SAME_THREAD, (int) socketTimeout.toMillis());
          return c;
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
