package io.shipstream.failover.mysql;

import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The flavor of each endpoint whose site declares none, read from its greeting ({@link Greeting})
 * once and remembered for the process: a server does not change flavor while it listens. {@link
 * MysqlConnections} forgets an endpoint whose connection showed the other flavor (a new server
 * behind the same address).
 */
final class ServerFlavors {
  /** One memory for the process: every {@link MysqlConnections} of it asks the same servers. */
  static final ServerFlavors SHARED = new ServerFlavors();

  private final Map<String, ServerFlavor> known = new ConcurrentHashMap<>();
  private final AtomicLong greetingsRead = new AtomicLong();

  ServerFlavor of(String host, int port, Timeouts timeouts) throws SQLException {
    String key = host + ":" + port;
    ServerFlavor flavor = known.get(key);
    if (flavor != null) {
      return flavor;
    }
    // Two threads may both read a greeting the first time; both find the same flavor.
    greetingsRead.incrementAndGet();
    flavor = Greeting.read(host, port, timeouts).flavor();
    known.put(key, flavor);
    return flavor;
  }

  void remember(String host, int port, ServerFlavor flavor) {
    known.put(host + ":" + port, flavor);
  }

  void forget(String host, int port) {
    known.remove(host + ":" + port);
  }

  /** How many greetings were read: for tests, that it is once per endpoint. */
  long greetingsRead() {
    return greetingsRead.get();
  }
}
