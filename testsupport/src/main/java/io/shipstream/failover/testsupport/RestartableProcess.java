package io.shipstream.failover.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process of a test server that keeps its name, directory and port across restarts: the one
 * launched last, and what a test does to it (stop, kill, pause). {@link MariaDbServer}, {@link
 * MySqlServer} and {@link RedisServer} each hold one; only how they launch and when they are ready differs.
 */
final class RestartableProcess {
  private static final Logger LOG = LoggerFactory.getLogger(RestartableProcess.class);

  private final String name;
  private volatile ManagedProcess current;

  RestartableProcess(String name) {
    this.name = name;
  }

  /** A new directory for a server named {@code name} under {@code baseDir}. */
  static Path newDirectory(Path baseDir, String name) {
    try {
      Files.createDirectories(baseDir);
      return Files.createTempDirectory(baseDir.toAbsolutePath(), name + "-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a directory under " + baseDir, e);
    }
  }

  /**
   * Launches on a free port, and again on another when something else took it between {@link
   * FreePorts} choosing it and the server binding it: {@code launch} answers false for that race
   * (and throws for any other failure). Returns the port the server listens on.
   */
  int launchOnFreePort(IntPredicate launch) {
    for (int attempt = 1;; attempt++) {
      int port = FreePorts.next();
      if (launch.test(port)) {
        return port;
      }
      if (attempt == 3) {
        throw new IllegalStateException(name + " lost the race for a free port three times");
      }
      LOG.info("{}: port {} was taken meanwhile, trying another", name, port);
    }
  }

  /** Launches the server's command; it is the process from now on. */
  ManagedProcess launch(java.util.List<String> command, Path directory) {
    return launch(command, directory, directory.resolve("stdout.log"));
  }

  /** Launches the server's command with its output written to {@code output}. */
  ManagedProcess launch(java.util.List<String> command, Path directory, Path output) {
    ManagedProcess launched = ManagedProcess.launch(name, command, directory, output);
    current = launched;
    return launched;
  }

  /** The operating-system process id of the current (or last) process. */
  long pid() {
    ManagedProcess process = current;
    if (process == null) {
      throw new IllegalStateException(name + " was never started");
    }
    return process.pid();
  }

  boolean isRunning() {
    ManagedProcess process = current;
    return process != null && process.isAlive();
  }

  /** SIGTERM, SIGKILL after {@code grace}; returns whether it was running. */
  boolean stop(Duration grace) {
    ManagedProcess process = current;
    if (process == null || !process.isAlive()) {
      return false;
    }
    process.terminate(grace);
    return true;
  }

  /** SIGKILL, waiting until it is reaped; returns whether it was ever started. */
  boolean kill9() {
    ManagedProcess process = current;
    if (process == null) {
      return false;
    }
    process.kill();
    return true;
  }

  /** SIGKILL if it runs: the end of the server's life. */
  void close() {
    ManagedProcess process = current;
    if (process != null && process.isAlive()) {
      process.kill();
    }
  }

  /** SIGSTOP: its port stays open but nothing answers, like a hung host. */
  void pause() {
    running().signal("STOP");
  }

  void resume() {
    running().signal("CONT");
  }

  private ManagedProcess running() {
    ManagedProcess process = current;
    if (process == null || !process.isAlive()) {
      throw new IllegalStateException(name + " is not running");
    }
    return process;
  }
}
