package io.shipstream.failover.model;

import java.time.Duration;
import java.util.Objects;

/**
 * How long a sidecar that stopped guarding its server may stay stopped: the one place that says
 * it. A lease is a promise only while the sidecar's fencing loop runs, so the sidecar's {@code
 * /health} fails once the loop has not completed a tick within {@link #healthBound}, the kubelet's
 * liveness probe on it ({@link Probe}) restarts the container, and the restarted sidecar fences its
 * server at boot within {@link #BOOT_FENCE_BOUND} unless it learns at once that its site is the
 * active one. {@link #restartAndFenceBound} adds these up: an emergency failover that cannot
 * confirm the old primary waits at least that long (and at least the lease) before it trusts the
 * sidecar to have fenced it.
 *
 * <p>The sidecar checks at build time that its own timeouts fit the allowances below (its {@code
 * TimingTest}); the chart README's pod example and the dev stack's pods carry {@link
 * Probe#CHART}, which the chart test reads back from the README.
 */
public final class SidecarLiveness {
  /** The sidecar's liveness endpoint, open to the kubelet without the group's token. */
  public static final String HEALTH_PATH = "/health";
  /** The name of the sidecar container in the dev stack's MySQL pods. */
  public static final String CONTAINER = "sidecar";
  /** The port the sidecar listens on unless HTTP_PORT says otherwise, named {@value #PORT_NAME} in the pod. */
  public static final int DEFAULT_PORT = 9180;
  public static final String PORT_NAME = "sidecar";

  /**
   * The longest a request to the watcher or a peer waits: the first poll after a start always
   * does (a cold JVM's first requests are the slowest), later ones half the interval, never more.
   */
  public static final Duration MAX_REQUEST_TIMEOUT = Duration.ofSeconds(2);
  /**
   * The longest a healthy tick spends on its own server: a look that gives up after the connect
   * and probe timeouts (1 s each), then a fence that connects (1 s), waits out one lock wait for
   * open transactions (2 s), kills them and fences again (1 s), or a stop that waits for the
   * process to exit (2 s, less than the fence). Behind commits waiting for a semi-sync
   * acknowledgement the fence instead opens a second connection (1 s) and queues its fence there,
   * which lands about a second after it queued (measured on MySQL) but may wait 3 s: a second
   * over only when that fence fails, within {@link #LOADED_MACHINE_SLACK}.
   * A call that takes longer is hung past its timeout.
   */
  public static final Duration LOCAL_MYSQL_ALLOWANCE = Duration.ofSeconds(6);
  /** A loaded two-core machine: a GC pause, a scheduler thread waiting for a CPU. */
  public static final Duration LOADED_MACHINE_SLACK = Duration.ofSeconds(2);
  /**
   * From the start of a sidecar's JVM to its first tick: class loading, logging, the HTTP server.
   * Measured 11 to 15 s to a first answer, and 5.5 to 16.5 s to the boot fence, on the dev
   * machine's two cores at load averages of 8 to 10 (several builds at once), where CPU starvation
   * dominates; a pod whose sidecar gets less CPU than that (the chart README asks for a request of
   * 100m) makes every bound that adds this one untrue. The sidecar's {@code /status} shows what its
   * own start took ({@code processStartToFirstTickMillis}).
   */
  public static final Duration JVM_START_ALLOWANCE = Duration.ofSeconds(15);
  /**
   * From the start of a sidecar's process to its boot fence of a writable server it cannot learn
   * the active site for (or that another site is active): the JVM's start, the first poll's
   * timeout, then the look and the fence. The boot rule fences a writable server on the first tick
   * unless an answer names this site the active one or says the group has never had one.
   */
  public static final Duration BOOT_FENCE_BOUND = JVM_START_ALLOWANCE.plus(MAX_REQUEST_TIMEOUT)
      .plus(LOCAL_MYSQL_ALLOWANCE);

  private SidecarLiveness() {}

  /**
   * How long the fencing loop may go without completing a tick before {@code /health} fails: one
   * interval (a tick starts at most that long after the last one started), then the longest
   * healthy tick (its requests' timeout and {@link #LOCAL_MYSQL_ALLOWANCE}), then {@link
   * #LOADED_MACHINE_SLACK}. A healthy loop never exceeds it, so a probe never restarts a sidecar
   * that keeps its promise (a restart of the active site's sidecar while the watcher is out of
   * reach fences the application's primary). With the spec's defaults (5 s interval) it is 15 s,
   * below the 20 s lease; a lease shorter than this bound is not kept by the probe alone, which
   * is why a failover waits for the longer of the lease and {@link #restartAndFenceBound}.
   */
  public static Duration healthBound(Duration peerCheckInterval) {
    Objects.requireNonNull(peerCheckInterval, "peerCheckInterval");
    return peerCheckInterval.plus(MAX_REQUEST_TIMEOUT).plus(LOCAL_MYSQL_ALLOWANCE).plus(LOADED_MACHINE_SLACK);
  }

  /**
   * From a fencing loop's last completed tick to its server fenced by a restarted sidecar, with
   * the pod's liveness probe: the loop is found stalled after {@link #healthBound}, the probe
   * restarts the container within {@link Probe#restartWithin}, and the new process fences at
   * boot within {@link #BOOT_FENCE_BOUND}. Not counted: a kubelet that holds the restart back
   * (CrashLoopBackOff after earlier restarts) or is gone with its node.
   */
  public static Duration restartAndFenceBound(Probe probe, Duration peerCheckInterval) {
    return healthBound(peerCheckInterval).plus(probe.restartWithin()).plus(BOOT_FENCE_BOUND);
  }

  /**
   * A container's liveness probe as the kubelet runs it: every {@code period}, each attempt given
   * up after {@code timeout}, the container killed after {@code failureThreshold} failures in a
   * row, with {@code terminationGrace} between SIGTERM and SIGKILL.
   */
  public record Probe(Duration period, Duration timeout, int failureThreshold, Duration terminationGrace) {
    /**
     * The chart's settings for the sidecar: a stalled loop restarted within 8 s of {@code /health}
     * failing. A short termination grace, because the JVM's shutdown waits for a stuck tick.
     */
    public static final Probe CHART = new Probe(Duration.ofSeconds(2), Duration.ofSeconds(1), 3, Duration.ofSeconds(1));
    /**
     * The chart's startup probe for the sidecar, on the same {@code /health}: the liveness probe
     * is held back until it passes, so a JVM that starts slowly on a busy node (longer than the
     * liveness probe's 7 s) is given 30 s instead of being killed over and over.
     */
    public static final Probe CHART_STARTUP =
        new Probe(Duration.ofSeconds(1), Duration.ofSeconds(1), 30, Duration.ofSeconds(1));

    public Probe {
      Objects.requireNonNull(period, "period");
      Objects.requireNonNull(timeout, "timeout");
      Objects.requireNonNull(terminationGrace, "terminationGrace");
      if (failureThreshold < 1) {
        throw new IllegalArgumentException("failureThreshold must be at least 1, not " + failureThreshold);
      }
    }

    /**
     * A probe as a pod spec gives it, with Kubernetes' defaults where a field is not set (period
     * 10 s, timeout 1 s, failure threshold 3, the pod's termination grace, itself 30 s by default).
     */
    public static Probe ofPodSpec(Integer periodSeconds, Integer timeoutSeconds, Integer failureThreshold,
        Long probeTerminationGraceSeconds, Long podTerminationGraceSeconds) {
      long grace = probeTerminationGraceSeconds != null ? probeTerminationGraceSeconds
          : podTerminationGraceSeconds != null ? podTerminationGraceSeconds : 30;
      return new Probe(Duration.ofSeconds(periodSeconds == null ? 10 : periodSeconds),
          Duration.ofSeconds(timeoutSeconds == null ? 1 : timeoutSeconds),
          failureThreshold == null ? 3 : failureThreshold, Duration.ofSeconds(grace));
    }

    /**
     * From {@code /health} failing to the container killed: the first failing attempt starts
     * within one period, the last of {@code failureThreshold} ends a timeout after it starts, then
     * the grace.
     */
    public Duration restartWithin() {
      return period.multipliedBy(failureThreshold).plus(timeout).plus(terminationGrace);
    }
  }
}
