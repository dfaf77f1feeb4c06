package io.shipstream.failover.activities.dragonfly;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.shipstream.failover.workflows.activities.StoreTarget;
import java.time.Duration;

/**
 * Connections to the session stores: one Lettuce client (its event loops are the costly part)
 * shared by every activity, and a short-lived connection per call, so a failover never talks to a
 * store over a connection that a previous failover left half-broken. No reconnecting: a dropped
 * connection is an error the activity reports, not something to hide.
 */
public final class StoreConnections implements AutoCloseable {
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
  static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

  private RedisClient client;

  /**
   * Connections whose client is made and warmed up in the background now. The first connection
   * of a cold Lettuce client costs a second or more (its netty bootstrap and classes), and it comes
   * while MySQL's source is fenced: a worker pays it at startup instead. The warm-up connects to a
   * closed loopback port, which loads everything a real connection needs and leaves the host.
   */
  public static StoreConnections warmedUp() {
    StoreConnections connections = new StoreConnections();
    Thread warmUp = new Thread(() -> {
      try {
        connections.client().connect(RedisURI.create("redis://127.0.0.1:1")).close();
      } catch (RuntimeException expected) {
        // Refused, as intended: the point was to load and initialise the client.
      }
    }, "lettuce-warm-up");
    warmUp.setDaemon(true);
    warmUp.start();
    return connections;
  }

  /**
   * A new connection; the caller closes it. The client is made on first use unless
   * {@link #warmedUp()} made it already.
   */
  StatefulRedisConnection<String, String> open(StoreTarget store) {
    RedisURI uri = RedisURI.builder().withHost(store.host()).withPort(store.port()).withTimeout(COMMAND_TIMEOUT)
        .build();
    return client().connect(uri);
  }

  private synchronized RedisClient client() {
    if (client == null) {
      client = RedisClient.create();
      client.setOptions(ClientOptions.builder()
          .autoReconnect(false)
          .socketOptions(SocketOptions.builder().connectTimeout(CONNECT_TIMEOUT).build())
          .build());
    }
    return client;
  }

  @Override
  public synchronized void close() {
    if (client != null) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      client = null;
    }
  }
}
