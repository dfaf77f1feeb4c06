package io.shipstream.failover.testsupport;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real {@code redis-server} in its own process and directory on a free loopback port, without
 * persistence and with diskless replication that starts at once. Same lifecycle guarantees as
 * {@link MariaDbServer}: nothing outlives {@link #close} or the JVM.
 */
public final class RedisServer extends LocalServer {
  private static final Logger LOG = LoggerFactory.getLogger(RedisServer.class);
  private static final AtomicInteger IDS = new AtomicInteger();
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);

  private final RedisServer replicaOf;

  private RedisServer(String name, Path directory, RedisServer replicaOf) {
    super(name, directory);
    this.replicaOf = replicaOf;
  }

  public static RedisServer start(Path baseDir) {
    return start(baseDir, null);
  }

  /** Starts a server; with {@code replicaOf} it starts as that server's replica. */
  public static RedisServer start(Path baseDir, RedisServer replicaOf) {
    String name = "redis-" + IDS.incrementAndGet();
    RedisServer server = new RedisServer(name, RestartableProcess.newDirectory(baseDir, name), replicaOf);
    long started = System.nanoTime();
    server.process.launchOnFreePort(port -> {
      server.port = port;
      return server.launchAndAwaitReady();
    });
    LOG.info("{} ready on {}:{} in {} ms", name, HOST, server.port, (System.nanoTime() - started) / 1_000_000);
    return server;
  }

  /** Returns false when the port was taken meanwhile; throws for any other startup failure. */
  private boolean launchAndAwaitReady() {
    Path log = directory.resolve("redis.log");
    List<String> command = new ArrayList<>();
    command.add(Binaries.redisServer().toString());
    command.addAll(List.of("--port", Integer.toString(port)));
    command.addAll(List.of("--bind", HOST));
    command.addAll(List.of("--dir", directory.toAbsolutePath().toString()));
    command.addAll(List.of("--daemonize", "no"));
    command.addAll(List.of("--save", ""));
    command.addAll(List.of("--appendonly", "no"));
    command.addAll(List.of("--repl-diskless-sync", "yes"));
    command.addAll(List.of("--repl-diskless-sync-delay", "0"));
    command.addAll(List.of("--logfile", log.toAbsolutePath().toString()));
    if (replicaOf != null) {
      command.addAll(List.of("--replicaof", replicaOf.host(), Integer.toString(replicaOf.port())));
    }
    ManagedProcess launched = process.launch(command, directory);
    long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!launched.isAlive()) {
        String tail = ManagedProcess.tail(log, 20) + "\n" + ManagedProcess.tail(directory.resolve("stdout.log"), 10);
        if (tail.contains("Address already in use")) {
          return false;
        }
        throw new IllegalStateException(name + " exited during startup:\n" + tail);
      }
      try {
        if ("PONG".equals(command("PING"))) {
          return true;
        }
      } catch (UncheckedIOException e) {
        // Not listening yet.
      }
      MariaDbServer.sleep(Duration.ofMillis(20));
    }
    launched.kill();
    throw new IllegalStateException(
        name + " did not answer PING within " + STARTUP_TIMEOUT + ":\n" + ManagedProcess.tail(log, 20));
  }

  public String uri() {
    return "redis://" + HOST + ":" + port;
  }

  /**
   * Sends one command and returns a simple, bulk or integer reply as a string (null for a nil
   * reply). Enough for PING, INFO and REPLICAOF in tests; use a real client for anything more.
   */
  public String command(String... args) {
    return RespClient.call(HOST, port, args);
  }

  /** Graceful shutdown (SIGTERM). */
  public void stop() {
    process.stop(Duration.ofSeconds(10));
  }

  public void kill9() {
    process.kill9();
  }

  /** Stops the server if it runs and starts it again on the same port (empty: no persistence). */
  public void restart() {
    stop();
    if (!launchAndAwaitReady()) {
      throw new IllegalStateException(name + ": port " + port + " was taken while the server was down");
    }
  }

  @Override
  public void close() {
    process.close();
  }
}
