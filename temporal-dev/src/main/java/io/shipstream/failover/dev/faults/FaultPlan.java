package io.shipstream.failover.dev.faults;

import io.shipstream.failover.dev.faults.Fault.ApiRefusal;
import io.shipstream.failover.dev.faults.Fault.ReplicationCut;
import io.shipstream.failover.dev.faults.Fault.SourceKill9;
import io.shipstream.failover.dev.faults.Fault.SourceStop;
import io.shipstream.failover.dev.faults.Fault.TargetRefuses;
import io.shipstream.failover.dev.faults.Fault.WatcherKill;
import io.shipstream.failover.dev.faults.Fault.WorkerKill;
import io.shipstream.failover.dev.faults.Fault.Writes;
import io.shipstream.failover.dev.faults.FaultInjector.When;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A case of the suite: a name, the fault, and the seed it came from (null for the named cases).
 * The catalog holds the named cases; {@link #random} derives a case from a seed alone, so a
 * printed seed replays the same fault with the same timing against the same role.
 */
public record FaultPlan(String name, Fault fault, Long seed) {

  /** Every named case: each activity boundary of the planned workflow, then the other faults. */
  public static Map<String, FaultPlan> catalog() {
    Map<String, FaultPlan> all = new LinkedHashMap<>();
    add(all, "baseline", new Fault.None());
    for (Boundary b : Boundary.values()) {
      add(all, "worker-kill-after-" + b.label(), new WorkerKill(b, When.AFTER, 200));
    }
    for (Boundary b : List.of(Boundary.FENCE, Boundary.LAG_WAIT, Boundary.PROMOTE)) {
      add(all, "worker-kill-before-" + b.label(), new WorkerKill(b, When.BEFORE, 200));
    }
    add(all, "watcher-kill-at-annotation", new WatcherKill(0, 1_000));
    add(all, "watcher-kill-mid-failover", new WatcherKill(150, 500));
    // The unlabel starts together with the session drain, right after the fence, and runs in
    // every failover (the drain only when the source had sessions open).
    add(all, "source-kill9-mid-drain", new SourceKill9(Boundary.UNLABEL_SOURCE));
    add(all, "source-sigstop-mid-drain", new SourceStop(Boundary.UNLABEL_SOURCE, 3_000));
    // Frozen source, resumed at several points: before its fence (which then lands late), and
    // after the fence through the lag wait and the promotion (resumed once the target is writable).
    add(all, "source-sigstop-before-fence", new SourceStop(Boundary.FENCE, 1_500));
    add(all, "source-sigstop-through-promotion", new SourceStop(Boundary.UNLABEL_SOURCE, 8_000));
    add(all, "source-sigstop-lag-wait-through-promotion", new SourceStop(Boundary.LAG_WAIT, 5_000));
    add(all, "replication-refused-lag-wait", new ReplicationCut(false, 2_000, 30));
    add(all, "replication-blackholed-lag-timeout", new ReplicationCut(true, 6_000, 2));
    add(all, "api-refuses-status-writes", new ApiRefusal(Writes.STATUS, 503, Boundary.FENCE, 3_000));
    add(all, "api-refuses-dnsendpoint-writes", new ApiRefusal(Writes.DNSENDPOINT, 500, Boundary.PROMOTE, 3_000));
    // Longer than the Kubernetes activities' 2-minute retry budget, from the write that names the
    // target active: the workflow must roll back, not die with the source fenced (about 3 min).
    add(all, "api-refuses-status-writes-past-retry-budget",
        new ApiRefusal(Writes.STATUS, 503, Boundary.RECORD_TARGET, 150_000));
    add(all, "target-refuses-connections-promoting", new TargetRefuses(false, 1_500));
    add(all, "target-blackholes-connections-promoting", new TargetRefuses(true, 1_500));
    // Longer than the promotion's ~30 s retry budget: the workflow must fence the target again and
    // hand the writes back to the source, not stop with no writable primary (full suite only).
    add(all, "target-refuses-connections-past-promote-budget", new TargetRefuses(false, 40_000));
    // One group the watcher cannot read must not blind it to the others: created before the
    // annotation (the annotation must still be seen), and as the failover names its target active
    // (the watcher's view must follow). Named cases only: the random draw keeps its seeds' meaning.
    add(all, "malformed-group", new Fault.MalformedGroup(null));
    add(all, "malformed-group-mid-failover", new Fault.MalformedGroup(Boundary.RECORD_TARGET));
    // A sidecar whose whole JVM is frozen keeps no promise: the kubelet's liveness probe restarts
    // it, and the new one must not fence the site the failover made active (the target's), nor
    // leave the fenced source writable. These cases alone start sidecars (two JVMs' worth of
    // start-up), so every other case keeps its time. Named cases only, as above.
    add(all, "frozen-target-sidecar", new Fault.FrozenSidecar(Fault.Side.TARGET, null));
    add(all, "frozen-source-sidecar", new Fault.FrozenSidecar(Fault.Side.SOURCE, Boundary.FENCE));
    // A whole region cut off the network, on a stack of regions of its own (RegionHarness). Named
    // cases only, as above.
    for (RegionDrill drill : RegionDrill.values()) {
      add(all, drill.caseName(), new Fault.RegionOutage(drill));
    }
    return all;
  }

  /** The short list CI runs: one of each kind of fault, the cheap ones. */
  public static List<String> ciCases() {
    return List.of("worker-kill-after-fence", "worker-kill-before-lag-wait", "watcher-kill-mid-failover",
        "source-sigstop-mid-drain", "source-sigstop-through-promotion", "replication-refused-lag-wait",
        "api-refuses-status-writes",
        "api-refuses-dnsendpoint-writes", "target-refuses-connections-promoting");
  }

  /** A case drawn from the seed alone: the kind of fault, its timing and what it hits. */
  public static FaultPlan random(long seed) {
    Random r = new Random(seed);
    // The drain runs only when the source had sessions at the fence; every other boundary is
    // reached in every failover, so a drawn fault always fires.
    Boundary[] boundaries = java.util.Arrays.stream(Boundary.values()).filter(b -> b != Boundary.DRAIN)
        .toArray(Boundary[]::new);
    Fault fault = switch (r.nextInt(7)) {
      case 0 -> new WorkerKill(boundaries[r.nextInt(boundaries.length)], r.nextBoolean() ? When.BEFORE : When.AFTER,
          r.nextInt(2_000));
      case 1 -> new WatcherKill(r.nextInt(1_500), 200 + r.nextInt(2_000));
      case 2 -> new SourceKill9(pick(r, Boundary.UNLABEL_SOURCE, Boundary.LAG_WAIT));
      case 3 -> new SourceStop(pick(r, Boundary.UNLABEL_SOURCE, Boundary.LAG_WAIT),
          500 + r.nextInt(6_000));
      case 4 -> new ReplicationCut(r.nextBoolean(), 500 + r.nextInt(8_000), 2 + r.nextInt(9));
      case 5 -> new ApiRefusal(r.nextBoolean() ? Writes.STATUS : Writes.DNSENDPOINT, r.nextBoolean() ? 503 : 500,
          pick(r, Boundary.FENCE, Boundary.LAG_WAIT, Boundary.RECORD_TARGET, Boundary.PROMOTE, Boundary.DNS,
              Boundary.RECORD_RESUMED),
          500 + r.nextInt(8_000));
      default -> new TargetRefuses(r.nextBoolean(), 300 + r.nextInt(4_000));
    };
    return new FaultPlan("seed-" + seed, fault, seed);
  }

  /** Seeds for a randomised run: drawn from one master seed, so the whole run replays too. */
  public static List<Long> seeds(long master, int count) {
    Random r = new Random(master);
    List<Long> seeds = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      seeds.add(Math.abs(r.nextLong() % 1_000_000_000L));
    }
    return seeds;
  }

  private static Boundary pick(Random r, Boundary... options) {
    return options[r.nextInt(options.length)];
  }

  private static void add(Map<String, FaultPlan> all, String name, Fault fault) {
    all.put(name, new FaultPlan(name, fault, null));
  }
}
