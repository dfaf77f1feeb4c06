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
 * longer does once the candidate is named active ({@link SidecarLiveness#restartAndFenceBound}).
 *
 * <p>A sidecar may hang at any moment while it still runs unfenced, not only before the naming:
 * one cut off from everything (a region gone dark) keeps ticking, and so keeps its server
 * writable, until its lease runs out, up to {@code lease + interval} after the naming when its
 * last contact came just before it; should it hang in the last of those ticks, it is restarted
 * and fences at boot only the restart bound later. So the wait for a guarded old primary, counted
 * from the naming, is the lease's and the restart bound added up, never the longer of the two
 * (the rule of release 0.1.0, {@link #boundAsReleased}, which a sidecar hanging after the naming
 * outlived by up to the lease: two writable servers, in the drills' terms).
 *
 * <pre>
 * | what the old primary's pods say        | wait after the naming                          | basis     |
 * |----------------------------------------|------------------------------------------------|-----------|
 * | a liveness probe on /health            | lease + interval + health + period x failures  | PROBED    |
 * |                                        |   + timeout + grace + boot + margin            |           |
 * | no liveness probe on /health           | lease + interval + margin: a hung sidecar is   | NO_PROBE  |
 * |                                        |   never restarted, so nothing proves the fence |           |
 * |                                        |   (a Warning says so; the group is Degraded)   |           |
 * | unreadable (API error, no pod matched) | lease + interval + the restart bound with      | UNKNOWN   |
 * |                                        |   Kubernetes' defaults (10 s x 3 + 1 s + 30 s  |           |
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
  public enum Basis {
    PROBED, NO_PROBE, UNKNOWN
  }

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
   * @param restartWait the restart bound + margin (counted from the sidecar's last tick); null when
   *     nothing restarts a hung sidecar
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
    return bound(reading, leaseTimeout, peerCheckInterval, GuardRestart::leaseThenRestart);
  }

  /**
   * The wait as release 0.1.0 computed it: the longer of the lease and the restart bound, which
   * misses a sidecar that hangs after the naming while its lease still runs (see above). Kept
   * only for the failovers that 0.1.0 started and a later worker finishes: their recorded
   * histories must replay with the wait they began with.
   */
  public static Bound boundAsReleased(Reading reading, Duration leaseTimeout, Duration peerCheckInterval) {
    return bound(reading, leaseTimeout, peerCheckInterval, GuardRestart::longerOfLeaseAndRestart);
  }

  /** How a guarded wait puts the lease and the restart together. */
  private interface Rule {
    Bound apply(Basis basis, Duration lease, Duration leaseTimeout, Duration interval, Probe probe, String whose);
  }

  private static Bound bound(Reading reading, Duration leaseTimeout, Duration peerCheckInterval, Rule rule) {
    Duration lease = leaseTimeout.plus(peerCheckInterval).plus(MARGIN);
    return switch (reading.basis()) {
      case NO_PROBE -> noProbe(reading, lease, leaseTimeout, peerCheckInterval);
      case PROBED -> rule.apply(Basis.PROBED, lease, leaseTimeout, peerCheckInterval, reading.probe(),
          reading.pod() + "'s liveness probe");
      case UNKNOWN -> rule.apply(Basis.UNKNOWN, lease, leaseTimeout, peerCheckInterval, KUBERNETES_DEFAULTS,
          "Kubernetes' default probe (the pod could not be read: " + reading.problem() + ")");
    };
  }

  private static Bound noProbe(Reading reading, Duration lease, Duration leaseTimeout, Duration peerCheckInterval) {
    return new Bound(lease, lease, null, Basis.NO_PROBE, "lease " + seconds(leaseTimeout) + " s + "
        + seconds(peerCheckInterval) + " s interval + " + seconds(MARGIN) + " s; " + reading.problem()
        + ": a hung sidecar is never restarted, so nothing proves the old primary fenced");
  }

  /**
   * The lease, then the restart: the sidecar may run unfenced until its lease fences it, and hang
   * in its very last tick before that fence.
   */
  private static Bound leaseThenRestart(Basis basis, Duration lease, Duration leaseTimeout, Duration interval,
      Probe probe, String whose) {
    Duration restart = SidecarLiveness.restartAndFenceBound(probe, interval);
    Duration total = leaseTimeout.plus(interval).plus(restart).plus(MARGIN);
    return new Bound(total, lease, restart.plus(MARGIN), basis, "the lease (" + seconds(leaseTimeout) + " s + "
        + seconds(interval) + " s interval), until which a sidecar cut off from everything keeps its server "
        + "writable, then a hung sidecar's restart, should it hang in its last tick before its lease fences ("
        + restartTerms(whose, probe, interval) + "), + " + seconds(MARGIN) + " s = " + seconds(total) + " s");
  }

  private static Bound longerOfLeaseAndRestart(Basis basis, Duration lease, Duration leaseTimeout, Duration interval,
      Probe probe, String whose) {
    Duration restart = SidecarLiveness.restartAndFenceBound(probe, interval).plus(MARGIN);
    Duration total = restart.compareTo(lease) > 0 ? restart : lease;
    return new Bound(total, lease, restart, basis, "the longer of the lease (" + seconds(leaseTimeout) + " s + "
        + seconds(interval) + " s interval + " + seconds(MARGIN) + " s = " + seconds(lease) + " s) and a hung "
        + "sidecar's restart (" + restartTerms(whose, probe, interval) + " + " + seconds(MARGIN) + " s = "
        + seconds(restart) + " s)");
  }

  /** The restart bound's terms, without the margin: "whose: /health fails after ..., then ... boot fence". */
  private static String restartTerms(String whose, Probe probe, Duration interval) {
    return whose + ": /health fails after " + seconds(SidecarLiveness.healthBound(interval)) + " s, then "
        + probe.failureThreshold() + " x " + seconds(probe.period()) + " s + " + seconds(probe.timeout())
        + " s timeout + " + seconds(probe.terminationGrace()) + " s termination grace + "
        + seconds(SidecarLiveness.BOOT_FENCE_BOUND) + " s to the boot fence";
  }

  /** Seconds with at most one decimal, as the Events write them. */
  public static String seconds(Duration d) {
    long tenths = (d.toMillis() + 50) / 100;
    return tenths % 10 == 0 ? String.valueOf(tenths / 10) : (tenths / 10) + "." + (tenths % 10);
  }
}
