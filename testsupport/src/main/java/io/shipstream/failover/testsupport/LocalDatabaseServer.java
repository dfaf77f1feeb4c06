package io.shipstream.failover.testsupport;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link MariaDbServer} and {@link MySqlServer} do alike as processes: start on a free port
 * and wait until the operator's account can log in, stop, crash, freeze, restart (fenced or not).
 * Only the command line and where the process writes its output differ.
 */
abstract class LocalDatabaseServer extends LocalServer implements DatabaseServer {
  static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);
  static final Duration STOP_GRACE = Duration.ofSeconds(30);

  /** Under the subclass's own name, as each server logged before they shared this class. */
  private final Logger log = LoggerFactory.getLogger(getClass());
  final int serverId;
  final Path errorLog;
  /** Appended to the usual options at every start. */
  List<String> extraOptions = List.of();
  Duration startupTime = Duration.ZERO;

  LocalDatabaseServer(String name, int serverId, Path directory) {
    super(name, directory);
    this.serverId = serverId;
    this.errorLog = directory.resolve("error.log");
  }

  /** The value of the kept option {@code --name=}, or null when it is not given. */
  String option(String name) {
    String prefix = "--" + name + "=";
    return extraOptions.stream().filter(o -> o.startsWith(prefix)).map(o -> o.substring(prefix.length()))
        .reduce((a, b) -> b).orElse(null);
  }

  /**
   * Whether the server was given certificates ({@link TestAuthority#serverOptions}): the tests'
   * own connections then use TLS (which a server requiring secure transport needs), and the
   * channels they set up check the source with the same CA.
   */
  boolean hasTls() {
    return option("ssl-cert") != null;
  }

  /** Whether the server refuses every connection but TLS and the Unix socket. */
  boolean requiresSecureTransport() {
    String require = option("require-secure-transport");
    return require != null && (require.equalsIgnoreCase("ON") || require.equals("1"));
  }

  @Override
  public java.util.Optional<Path> caFile() {
    String ca = option("ssl-ca");
    return ca == null ? java.util.Optional.empty() : java.util.Optional.of(hostPath(ca));
  }

  /** A path as the server names it, on this host. */
  Path hostPath(String serverPath) {
    return Path.of(serverPath);
  }

  /** The server's command line with the usual options, for its port. */
  abstract List<String> commandLine();

  /** Launches {@code command} as the server's process. */
  abstract ManagedProcess launch(List<String> command);

  @Override
  public int serverId() {
    return serverId;
  }

  public Path errorLog() {
    return errorLog;
  }

  /** Wall time of the first start, template copy included. */
  public Duration startupTime() {
    return startupTime;
  }

  void startOnFreePort() {
    process.launchOnFreePort(free -> {
      port = free;
      return launchAndAwaitReady(List.of());
    });
  }

  /** Starts it again on its port, with {@code onceOptions} for this start only. */
  private void relaunch(List<String> onceOptions) {
    if (!launchAndAwaitReady(onceOptions)) {
      throw new IllegalStateException(name + ": port " + port + " was taken while the server was down");
    }
  }

  /** Returns false when the port was taken meanwhile; throws for any other startup failure. */
  private boolean launchAndAwaitReady(List<String> onceOptions) {
    List<String> command = new ArrayList<>(commandLine());
    command.addAll(extraOptions);
    command.addAll(onceOptions);
    return awaitReady(launch(command));
  }

  private boolean awaitReady(ManagedProcess launched) {
    long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
    SQLException last = null;
    while (System.nanoTime() < deadline) {
      if (!launched.isAlive()) {
        String tail = ManagedProcess.tail(errorLog, 25);
        if (tail.contains("Bind on TCP/IP port") || tail.contains("Address already in use")) {
          return false;
        }
        throw new IllegalStateException(
            name + " exited with code " + launched.exitCode().orElse(-1) + " during startup; " + errorLog + ":\n"
                + tail);
      }
      try (Connection connection = connect(MariaDbServer.ADMIN, Duration.ofSeconds(1), Duration.ofSeconds(5))) {
        return true;
      } catch (SQLException e) {
        last = e;
      }
      MariaDbServer.sleep(Duration.ofMillis(20));
    }
    launched.kill();
    throw new IllegalStateException(
        name + " did not accept connections within " + STARTUP_TIMEOUT + " (" + (last == null ? "" : last.getMessage())
            + "); " + errorLog + ":\n" + ManagedProcess.tail(errorLog, 25));
  }

  /** Graceful shutdown (SIGTERM), SIGKILL if it takes longer than 30 s. The datadir is kept. */
  @Override
  public void stop() {
    if (process.stop(STOP_GRACE)) {
      log.info("{} stopped", name);
    }
  }

  /** Crashes the server (SIGKILL); {@link #restart} recovers it like a real crash would. */
  @Override
  public void kill9() {
    if (process.kill9()) {
      log.info("{} killed with SIGKILL", name);
    }
  }

  @Override
  public void pause() {
    super.pause();
    log.info("{} paused (SIGSTOP)", name);
  }

  @Override
  public void resume() {
    super.resume();
    log.info("{} resumed (SIGCONT)", name);
  }

  /** Stops the server if it still runs, then starts it again on the same datadir and port. */
  @Override
  public void restart() {
    stop();
    long started = System.nanoTime();
    relaunch(List.of());
    log.info("{} restarted on port {} in {} ms", name, port, (System.nanoTime() - started) / 1_000_000);
  }

  @Override
  public void restartWith(List<String> options) {
    stop();
    long started = System.nanoTime();
    relaunch(options);
    log.info("{} restarted with {} on port {} in {} ms", name, options, port,
        (System.nanoTime() - started) / 1_000_000);
  }

  /**
   * Adds {@code options} to the ones kept for every start, as a DBA edits a server's configuration,
   * and restarts the server with them.
   */
  void reconfigure(List<String> options) {
    List<String> kept = new ArrayList<>(extraOptions);
    kept.addAll(options);
    extraOptions = List.copyOf(kept);
    stop();
    long started = System.nanoTime();
    relaunch(List.of());
    log.info("{} restarted with {} kept on port {} in {} ms", name, options, port,
        (System.nanoTime() - started) / 1_000_000);
  }

  /**
   * Stops the server if it still runs, then starts it read-only (read_only=ON from the command
   * line), as a production server configured to boot fenced comes back after a crash: it never
   * takes an application write before something decides it is the primary.
   */
  @Override
  public void restartFenced() {
    stop();
    long started = System.nanoTime();
    relaunch(List.of("--read-only=ON"));
    log.info("{} restarted fenced on port {} in {} ms", name, port, (System.nanoTime() - started) / 1_000_000);
  }
}
