package io.shipstream.failover.mysql;

import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.MariaDbServer;
import java.time.Duration;
import java.util.function.Predicate;

/** The login the module's ITs use on the servers testsupport starts, and the sessions they open with it. */
final class ItSessions {
  /** The admin and replication accounts every server testsupport starts has, of either flavor. */
  static final Credentials LOGIN = new Credentials(MariaDbServer.ADMIN.user(), MariaDbServer.ADMIN.password(),
      MariaDbServer.REPLICATION.user(), MariaDbServer.REPLICATION.password());

  static final Timeouts TIMEOUTS = new Timeouts(Duration.ofSeconds(5), Duration.ofSeconds(10));

  private ItSessions() {}

  static MysqlAddress address(DatabaseServer server) {
    return MysqlAddress.of(server.host(), server.port());
  }

  /** An unpooled admin session on {@code server}, with {@link #TIMEOUTS}. */
  static MysqlSession open(DatabaseServer server) throws MysqlException {
    return MysqlSession.open(MysqlConnections.unpooled(), address(server), LOGIN, TIMEOUTS);
  }

  /** Points the replica of {@code session} at {@code source}, as the activities do, and waits until it replicates. */
  static void replicateFrom(MysqlSession session, DatabaseServer source) throws MysqlException {
    SourceChange.replicateFrom(session, address(source), LOGIN);
    new ReplicationStart(session, beat -> {}).awaitRunning(session.address(), address(source));
  }

  /** One reading of a server, such as {@link ServerProbe#read}. */
  @FunctionalInterface
  interface Reading<T> {
    T read() throws MysqlException;
  }

  /**
   * Reads every 100 ms until {@code done} holds of the reading or {@code within} has passed, and
   * returns the last reading: the test asserts on it, so a server that never got there fails the test
   * with what it last showed.
   */
  static <T> T readUntil(Duration within, Reading<T> read, Predicate<T> done)
      throws MysqlException, InterruptedException {
    long until = System.nanoTime() + within.toNanos();
    T last = read.read();
    while (!done.test(last) && System.nanoTime() < until) {
      Thread.sleep(100);
      last = read.read();
    }
    return last;
  }
}
