package io.shipstream.failover.testsupport;

import java.nio.file.Path;

/**
 * A server the test support runs as a process of its own on a loopback port, in a directory of
 * its own, under a name that stays across restarts: what {@link MariaDbServer}, {@link
 * MySqlServer} and {@link RedisServer} share. Nothing of it outlives {@code close} or the JVM.
 */
public abstract class LocalServer implements AutoCloseable {
  /** The only interface the servers listen on. */
  public static final String HOST = "127.0.0.1";

  final String name;
  final Path directory;
  final RestartableProcess process;
  /** Chosen at the first start; kept for every restart. */
  int port;

  LocalServer(String name, Path directory) {
    this.name = name;
    this.directory = directory;
    this.process = new RestartableProcess(name);
  }

  public String name() {
    return name;
  }

  public String host() {
    return HOST;
  }

  public int port() {
    return port;
  }

  public Path directory() {
    return directory;
  }

  /** The operating-system process id of the current (or last) process. */
  public long pid() {
    return process.pid();
  }

  public boolean isRunning() {
    return process.isRunning();
  }

  /** Freezes the server (SIGSTOP): its port stays open but nothing answers, like a hung host. */
  public void pause() {
    process.pause();
  }

  public void resume() {
    process.resume();
  }

  @Override
  public String toString() {
    return name + " (" + HOST + ":" + port + ")";
  }
}
