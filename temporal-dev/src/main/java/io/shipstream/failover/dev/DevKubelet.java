package io.shipstream.failover.dev;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.shipstream.failover.kube.SidecarProbes;
import io.shipstream.failover.model.SidecarLiveness;
import io.shipstream.failover.runtime.DaemonThreads;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dev stack's stand-in for the kubelet's liveness probe on the sidecars: it probes a
 * sidecar's {@code /health} with the settings of the {@value SidecarLiveness#CONTAINER}
 * container's {@code livenessProbe} in that site's pod on the mock API server (the pod the
 * failover workflow reads its wait from, so both agree), and restarts the process after {@code
 * failureThreshold} failures in a row, as a kubelet restarts a container.
 *
 * <p>As a kubelet does: the container's startup probe first after every start, then its liveness
 * probe; one attempt every {@code periodSeconds}, each given up after {@code timeoutSeconds}, any
 * answer outside 200-399 or none at all a failure, a new connection per attempt, and the count
 * starting over after a restart. Unlike one: every sidecar of the dev stack
 * listens on 127.0.0.1 on a port of its own, so the probe goes to that port rather than the one the
 * pod names; the process is killed at once ({@code kill -9}) where a kubelet sends SIGTERM and
 * waits the probe's termination grace first (the bound in {@link SidecarLiveness.Probe#restartWithin}
 * counts that grace); and there is no back-off between restarts.
 */
public final class DevKubelet implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DevKubelet.class);

  /**
   * One restart: when the first of the failures in a row was seen, when the process was killed and
   * started again, and why the last attempt failed.
   */
  public record Restart(String site, Instant firstFailure, Instant restartedAt, String reason) {}

  /** What the kubelet looks after: the port the sidecar serves on, and its restart. */
  public interface Target {
    int port();

    void restart();
  }

  private final KubernetesClient kube;
  private final String namespace;
  private final ExecutorService threads = Executors.newCachedThreadPool(DaemonThreads.named("dev-kubelet"));
  private final List<Restart> restarts = new CopyOnWriteArrayList<>();
  /** The sites whose startup probe has passed since their last start: their liveness probe runs. */
  private final Set<String> started = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  public DevKubelet(KubernetesClient kube, String namespace) {
    this.kube = kube;
    this.namespace = namespace;
  }

  /** The sidecar pod of {@code site} in the dev stack. */
  public static String podOf(String site) {
    return "mysql-" + site + "-0";
  }

  /**
   * Probes {@code target} with the liveness probe of the sidecar container of pod {@code podName}
   * from now on. A pod without one is not probed, as a kubelet never restarts a container with no
   * liveness probe: that is logged and the call returns false.
   */
  public boolean watch(String site, String podName, Target target) {
    Optional<SidecarLiveness.Probe> probe = probe(podName);
    if (probe.isEmpty()) {
      LOG.warn("pod {} has no liveness probe on the sidecar's {}: its sidecar is never restarted", podName,
          SidecarLiveness.HEALTH_PATH);
      return false;
    }
    threads.submit(() -> probeLoop(site, podName, target, probe.get()));
    return true;
  }

  /** Every restart so far of {@code site}'s sidecar, oldest first. */
  public List<Restart> restarts(String site) {
    return restarts.stream().filter(r -> r.site().equals(site)).toList();
  }

  /** Waits for the {@code n}th restart of {@code site}'s sidecar (counted from 1). */
  public Restart awaitRestart(String site, int n, Duration timeout) {
    long until = System.nanoTime() + timeout.toNanos();
    while (restarts(site).size() < n) {
      if (System.nanoTime() > until) {
        throw new IllegalStateException("the sidecar of " + site + " was restarted " + restarts(site).size()
            + " times within " + timeout + ", not " + n);
      }
      Playground.sleep(20);
    }
    return restarts(site).get(n - 1);
  }

  /**
   * Waits until the startup probe of {@code site}'s sidecar has passed (at once without one), so
   * that its liveness probe runs: what a test waits for before it freezes or hangs the sidecar,
   * which would otherwise be given the startup probe's longer window.
   */
  public void awaitStarted(String site, Duration timeout) {
    long until = System.nanoTime() + timeout.toNanos();
    while (!started.contains(site)) {
      if (System.nanoTime() > until) {
        throw new IllegalStateException("the startup probe of " + site + "'s sidecar did not pass within " + timeout);
      }
      Playground.sleep(20);
    }
  }

  /**
   * The liveness probe of the pod's sidecar container, when it probes {@code /health} over HTTP,
   * with Kubernetes' defaults for the fields it leaves out.
   */
  public Optional<SidecarLiveness.Probe> probe(String podName) {
    return probe(podName, Container::getLivenessProbe);
  }

  /** The startup probe of the pod's sidecar container, likewise; while it has not passed, the liveness probe waits. */
  public Optional<SidecarLiveness.Probe> startupProbe(String podName) {
    return probe(podName, Container::getStartupProbe);
  }

  private Optional<SidecarLiveness.Probe> probe(String podName, Function<Container, Probe> which) {
    Pod pod = kube.pods().inNamespace(namespace).withName(podName).get();
    return pod == null ? Optional.empty() : SidecarProbes.probe(pod, which);
  }

  /**
   * A kubelet's probing of one container: the startup probe after every start until it passes
   * (none: passed at once), then the liveness probe; either one's {@code failureThreshold}
   * failures in a row restart the container, and the pod is read again.
   */
  private void probeLoop(String site, String podName, Target target, SidecarLiveness.Probe liveness) {
    Optional<SidecarLiveness.Probe> startup = startupProbe(podName);
    boolean started = startup.isEmpty();
    if (started) {
      this.started.add(site);
    }
    int failures = 0;
    Instant firstFailure = null;
    while (!closed) {
      SidecarLiveness.Probe probe = started ? liveness : startup.get();
      String kind = started ? "liveness" : "startup";
      long attemptStarted = System.nanoTime();
      Instant at = Instant.now();
      Optional<String> failure = attempt(target.port(), probe.timeout());
      if (failure.isEmpty()) {
        failures = 0;
        firstFailure = null;
        if (!started) {
          started = true;
          this.started.add(site);
          LOG.info("startup probe of {}'s sidecar passed: its liveness probe runs from now on", site);
        }
      } else {
        failures++;
        if (firstFailure == null) {
          firstFailure = at;
        }
        LOG.info("{} probe of {}'s sidecar failed ({}/{}): {}", kind, site, failures, probe.failureThreshold(),
            failure.get());
        if (failures >= probe.failureThreshold() && !closed) {
          LOG.warn("restarting {}'s sidecar: its {} probe failed {} times in a row", site, kind, failures);
          this.started.remove(site);
          try {
            target.restart();
            restarts.add(new Restart(site, firstFailure, Instant.now(), kind + ": " + failure.get()));
          } catch (RuntimeException e) {
            LOG.error("could not restart {}'s sidecar", site, e);
          }
          failures = 0;
          firstFailure = null;
          // The pod is read again, as a kubelet runs the container's spec as it is now.
          liveness = probe(podName).orElse(liveness);
          startup = startupProbe(podName);
          started = startup.isEmpty();
          if (started) {
            this.started.add(site);
          }
        }
      }
      long next = attemptStarted + probe.period().toNanos();
      try {
        TimeUnit.NANOSECONDS.sleep(Math.max(0, next - System.nanoTime()));
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** One attempt: empty when the answer is 200-399, else why not. */
  private static Optional<String> attempt(int port, Duration timeout) {
    HttpURLConnection connection = null;
    try {
      URI uri = URI.create("http://" + FailoverStack.LOOPBACK + ":" + port + SidecarLiveness.HEALTH_PATH);
      connection = (HttpURLConnection) uri.toURL().openConnection();
      connection.setConnectTimeout((int) timeout.toMillis());
      connection.setReadTimeout((int) timeout.toMillis());
      connection.setRequestProperty("Connection", "close");
      int code = connection.getResponseCode();
      if (code >= 200 && code < 400) {
        return Optional.empty();
      }
      try (InputStream body = connection.getErrorStream()) {
        String text = body == null ? "" : new String(body.readAllBytes(), StandardCharsets.UTF_8).strip();
        return Optional.of("HTTP " + code + (text.isEmpty() ? "" : ": " + text));
      }
    } catch (IOException e) {
      return Optional.of(e.getClass().getSimpleName() + ": " + e.getMessage());
    } finally {
      if (connection != null) {
        connection.disconnect();
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    threads.shutdownNow();
  }
}
