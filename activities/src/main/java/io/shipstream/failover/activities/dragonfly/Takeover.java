package io.shipstream.failover.activities.dragonfly;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.shipstream.failover.activities.mysql.Heartbeat;
import io.shipstream.failover.workflows.activities.StoreTarget;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The two lossless promotions, both of which stop the master's writes until the replica holds
 * everything and give up after a timeout, leaving the master in charge. Dragonfly has
 * {@code REPLTAKEOVER <seconds>}, run on the replica and blocking until done. Redis and Valkey
 * have {@code FAILOVER TO <host> <port> TIMEOUT <ms>}, run on the master, which returns at once and
 * works in the background; the master names the replica by the address its replication
 * connection comes from, which the replica knows as the local address of its link.
 */
final class Takeover {
  private final StoreConnections connections;
  private final Heartbeat heartbeat;

  Takeover(StoreConnections connections, Heartbeat heartbeat) {
    this.connections = connections;
    this.heartbeat = heartbeat;
  }

  /** Runs REPLTAKEOVER on the target; throws {@link IllegalStateException} with the server's reason. */
  void replTakeover(StoreTarget target, Duration timeout) {
    long seconds = Math.max(1, (timeout.toMillis() + 999) / 1000);
    try (StatefulRedisConnection<String, String> c = connections.open(target)) {
      c.setTimeout(timeout.plusSeconds(10));
      RedisFuture<String> reply = c.async().dispatch(keyword("REPLTAKEOVER"),
          new StatusOutput<>(StringCodec.UTF8), new CommandArgs<>(StringCodec.UTF8).add(seconds));
      String result = awaitBeating(reply, timeout.plusSeconds(10), "REPLTAKEOVER " + seconds);
      if (!"OK".equalsIgnoreCase(result)) {
        throw new IllegalStateException("REPLTAKEOVER " + seconds + " answered " + result);
      }
    }
  }

  /**
   * Asks the master to hand over to the target and waits until the hand-over has ended, one way
   * or the other; the caller checks which.
   */
  void failover(StoreTarget target, StoreTarget master, Duration timeout) {
    String host = addressMasterKnows(target);
    try (StatefulRedisConnection<String, String> c = connections.open(master)) {
      CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8).add("TO").add(host).add(target.port())
          .add("TIMEOUT").add(Math.max(1, timeout.toMillis()));
      String result = c.sync().dispatch(keyword("FAILOVER"), new StatusOutput<>(StringCodec.UTF8), args);
      if (!"OK".equalsIgnoreCase(result)) {
        throw new IllegalStateException("FAILOVER TO " + host + " " + target.port() + " answered " + result);
      }
      long until = System.nanoTime() + timeout.plusSeconds(5).toNanos();
      while (System.nanoTime() < until) {
        StoreInfo info = StoreInfo.parse(c.sync().info("replication"));
        if (!info.failoverRunning()) {
          return;
        }
        heartbeat.beat("FAILOVER to " + target + " running");
        sleep(50);
      }
      throw new IllegalStateException("FAILOVER TO " + host + " " + target.port() + " still running after "
          + timeout.plusSeconds(5).toMillis() + " ms");
    }
  }

  /**
   * The replica's own address on its link to the master ({@code laddr} of the master client in
   * CLIENT LIST), which is what the master lists it under; the configured host when unknown.
   */
  private String addressMasterKnows(StoreTarget target) {
    try (StatefulRedisConnection<String, String> c = connections.open(target)) {
      String clients = c.sync().clientList();
      for (String line : clients.split("\r?\n")) {
        if (line.contains(" flags=M ") || line.contains(" flags=M")) {
          for (String field : line.split(" ")) {
            if (field.startsWith("laddr=")) {
              String laddr = field.substring("laddr=".length());
              return laddr.substring(0, laddr.lastIndexOf(':'));
            }
          }
        }
      }
    } catch (RuntimeException e) {
      // An older server without laddr, or a refused CLIENT LIST: the configured host is the guess.
    }
    return target.host();
  }

  private String awaitBeating(RedisFuture<String> reply, Duration budget, String what) {
    long until = System.nanoTime() + budget.toNanos();
    while (true) {
      try {
        return reply.get(500, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        if (System.nanoTime() > until) {
          throw new IllegalStateException(what + " did not answer within " + budget.toSeconds() + " s");
        }
        heartbeat.beat(what + " running");
      } catch (ExecutionException e) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        throw new IllegalStateException(what + ": " + cause.getMessage(), cause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(what + " interrupted", e);
      }
    }
  }

  static ProtocolKeyword keyword(String name) {
    byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
    return new ProtocolKeyword() {
      @Override
      public byte[] getBytes() {
        return bytes;
      }

      @Override
      public String toString() {
        return name;
      }

      @Override
      public String name() {
        return name;
      }
    };
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
