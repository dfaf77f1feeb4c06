package io.shipstream.failover.dev.faults;

import io.shipstream.failover.dev.faults.FaultInjector.When;
import java.util.Locale;

/**
 * One fault the suite injects into a planned failover. Sites are named by their role in the
 * failover (source, target), so a case means the same whichever site is primary when it runs.
 */
public sealed interface Fault {

  String describe();

  /** The worker dies at {@code boundary} and a new one starts {@code downMillis} later. */
  record WorkerKill(Boundary boundary, When when, long downMillis) implements Fault {
    public String describe() {
      return "kill the worker " + (when == When.BEFORE ? "as " + boundary.label() + " starts"
          : "after " + boundary.label() + " did its work, before Temporal records it") + "; restart after "
          + downMillis + " ms";
    }
  }

  /** The watcher dies {@code afterMillis} after the annotation and comes back {@code downMillis} later. */
  record WatcherKill(long afterMillis, long downMillis) implements Fault {
    public String describe() {
      return "kill the watcher " + afterMillis + " ms after the annotation; restart after " + downMillis + " ms";
    }
  }

  /** kill -9 of the source server once it is fenced, while its sessions are drained. */
  record SourceKill9(Boundary at) implements Fault {
    public String describe() {
      return "kill -9 the source server as " + at.label() + " starts (mid-drain)";
    }
  }

  /** SIGSTOP of the source server as {@code at} starts; SIGCONT {@code stoppedMillis} later. */
  record SourceStop(Boundary at, long stoppedMillis) implements Fault {
    public String describe() {
      return "SIGSTOP the source server as " + at.label() + " starts" + (at == Boundary.UNLABEL_SOURCE
          ? " (mid-drain)" : "") + "; SIGCONT after " + stoppedMillis + " ms";
    }
  }

  /**
   * The target's replication from the source is cut (its TCP path refused or black-holed) from
   * just before the annotation, so WaitingForLag starts behind and without a feed; healed after
   * {@code cutMillis}. {@code maxLagWaitSeconds} goes into the annotation.
   */
  record ReplicationCut(boolean blackhole, long cutMillis, int maxLagWaitSeconds) implements Fault {
    public String describe() {
      return (blackhole ? "black-hole" : "refuse") + " the target's replication link for " + cutMillis
          + " ms across WaitingForLag (maxLagWait " + maxLagWaitSeconds + "s)";
    }
  }

  /** The API server answers {@code code} to every write of {@code what} from {@code from} on. */
  record ApiRefusal(Writes what, int code, Boundary from, long refuseMillis) implements Fault {
    public String describe() {
      return "API server answers " + code + " to " + what.name().toLowerCase(Locale.ROOT) + " writes for "
          + refuseMillis + " ms from " + from.label() + " on";
    }
  }

  /** Which writes an {@link ApiRefusal} refuses. */
  enum Writes { STATUS, DNSENDPOINT }

  /** The target's MySQL refuses (or black-holes) the controller's connections from Promoting on. */
  record TargetRefuses(boolean blackhole, long refuseMillis) implements Fault {
    public String describe() {
      return "target MySQL " + (blackhole ? "black-holes" : "refuses") + " connections for " + refuseMillis
          + " ms from " + Boundary.PROMOTE.label() + " on";
    }
  }

  /**
   * A second group the watcher cannot read whole (an unknown spec field and a badly typed value,
   * as {@code kubectl create --validate=false} makes one) appears before the annotation ({@code at}
   * null) or as {@code at} starts: the watcher must still see the annotation, and its view of the
   * failover's group must follow the failover (its {@code /active-site} names the new active site).
   */
  record MalformedGroup(Boundary at) implements Fault {
    public String describe() {
      return "create a malformed second group (unknown spec field, badly typed value) "
          + (at == null ? "before the annotation" : "as " + at.label() + " starts");
    }
  }

  /** Which side of the failover a fault hits. */
  enum Side { SOURCE, TARGET }

  /**
   * The case runs the sidecars ({@link io.shipstream.failover.dev.SidecarMesh}), {@code side}'s as
   * a JVM of its own watched by the dev kubelet with the chart's probes, and freezes that JVM
   * ({@code kill -STOP}) as the failover is requested ({@code at} null) or as {@code at} starts,
   * and leaves it frozen: the kubelet's liveness probe restarts it, during or after the failover.
   * Beside the invariants: it was restarted, and once the restarted sidecar runs again the new
   * primary is writable and the old one read-only, the new sidecar having fenced nothing.
   */
  record FrozenSidecar(Side side, Boundary at) implements Fault {
    public String describe() {
      return "freeze (kill -STOP) the " + side.name().toLowerCase(Locale.ROOT) + "'s sidecar JVM "
          + (at == null ? "as the failover is requested" : "as " + at.label() + " starts")
          + "; left frozen for the dev kubelet to restart";
    }
  }

  /**
   * A region drill ({@link RegionDrill}): not a fault in a planned failover but a whole region cut
   * off the network, on a stack of its own (regions, sidecars, the topology monitor; {@link
   * RegionHarness}).
   */
  record RegionOutage(RegionDrill drill) implements Fault {
    public String describe() {
      return drill.describe();
    }
  }

  /** No fault: the baseline every invariant must already hold for. */
  record None() implements Fault {
    public String describe() {
      return "no fault";
    }
  }
}
