package io.shipstream.failover.dev;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A worker or a watcher as the process a pod runs: {@code WorkerApp} or {@code WatcherApp}'s
 * {@code main} in a JVM of its own, on a class path of its own (a released build's, or HEAD's),
 * configured through the environment only, as the chart configures it, and reaching the mock API
 * server through a kubeconfig. {@link #stop} is what a rolling update does: SIGTERM, the process's
 * own shutdown (the worker lets its tasks finish, the watcher releases the Lease), and its exit.
 * Started through {@code setpriv --pdeathsig KILL} where there is one, so it dies with this JVM.
 */
public final class ControlPlaneProcess implements AutoCloseable {
  public static final String WORKER_MAIN = "io.shipstream.failover.worker.WorkerApp";
  public static final String WATCHER_MAIN = "io.shipstream.failover.watcher.WatcherApp";
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

  private final String name;
  private final Process process;
  private final int httpPort;
  private final Path log;

  private ControlPlaneProcess(String name, Process process, int httpPort, Path log) {
    this.name = name;
    this.process = process;
    this.httpPort = httpPort;
    this.log = log;
  }

  /**
   * Starts {@code mainClass} on {@code classpath} with {@code env} (besides PATH and HOME, nothing
   * of this JVM's environment), its output to {@code log}; {@code httpPort} is the one the
   * environment gives it, where {@link #awaitReady} asks {@code /readyz}.
   */
  public static ControlPlaneProcess start(String name, String classpath, String mainClass, Map<String, String> env,
      int httpPort, Path log) {
    List<String> command = new ArrayList<>();
    SidecarProcess.SETPRIV
        .ifPresent(setpriv -> command.addAll(List.of(setpriv.toString(), "--pdeathsig", "KILL", "--")));
    command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:TieredStopAtLevel=1", "-Xss512k", "-cp", classpath, mainClass));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
    builder.environment().keySet().retainAll(List.of("PATH", "HOME"));
    builder.environment().putAll(env);
    try {
      Files.createDirectories(log.toAbsolutePath().getParent());
      return new ControlPlaneProcess(name, builder.start(), httpPort, log);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name, e);
    }
  }

  public String name() {
    return name;
  }

  public long pid() {
    return process.pid();
  }

  public Path log() {
    return log;
  }

  /** Waits until {@code /readyz} answers 200 (the worker polls Temporal; the watcher's informers watch). */
  public void awaitReady(Duration timeout) {
    long until = System.nanoTime() + timeout.toNanos();
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException(name + " exited with " + process.exitValue() + " before it was ready; see "
            + log);
      }
      try {
        HttpResponse<Void> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/readyz"))
            .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.discarding());
        if (r.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // Not listening yet.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      if (System.nanoTime() > until) {
        throw new IllegalStateException(name + " was not ready within " + timeout + "; see " + log);
      }
      Playground.sleep(100);
    }
  }

  /** SIGTERM and its exit, as a pod's termination; SIGKILL after {@code grace}. Returns the exit code. */
  public int stop(Duration grace) {
    process.destroy();
    try {
      if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        throw new IllegalStateException(name + " did not stop within " + grace + " of SIGTERM; killed; see " + log);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return process.exitValue();
  }

  public boolean alive() {
    return process.isAlive();
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
