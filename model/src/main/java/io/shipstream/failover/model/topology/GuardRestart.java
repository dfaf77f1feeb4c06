package io.shipstream.failover.model.topology;

import java.time.Duration;

/**
 * How long the emergency failover waits for an old primary that nothing confirmed fenced. The
 * lease proves a fence only while the sidecar that enforces it runs: a sidecar that hangs (a
 * frozen JVM, a stuck loop, a JDBC call hung past its timeout) keeps no lease, and its server
 * keeps taking writes. What bounds that case is the kubelet: the sidecar's {@code /health} fails
 * once its fencing loop has not completed a tick for {@link #healthBound}, the liveness probe
 * notices within {@code periodSeconds x failureThreshold + timeoutSeconds}, the kubelet kills the
 * container (SIGTERM, then SIGKILL after the termination grace: a frozen process never handles the
 * SIGTERM) and starts it again, and the new sidecar fences its server at boot within {@link
 * #BOOT_FENCE} unless the view names its own site, which it no longer does once the candidate is
 * named active. So the wait, counted from the naming, is the longer of the lease's and this
 * restart bound, never shorter.
 *
 * <pre>
 * | what the old primary's pods say        | wait after the naming                          | basis     |
 * |----------------------------------------|------------------------------------------------|-----------|
 * | a liveness probe on /health            | max(lease + interval, health + period x        | PROBED    |
 * |                                        |   failures + timeout + grace + boot) + margin  |           |
 * | no liveness probe on /health           | lease + interval + margin: a hung sidecar is   | NO_PROBE  |
 * |                                        |   never restarted, so nothing proves the fence |           |
 * |                                        |   (a Warning says so; the group is Degraded)   |           |
 * | unreadable (API error, no pod matched) | max(lease + interval, the restart bound with   | UNKNOWN   |
 * |                                        |   Kubernetes' defaults: 10 s x 3 + 1 s + 30 s  |           |
 * |                                        |   grace) + margin: never the bare lease        |           |
 * </pre>
 *
 * <p>Not counted: the kubelet's back-off between repeated restarts of the same container (10 s,
 * doubling to 5 min, reset after 10 min of running), which applies only to a sidecar restarted
 * again within ten minutes; and a node whose kubelet is gone with the sidecar, which no probe
 * bounds (the operating docs say what protects that case). Pure, so every row is tested.
 */
public final class GuardRestart {
  /** Beyond the bound: the sidecar's tick itself and the clocks' drift (the lease's own margin). */
  public static final Duration MARGIN = Duration.ofSeconds(1);
  /**
   * From the container's start to its boot fence: the JVM's start and the first poll, whose
   * requests wait {@link #FIRST_POLL} before the boot rule decides.
   */
  public static final Duration BOOT_FENCE = Duration.ofSeconds(6);
  /** How long the sidecar's first poll waits for its answers (the sidecar's longest request timeout). */
  public static final Duration FIRST_POLL = Duration.ofSeconds(2);

  /** Kubernetes' defaults for a probe that leaves them out, and the pod's default termination grace. */
  public static final Probe KUBERNETES_DEFAULTS = new Probe(null, 10, 1, 3, 30);

  private GuardRestart() {}

  /**
   * The liveness probe on {@code /health} of a sidecar's container, with Kubernetes' defaults
   * filled in for what the pod leaves out.
   *
   * @param pod the pod it was read from, for the messages
   * @param terminationGraceSeconds the probe's own {@code terminationGracePeriodSeconds}, else the pod's
   */
  public record Probe(String pod, int periodSeconds, int timeoutSeconds, int failureThreshold,
      long terminationGraceSeconds) {
    /** From the kill of a hung sidecar's container back to a sidecar that fenced at boot, after its loop hung. */
    public Duration restart(Duration health) {
      return health.plusSeconds((long) periodSeconds * failureThreshold).plusSeconds(timeoutSeconds)
          .plusSeconds(terminationGraceSeconds).plus(BOOT_FENCE);
    }

    String describe(Duration health) {
      return (pod == null ? "Kubernetes' default probe" : pod + "'s liveness probe") + ": /health fails after "
          + seconds(health) + " s, then " + failureThreshold + " x " + periodSeconds + " s + " + timeoutSeconds
          + " s timeout + " + terminationGraceSeconds + " s termination grace + " + seconds(BOOT_FENCE)
          + " s to the boot fence = " + seconds(restart(health)) + " s";
    }
  }

  /** What the old primary's pods said of its sidecar's liveness probe. */
  public enum Basis { PROBED, NO_PROBE, UNKNOWN }

  /**
   * What was read: a probe (PROBED), or why there is none to count on.
   *
   * @param probe the weakest probe of the site's pods, for PROBED
   * @param problem why not, for NO_PROBE and UNKNOWN
   */
  public record Reading(Basis basis, Probe probe, String problem) {
    public static Reading probed(Probe probe) {
      return new Reading(Basis.PROBED, probe, null);
    }

    public static Reading noProbe(String why) {
      return new Reading(Basis.NO_PROBE, null, why);
    }

    public static Reading unknown(String why) {
      return new Reading(Basis.UNKNOWN, null, why);
    }
  }

  /**
   * The wait after the naming and what it rests on.
   *
   * @param total from the naming of the candidate to the promotion, margin included
   * @param leaseWait the lease's part: lease + interval + margin
   * @param restartWait the restart bound + margin; null when nothing restarts a hung sidecar
   * @param basis in words, for the status and the Events
   */
  public record Bound(Duration total, Duration leaseWait, Duration restartWait, Basis reading, String basis) {
    /** Whether a hung sidecar is restarted at all: false only when its pods declare no probe on /health. */
    public boolean guarded() {
      return restartWait != null;
    }
  }

  /**
   * How long after the last completed tick the sidecar's {@code /health} fails: the lease in
   * force, so a loop that misses a lease's worth of ticks is restarted. A healthy loop completes a
   * tick every interval, each at most the request timeout plus the local server's statement
   * timeout long, both far shorter than any lease the spec allows (the lease is at least three
   * intervals), so a loaded machine never fails it.
   */
  public static Duration healthBound(Duration leaseTimeout, Duration peerCheckInterval) {
    return leaseTimeout;
  }

  /** The wait for an old primary that nothing confirmed fenced; the table above. */
  public static Bound bound(Reading reading, Duration leaseTimeout, Duration peerCheckInterval) {
    Duration lease = leaseTimeout.plus(peerCheckInterval).plus(MARGIN);
    Duration health = healthBound(leaseTimeout, peerCheckInterval);
    return switch (reading.basis()) {
      case NO_PROBE -> new Bound(lease, lease, null, Basis.NO_PROBE, "lease " + seconds(leaseTimeout) + " s + "
          + seconds(peerCheckInterval) + " s interval + " + seconds(MARGIN) + " s; " + reading.problem()
          + ": a hung sidecar is never restarted, so nothing proves the old primary fenced");
      case PROBED -> restart(lease, leaseTimeout, peerCheckInterval, health, reading.probe(), "");
      case UNKNOWN -> restart(lease, leaseTimeout, peerCheckInterval, health, KUBERNETES_DEFAULTS,
          " (the pod could not be read: " + reading.problem() + ")");
    };
  }

  private static Bound restart(Duration lease, Duration leaseTimeout, Duration interval, Duration health, Probe probe,
      String why) {
    Duration restart = probe.restart(health).plus(MARGIN);
    Duration wait = restart.compareTo(lease) > 0 ? restart : lease;
    Basis basis = probe == KUBERNETES_DEFAULTS ? Basis.UNKNOWN : Basis.PROBED;
    return new Bound(wait, lease, restart, basis, "the longer of the lease (" + seconds(leaseTimeout) + " s + "
        + seconds(interval) + " s interval + " + seconds(MARGIN) + " s = " + seconds(lease) + " s) and a hung "
        + "sidecar's restart (" + probe.describe(health) + why + ", + " + seconds(MARGIN) + " s = " + seconds(restart)
        + " s)");
  }

  /** Seconds with at most one decimal, as the Events write them. */
  public static String seconds(Duration d) {
    long tenths = (d.toMillis() + 50) / 100;
    return tenths % 10 == 0 ? String.valueOf(tenths / 10) : (tenths / 10) + "." + (tenths % 10);
  }
}
