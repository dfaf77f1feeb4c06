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
   * A new connection; the caller closes it. The client is made on first use, so a worker whose
   * groups have no session store never starts Lettuce's threads.
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
