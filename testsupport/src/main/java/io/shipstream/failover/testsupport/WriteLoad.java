package io.shipstream.failover.testsupport;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An application writing to {@code appdb.writes} as {@link MariaDbServer#APP}: one row per
 * autocommit INSERT, ids increasing. It asks {@code jdbcUrl} for the address each time it
 * (re)connects, as an application behind a Service would reach whichever server is primary, and
 * reconnects after every error with a short backoff. The URL picks the driver: MariaDB
 * Connector/J for {@code jdbc:mariadb:}, MySQL Connector/J for {@code jdbc:mysql:} ({@link
 * DatabaseServer#jdbcUrl} gives the server's own).
 *
 * <p>An id counts as acknowledged only when its INSERT returned success. An INSERT that failed may
 * still have committed (the connection broke after the commit), so the rows on a server are a
 * superset of {@link #acknowledged()}; a failover that loses none of them is what tests assert.
 */
public final class WriteLoad implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(WriteLoad.class);
  private static final Duration MIN_BACKOFF = Duration.ofMillis(10);
  private static final Duration MAX_BACKOFF = Duration.ofMillis(100);

  /**
   * When the writer tries again after its first failed write, for a report: the backoff doubles
   * from {@link #MIN_BACKOFF} up to {@link #MAX_BACKOFF}, so a gap in its writes ends on the first
   * retry after the new primary is reachable, at one of these steps (plus the writes' own time).
   */
  public static String retryLadder() {
    StringBuilder ladder = new StringBuilder();
    long at = 0;
    for (Duration b = MIN_BACKOFF; at < 400; b = b.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF
        : b.multipliedBy(2)) {
      at += b.toMillis();
      ladder.append(ladder.length() == 0 ? "" : ", ").append(at);
    }
    return ladder + ", … ms";
  }

  private final Supplier<String> jdbcUrl;
  private final Duration pauseBetweenWrites;
  private final long firstId;
  private final Duration socketTimeout;
  private final Thread thread;
  private final List<Ack> acks = new ArrayList<>();
  private final AtomicLong errors = new AtomicLong();
  private volatile String lastError;
  private volatile boolean running = true;
  private final long startedNanos = System.nanoTime();
  private volatile long stoppedNanos;

  /**
   * One acknowledged write: the id, when the server confirmed it ({@code at}, {@code nanos}) and
   * when the statement was sent ({@code sentNanos}). A statement sent after a server was frozen can
   * only commit once it resumes; one sent just before may be acknowledged just after.
   */
  public record Ack(long id, Instant at, long nanos, long sentNanos) {
    public Ack(long id, Instant at, long nanos) {
      this(id, at, nanos, nanos);
    }
  }

  private WriteLoad(Supplier<String> jdbcUrl, Duration pauseBetweenWrites, long firstId, Duration socketTimeout) {
    this.firstId = firstId;
    this.socketTimeout = socketTimeout;
    this.jdbcUrl = jdbcUrl;
    this.pauseBetweenWrites = pauseBetweenWrites;
    this.thread = new Thread(this::run, "write-load");
    this.thread.setDaemon(true);
  }

  /** Starts writing with a 5 ms pause between writes, so the load never takes a whole core. */
  public static WriteLoad start(Supplier<String> jdbcUrl) {
    return start(jdbcUrl, Duration.ofMillis(5));
  }

  public static WriteLoad start(Supplier<String> jdbcUrl, Duration pauseBetweenWrites) {
    return start(jdbcUrl, pauseBetweenWrites, 1);
  }

  /**
   * Starts writing ids from {@code firstId} on, so several loads in a row can write to the same
   * table without colliding.
   */
  public static WriteLoad start(Supplier<String> jdbcUrl, Duration pauseBetweenWrites, long firstId) {
    return start(jdbcUrl, pauseBetweenWrites, firstId, DEFAULT_SOCKET_TIMEOUT);
  }

  /**
   * Like {@link #start(Supplier, Duration, long)}, waiting up to {@code socketTimeout} for each
   * write as a connection pool without a socket timeout does (60 s or more): such a client keeps
   * its connection to a frozen server open, and its write lands the moment the server resumes.
   */
  public static WriteLoad start(Supplier<String> jdbcUrl, Duration pauseBetweenWrites, long firstId,
      Duration socketTimeout) {
    WriteLoad load = new WriteLoad(jdbcUrl, pauseBetweenWrites, firstId, socketTimeout);
    load.thread.start();
    return load;
  }

  /** Short, so a frozen server shows up as unavailability rather than a hung client. */
  private static final Duration DEFAULT_SOCKET_TIMEOUT = Duration.ofSeconds(2);

  private void run() {
    Connection connection = null;
    PreparedStatement insert = null;
    long nextId = firstId;
    Duration backoff = MIN_BACKOFF;
    while (running) {
      long id = nextId++;
      try {
        if (connection == null) {
          connection = open(jdbcUrl.get(), socketTimeout);
          insert = connection
              .prepareStatement("INSERT INTO " + DatabaseCluster.WRITES_TABLE + " (id, at) VALUES (?, NOW(6))");
        }
        insert.setLong(1, id);
        long sent = System.nanoTime();
        insert.executeUpdate();
        long now = System.nanoTime();
        synchronized (acks) {
          acks.add(new Ack(id, Instant.now(), now, sent));
          acks.notifyAll();
        }
        backoff = MIN_BACKOFF;
        pause(pauseBetweenWrites);
      } catch (SQLException | RuntimeException e) {
        errors.incrementAndGet();
        lastError = e.getMessage();
        LOG.debug("write {} failed: {}", id, e.getMessage());
        closeQuietly(connection);
        connection = null;
        insert = null;
        pause(backoff);
        backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
      }
    }
    closeQuietly(connection);
  }

  private static Connection open(String url, Duration socketTimeout) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", MariaDbServer.APP.user());
    properties.setProperty("password", MariaDbServer.APP.password());
    properties.setProperty("connectTimeout", "1000");
    properties.setProperty("socketTimeout", Long.toString(socketTimeout.toMillis()));
    return DriverManager.getConnection(url, properties);
  }

  private void pause(Duration duration) {
    if (duration.isZero() || !running) {
      return;
    }
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }

  private static void closeQuietly(Connection connection) {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException | RuntimeException e) {
        LOG.trace("close failed: {}", e.getMessage());
      }
    }
  }

  /** Waits until at least {@code count} writes in total have been acknowledged. */
  public void awaitAcknowledged(int count, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (acks) {
      while (acks.size() < count) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new IllegalStateException(
              "only " + acks.size() + " of " + count + " writes acknowledged within " + timeout + "; last error: "
                  + lastError);
        }
        try {
          acks.wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted", e);
        }
      }
    }
  }

  /** Stops writing and waits for the writer to finish its current statement; idempotent. */
  public void stop() {
    if (running) {
      running = false;
      stoppedNanos = System.nanoTime();
    }
    try {
      thread.join(Duration.ofSeconds(10).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      LOG.warn("write load did not stop within 10 s");
    }
  }

  @Override
  public void close() {
    stop();
  }

  /** Every acknowledged id, ascending. */
  public List<Long> acknowledged() {
    synchronized (acks) {
      return acks.stream().map(Ack::id).sorted().toList();
    }
  }

  public int acknowledgedCount() {
    synchronized (acks) {
      return acks.size();
    }
  }

  /** Every acknowledgement in the order it arrived. */
  public List<Ack> acks() {
    synchronized (acks) {
      return List.copyOf(acks);
    }
  }

  /**
   * The longest time without an acknowledged write: the failover window as the application saw
   * it. The start and the stop count as boundaries, so a load that never recovered reports the
   * time from its last acknowledgement to {@link #stop()}.
   */
  public Duration writeUnavailability() {
    long end = stoppedNanos != 0 ? stoppedNanos : System.nanoTime();
    long previous = startedNanos;
    long longest = 0;
    for (Ack ack : acks()) {
      longest = Math.max(longest, ack.nanos() - previous);
      previous = ack.nanos();
    }
    longest = Math.max(longest, end - previous);
    return Duration.ofNanos(longest);
  }

  /** How many writes failed (each is followed by a reconnect). */
  public long errors() {
    return errors.get();
  }

  public Optional<String> lastError() {
    return Optional.ofNullable(lastError);
  }

  @Override
  public String toString() {
    return "WriteLoad{acknowledged=" + acknowledgedCount() + ", errors=" + errors() + ", lastError=" + lastError + "}";
  }
}
