package io.shipstream.failover.dev;

import com.sun.jdi.Bootstrap;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import io.shipstream.failover.sidecar.SidecarMain;
import io.shipstream.failover.testsupport.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One site's sidecar as a process of its own, as it runs in a pod: {@link SidecarMain} in a new
 * JVM on this JVM's class path, configured through the environment exactly as SidecarMain reads
 * it. What a test does to it is what happens to a container: {@link #freeze} ({@code kill -STOP},
 * the whole JVM), {@link #hangFencingLoop} (the fencing loop alone stops, its HTTP threads go on
 * answering), {@link #kill} ({@code kill -9}) and {@link #restart} (the same command again, as the
 * kubelet restarts a container).
 *
 * <p>The loop is hung through the JVM's debugger interface: the JVM is started with a JDWP agent
 * on a loopback port, and {@link #hangFencingLoop} suspends its tick thread, the way a deadlock or
 * a call stuck past its timeout would hold it; nothing in the sidecar's code is changed for the
 * test. Like the test servers, every process is started through {@code setpriv --pdeathsig KILL}
 * from one long-lived thread, so it dies with this JVM even when that is SIGKILLed.
 */
public final class SidecarProcess implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SidecarProcess.class);
  private static final ExecutorService LAUNCHER = Executors.newSingleThreadExecutor(runnable -> {
    Thread thread = new Thread(runnable, "sidecar-process-launcher");
    thread.setDaemon(true);
    return thread;
  });
  /** {@code setpriv}, when there is one: every process of the stack is started through it to die with this JVM. */
  static final Optional<Path> SETPRIV = List.of("/usr/bin/setpriv", "/bin/setpriv").stream().map(Path::of)
      .filter(Files::isExecutable).findFirst();

  private final String site;
  private final Map<String, String> env;
  private final Path log;
  /** The class path its JVM runs on: this JVM's, or another release's sidecar. */
  private final String classpath;
  private volatile Process process;
  private volatile int debugPort;
  private volatile Instant startedAt;
  /** The debugger holding the fencing loop suspended; its threads resume when it lets go. */
  private volatile VirtualMachine debugger;
  private volatile boolean closed;

  private SidecarProcess(String site, Map<String, String> env, Path log, String classpath) {
    this.site = site;
    this.env = Map.copyOf(env);
    this.log = log;
    this.classpath = classpath;
  }

  /**
   * Starts the sidecar of {@code site} with {@code env} (SidecarMain's settings: SITE, MYSQL_*,
   * WATCHER_URL, AUTH_TOKEN, HTTP_PORT, ...), its output appended to {@code log}.
   */
  static SidecarProcess start(String site, Map<String, String> env, Path log) {
    return start(site, env, log, System.getProperty("java.class.path"));
  }

  /** As above, on {@code classpath} (a released build's sidecar: the upgrade drill). */
  static SidecarProcess start(String site, Map<String, String> env, Path log, String classpath) {
    SidecarProcess sidecar = new SidecarProcess(site, env, log, classpath);
    sidecar.launch();
    return sidecar;
  }

  public String site() {
    return site;
  }

  /** The process id of the JVM running now. */
  public long pid() {
    return process.pid();
  }

  /** When the JVM running now was started. */
  public Instant startedAt() {
    return startedAt;
  }

  public boolean alive() {
    return process.isAlive();
  }

  /** The file the sidecar logs to, every start appended. */
  public Path log() {
    return log;
  }

  /** {@code kill -STOP}: the whole JVM stops, its HTTP server too (connections are accepted by the kernel only). */
  public void freeze() {
    signal("STOP");
  }

  /** {@code kill -CONT}. */
  public void thaw() {
    signal("CONT");
  }

  /**
   * Suspends the fencing loop's thread (the sidecar's scheduler, {@code sidecar-<site>-tick-*})
   * while everything else in the JVM runs: {@code /health}, {@code /status} and {@code /metrics}
   * keep answering, from a loop that no longer ticks. It stays suspended until the process is
   * killed or {@link #resumeFencingLoop} is called.
   */
  public void hangFencingLoop() {
    try {
      AttachingConnector connector = Bootstrap.virtualMachineManager().attachingConnectors().stream()
          .filter(c -> c.name().equals("com.sun.jdi.SocketAttach")).findFirst()
          .orElseThrow(() -> new IllegalStateException("no JDI socket connector in this JDK"));
      Map<String, Connector.Argument> arguments = connector.defaultArguments();
      arguments.get("hostname").setValue(FailoverStack.LOOPBACK);
      arguments.get("port").setValue(Integer.toString(debugPort));
      VirtualMachine vm = connector.attach(arguments);
      List<ThreadReference> ticks = vm.allThreads().stream()
          .filter(t -> t.name().startsWith("sidecar-" + site + "-tick")).toList();
      if (ticks.isEmpty()) {
        vm.dispose();
        throw new IllegalStateException("no fencing loop thread in the sidecar of " + site);
      }
      ticks.forEach(ThreadReference::suspend);
      debugger = vm;
      LOG.info("suspended the fencing loop of {}'s sidecar (pid {}): {}", site, pid(),
          ticks.stream().map(ThreadReference::name).toList());
    } catch (IOException | com.sun.jdi.connect.IllegalConnectorArgumentsException e) {
      throw new IllegalStateException("cannot attach to the sidecar of " + site + " on port " + debugPort, e);
    }
  }

  /** Lets a suspended fencing loop go on. */
  public void resumeFencingLoop() {
    VirtualMachine vm = debugger;
    debugger = null;
    if (vm != null) {
      // Letting go of the JVM resumes every thread this debugger suspended.
      vm.dispose();
    }
  }

  /** {@code kill -9}, and waits for the process to be gone. */
  public void kill() {
    Process current = process;
    current.destroyForcibly();
    try {
      if (!current.waitFor(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the sidecar of " + site + " (pid " + current.pid() + ") survived kill -9");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while killing the sidecar of " + site, e);
    }
    // Only now: letting go of a live JVM would resume its suspended loop for a moment.
    dropDebugger();
  }

  /** {@code kill -9}, then the same command again: what a kubelet does to a container whose probe failed. */
  public void restart() {
    kill();
    if (!closed) {
      launch();
    }
  }

  private void launch() {
    debugPort = FreePorts.next();
    List<String> command = new ArrayList<>();
    SETPRIV.ifPresent(setpriv -> command.addAll(List.of(setpriv.toString(), "--pdeathsig", "KILL", "--")));
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // No tuning flags: the start measured here is the start of the image's JVM.
    command.addAll(List.of(
        "-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=" + FailoverStack.LOOPBACK + ":" + debugPort,
        "-cp", classpath, SidecarMain.class.getName()));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
    builder.environment().putAll(env);
    try {
      Files.createDirectories(log.getParent());
      startedAt = Instant.now();
      process = LAUNCHER.submit(builder::start).get();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting the sidecar of " + site, e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot start the sidecar of " + site + ": " + e.getCause().getMessage(),
          e.getCause());
    }
    LOG.info("started the sidecar of {} as its own JVM, pid {}, log {}", site, process.pid(), log);
  }

  private void dropDebugger() {
    VirtualMachine vm = debugger;
    debugger = null;
    if (vm != null) {
      try {
        vm.dispose();
      } catch (RuntimeException e) {
        // The JVM is going away; its debugger connection with it.
      }
    }
  }

  private void signal(String name) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid())).redirectErrorStream(true).start();
      String output = new String(kill.getInputStream().readAllBytes());
      if (kill.waitFor() != 0) {
        throw new IllegalStateException("kill -" + name + " " + pid() + " failed: " + output.strip());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while signalling the sidecar of " + site, e);
    }
  }

  /** How long the JVM running now has been up. */
  public Duration uptime() {
    return Duration.between(startedAt, Instant.now());
  }

  @Override
  public void close() {
    closed = true;
    if (process != null && process.isAlive()) {
      // A frozen JVM takes SIGKILL as well.
      kill();
    }
  }
}
