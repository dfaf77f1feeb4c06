package io.shipstream.failover.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server process started by the test support that must never outlive the JVM.
 *
 * <p>Two guards make that true. A shutdown hook SIGKILLs every live child when the JVM exits
 * normally or on SIGTERM (surefire's own timeout, Ctrl-C). When the JVM itself is SIGKILLed no hook
 * runs, so each child is also started through {@code setpriv --pdeathsig KILL}, which makes the
 * kernel SIGKILL it when its parent dies. The kernel ties that signal to the parent <em>thread</em>,
 * not the process, so every child is started from one dedicated thread that lives as long as the
 * JVM: a server started from a short-lived test thread would otherwise die with that thread.
 */
final class ManagedProcess {
  private static final Logger LOG = LoggerFactory.getLogger(ManagedProcess.class);
  private static final Set<ManagedProcess> LIVE = ConcurrentHashMap.newKeySet();
  private static final ExecutorService LAUNCHER =
      Executors.newSingleThreadExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "testsupport-process-launcher");
            thread.setDaemon(true);
            return thread;
          });
  private static final Optional<Path> SETPRIV = Binaries.setpriv();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(ManagedProcess::killAll, "testsupport-process-reaper"));
    if (SETPRIV.isEmpty()) {
      LOG.warn(
          "setpriv not found: child servers are cleaned up by a shutdown hook only, so a SIGKILLed JVM leaves them behind");
    }
  }

  private final String name;
  private final Process process;

  private ManagedProcess(String name, Process process) {
    this.name = name;
    this.process = process;
  }

  /** Starts {@code command} with stdout and stderr appended to {@code outputLog}. */
  static ManagedProcess launch(String name, List<String> command, Path workDir, Path outputLog) {
    List<String> full = new ArrayList<>();
    SETPRIV.ifPresent(setpriv -> full.addAll(List.of(setpriv.toString(), "--pdeathsig", "KILL", "--")));
    full.addAll(command);
    ProcessBuilder builder =
        new ProcessBuilder(full)
            .directory(workDir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(outputLog.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
    Process process;
    try {
      process = LAUNCHER.submit(builder::start).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting " + name, e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot start " + name + ": " + e.getCause().getMessage(), e.getCause());
    }
    ManagedProcess managed = new ManagedProcess(name, process);
    LIVE.add(managed);
    // The registry forgets a process as soon as it ends, however it ends.
    process.onExit().thenRun(() -> LIVE.remove(managed));
    return managed;
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  Optional<Integer> exitCode() {
    return process.isAlive() ? Optional.empty() : Optional.of(process.exitValue());
  }

  /** Waits for the process to end on its own (for short-lived tools); kills it at the timeout. */
  int awaitExit(Duration timeout) {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        kill();
        throw new IllegalStateException(name + " did not finish within " + timeout);
      }
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      kill();
      throw new IllegalStateException("interrupted while waiting for " + name, e);
    }
  }

  /** Sends a signal by name ({@code STOP}, {@code CONT}); Java has no API for these. */
  void signal(String signal) {
    if (!process.isAlive()) {
      throw new IllegalStateException(name + " is not running");
    }
    try {
      Process kill =
          new ProcessBuilder(Binaries.kill().toString(), "-" + signal, Long.toString(process.pid()))
              .redirectErrorStream(true)
              .start();
      String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (kill.waitFor() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed: " + output.strip());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while signalling " + name, e);
    }
  }

  /**
   * SIGTERM, then SIGKILL if the process has not ended within {@code grace}. A stopped (paused)
   * process cannot act on SIGTERM, so it is continued first.
   */
  void terminate(Duration grace) {
    if (!process.isAlive()) {
      return;
    }
    signalQuietly("CONT");
    process.destroy();
    try {
      if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn("{} did not stop within {}; killing it", name, grace);
        kill();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      kill();
    }
  }

  /** SIGKILL and wait until the kernel has reaped it, so its port and files are released. */
  void kill() {
    process.destroyForcibly();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        LOG.error("{} (pid {}) survived SIGKILL for 30 s", name, process.pid());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void signalQuietly(String signal) {
    try {
      signal(signal);
    } catch (RuntimeException e) {
      LOG.debug("kill -{} {} failed: {}", signal, name, e.getMessage());
    }
  }

  private static void killAll() {
    for (ManagedProcess managed : List.copyOf(LIVE)) {
      managed.process.destroyForcibly();
    }
  }

  /** The last lines of a log file, to put the reason a server died into the exception. */
  static String tail(Path file, int lines) {
    try {
      if (!Files.exists(file)) {
        return "(no " + file.getFileName() + ")";
      }
      List<String> all = new String(Files.readAllBytes(file), StandardCharsets.UTF_8).lines().toList();
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(cannot read " + file + ": " + e.getMessage() + ")";
    }
  }

  @Override
  public String toString() {
    return name + " (pid " + process.pid() + ")";
  }
}
