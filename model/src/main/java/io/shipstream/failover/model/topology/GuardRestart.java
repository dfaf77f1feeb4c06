package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.SidecarLiveness;
import io.shipstream.failover.model.SidecarLiveness.Probe;
import java.time.Duration;

/**
 * How long the emergency failover waits for an old primary that nothing confirmed fenced. The
 * lease proves a fence only while the sidecar that enforces it runs: a sidecar that hangs (a
 * frozen JVM, a stuck loop, a JDBC call hung past its timeout) keeps no lease, and its server
 * keeps taking writes. What bounds that case is the kubelet: the sidecar's {@code /health} fails
 * once its fencing loop has not completed a tick for {@link SidecarLiveness#healthBound}, the
 * liveness probe notices within {@code periodSeconds x failureThreshold + timeoutSeconds}, the
 * kubelet kills the container (SIGTERM, then SIGKILL after the termination grace: a frozen process
 * never handles the SIGTERM) and starts it again, and the new sidecar fences its server at boot
 * within {@link SidecarLiveness#BOOT_FENCE_BOUND} unless the view names its own site, which it no
 * longer does once the candidate is named active ({@link SidecarLiveness#restartAndFenceBound}). So the wait, counted from the naming, is the longer of the lease's and this
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
  /** Kubernetes' defaults for a probe that leaves them out, and the pod's default termination grace. */
  public static final Probe KUBERNETES_DEFAULTS = Probe.ofPodSpec(null, null, null, null, null);

  private GuardRestart() {}

  /** What the old primary's pods said of its sidecar's liveness probe. */
  public enum Basis { PROBED, NO_PROBE, UNKNOWN }

  /**
   * What was read: a probe (PROBED), or why there is none to count on.
   *
   * @param pod the pod the probe was read from, for the messages
   * @param probe the weakest probe of the site's pods, for PROBED
   * @param problem why not, for NO_PROBE and UNKNOWN
   */
  public record Reading(Basis basis, String pod, Probe probe, String problem) {
    public static Reading probed(String pod, Probe probe) {
      return new Reading(Basis.PROBED, pod, probe, null);
    }

    public static Reading noProbe(String why) {
      return new Reading(Basis.NO_PROBE, null, null, why);
    }

    public static Reading unknown(String why) {
      return new Reading(Basis.UNKNOWN, null, null, why);
    }
  }

  /**
   * The wait after the naming and what it rests on.
   *
   * @param total from the naming of the candidate to the promotion, margin included
   * @param leaseWait the lease's part: lease + interval + margin
   * @param restartWait the restart bound + margin; null when nothing restarts a hung sidecar
   * @param reading what the pods said
   * @param basis in words, for the status and the Events
   */
  public record Bound(Duration total, Duration leaseWait, Duration restartWait, Basis reading, String basis) {
    /** Whether a hung sidecar is restarted at all: false only when its pods declare no probe on /health. */
    public boolean guarded() {
      return restartWait != null;
    }
  }

  /** The wait for an old primary that nothing confirmed fenced; the table above. */
  public static Bound bound(Reading reading, Duration leaseTimeout, Duration peerCheckInterval) {
    Duration lease = leaseTimeout.plus(peerCheckInterval).plus(MARGIN);
    return switch (reading.basis()) {
      case NO_PROBE -> new Bound(lease, lease, null, Basis.NO_PROBE, "lease " + seconds(leaseTimeout) + " s + "
          + seconds(peerCheckInterval) + " s interval + " + seconds(MARGIN) + " s; " + reading.problem()
          + ": a hung sidecar is never restarted, so nothing proves the old primary fenced");
      case PROBED -> restart(Basis.PROBED, lease, leaseTimeout, peerCheckInterval, reading.probe(),
          reading.pod() + "'s liveness probe");
      case UNKNOWN -> restart(Basis.UNKNOWN, lease, leaseTimeout, peerCheckInterval, KUBERNETES_DEFAULTS,
          "Kubernetes' default probe (the pod could not be read: " + reading.problem() + ")");
    };
  }

  private static Bound restart(Basis basis, Duration lease, Duration leaseTimeout, Duration interval, Probe probe,
      String whose) {
    Duration restart = SidecarLiveness.restartAndFenceBound(probe, interval).plus(MARGIN);
    Duration total = restart.compareTo(lease) > 0 ? restart : lease;
    return new Bound(total, lease, restart, basis, "the longer of the lease (" + seconds(leaseTimeout) + " s + "
        + seconds(interval) + " s interval + " + seconds(MARGIN) + " s = " + seconds(lease) + " s) and a hung "
        + "sidecar's restart (" + whose + ": /health fails after " + seconds(SidecarLiveness.healthBound(interval))
        + " s, then " + probe.failureThreshold() + " x " + seconds(probe.period()) + " s + " + seconds(probe.timeout())
        + " s timeout + " + seconds(probe.terminationGrace()) + " s termination grace + "
        + seconds(SidecarLiveness.BOOT_FENCE_BOUND) + " s to the boot fence + " + seconds(MARGIN) + " s = "
        + seconds(restart) + " s)");
  }

  /** Seconds with at most one decimal, as the Events write them. */
  public static String seconds(Duration d) {
    long tenths = (d.toMillis() + 50) / 100;
    return tenths % 10 == 0 ? String.valueOf(tenths / 10) : (tenths / 10) + "." + (tenths % 10);
  }
}
