package io.shipstream.failover.dev.faults;

import io.shipstream.failover.dev.LeaderOutage;
import io.shipstream.failover.dev.RegionStack;
import io.shipstream.failover.dev.RegionStack.DarkRun;
import io.shipstream.failover.dev.WatcherInsideOutage;
import io.shipstream.failover.dev.faults.CaseResult.Check;
import io.shipstream.failover.runtime.AnswerLog;
import io.shipstream.failover.testsupport.Flavor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the region drills on one {@link RegionStack} (started on the first drill, shared by the
 * rest, replaced when a drill left it unusable) and judges each with the suite's invariants: never
 * two writable in the 50 ms samples taken inside each region, every acknowledged write accounted
 * for, the outcome the drill expects, a status that matches the servers.
 */
public final class RegionHarness implements AutoCloseable {
  private final Path work;
  private final Flavor flavor;
  private final RegionStack.Knobs knobs;
  private RegionStack stack;
  private int stacks;
  /** The last drill left spec.semiSync on: the next one starts by turning it off. */
  private boolean semiSyncOn;

  public RegionHarness(Path work, Flavor flavor, RegionStack.Knobs knobs) {
    this.work = work;
    this.flavor = flavor;
    this.knobs = knobs;
  }

  /** Runs one drill and judges it; never throws for a failed drill. */
  public CaseResult run(FaultPlan plan) {
    RegionDrill drill = ((Fault.RegionOutage) plan.fault()).drill();
    long started = System.nanoTime();
    double ready = 0;
    try {
      ready();
      ready = (System.nanoTime() - started) / 1e9;
      long from = System.nanoTime();
      List<Check> checks = new ArrayList<>();
      String outcome = switch (drill) {
        case PRIMARY_DARK -> judge(dark(false, false), false, false, checks);
        case PRIMARY_DARK_SEMI_SYNC -> judge(dark(true, false), true, false, checks);
        case PRIMARY_DARK_WATCHER_INSIDE -> watcherInside(checks);
        case COMES_BACK -> judge(dark(false, true), false, true, checks);
        case LEADER_DARK -> leaderDark(checks);
        case LEADER_AND_PRIMARY_DARK -> leaderAndPrimaryDark(checks);
        case FLAPS -> flaps(checks);
      };
      checks.add(statusMatches());
      return new CaseResult(plan, "yes", outcome, (System.nanoTime() - from) / 1e9, ready, checks);
    } catch (RuntimeException e) {
      closeStack();
      return new CaseResult(plan, "yes", "error: " + e.getMessage(), (System.nanoTime() - started) / 1e9 - ready,
          ready, List.of(new Check("ran", false, e.toString())));
    }
  }

  private DarkRun dark(boolean semiSync, boolean comeBack) {
    if (semiSync) {
      stack.semiSyncRequired(true);
      semiSyncOn = true;
    }
    return stack.primaryRegionDark(comeBack);
  }

  /** The invariants of an outage of the primary's region, added to {@code checks}; returns the outcome. */
  private String judge(DarkRun r, boolean semiSync, boolean comeBack, List<Check> checks) {
    return judge(r, semiSync, comeBack, true, checks);
  }

  /**
   * As above; {@code anchorExpected}: every renewer of the old primary's lease is outside the dark
   * region, so the failover must have read its last renewal.
   */
  private String judge(DarkRun r, boolean semiSync, boolean comeBack, boolean anchorExpected, List<Check> checks) {
    Duration lease = knobs.sidecar().leaseTimeout();
    Duration bound = lease.plus(knobs.sidecar().peerCheckInterval());
    checks.add(new Check("one-writable", r.most() <= 1, r.watchDetail()));
    checks.add(new Check("outcome", r.outcome().startsWith("Succeeded " + r.from() + " -> " + r.to()),
        r.outcome() + "; first write on " + r.to() + " " + ms(r.firstNewWriteMs()) + " after dark"));
    checks.add(new Check("self-fenced", r.fenceMs() >= 0, r.from() + " read-only " + ms(r.fenceMs())
        + " after dark (lease + peer check " + bound.toMillis() + " ms)"));
    if (anchorExpected) {
      // Every renewer outside the dark region answers: the wait counts from the lease's last
      // renewal, about the cut, rather than from the naming that comes detection later.
      checks.add(new Check("wait-from-renewal", r.anchoredMs() > 0, r.anchoredMs() > 0
          ? "the wait for " + r.from() + " counted from its lease's last renewal, " + ms(r.anchoredMs())
              + " before the naming"
          : "the wait counted from the naming: " + r.oldPrimaryWait()));
    }
    checks.add(new Check("inside-writes-end", r.insideAckedAfterFence() == 0, r.insideAckedAfterFence()
        + " writes the in-region writer sent after the fence was acknowledged"));
    if (semiSync) {
      // The fence must not wait behind commits waiting for an acknowledgement that cannot come:
      // past the semi-sync timeout the server falls back and acknowledges them (no-ack-lost counts it).
      long timeout = io.shipstream.failover.model.Durations.parse(knobs.semiSyncTimeout()).toMillis();
      checks.add(new Check("fence-not-held", r.waitingForAck() > 0 && r.fenceMs() >= 0 && r.fenceMs() < timeout,
          r.waitingForAck() + " commits seen waiting for an acknowledgement; read-only " + ms(r.fenceMs())
              + " after dark, before the semi-sync timeout (" + timeout + " ms) let the server acknowledge them"));
    }
    boolean kept = semiSync ? r.lost() == 0 : r.unaccounted() == 0;
    checks.add(new Check("no-ack-lost", kept, r.acknowledged() + " acked, " + r.lost() + " not on " + r.to()
        + (semiSync ? " (semi-sync required: must be 0)" : ", " + r.unaccounted() + " on no server") + "; "
        + r.inDoubt() + " in doubt (only on " + r.from() + ", never acknowledged)"));
    if (comeBack) {
      boolean held = r.returned().startsWith("rejoined") || (r.returned().startsWith("held with divergentGtid")
          && r.returned().contains("RecoveryBlocked Event names"));
      checks.add(new Check("returned", held, r.returned()));
    }
    return r.outcome();
  }

  /**
   * The primary's region goes dark with a watcher replica inside that its sidecar asks: judged as
   * the first drill (the isolated primary must fence itself by lease, so before the promotion),
   * and the sidecar must have reached that replica after the cut, or the drill was only the first
   * one again.
   */
  private String watcherInside(List<Check> checks) {
    WatcherInsideOutage.Run r = new WatcherInsideOutage(stack).primaryRegionDark();
    // The replica inside answers from a cache it cannot confirm: no view that fences the old
    // primary, so no last renewal can be read and the wait counts from the naming.
    String outcome = judge(r.dark(), false, false, false, checks);
    checks.add(new Check("inside-reached", r.answersWhileDark() > 0, "the watcher in " + r.region() + " answered "
        + r.dark().from() + "'s sidecar " + r.answersWhileDark() + " times in the " + ms(r.litMs())
        + " the region was dark (of the last " + AnswerLog.PER_ASKER + " it keeps), the last " + ms(r.lastAnswerMs())
        + " after the cut" + (r.lastNamed() == null ? "" : " naming " + r.lastNamed())));
    return outcome;
  }

  /**
   * The region holding the watcher leader and a worker goes dark, the primary elsewhere: nothing
   * fails over, the switchover requested then succeeds, on the other worker.
   */
  private String leaderDark(List<Check> checks) {
    LeaderOutage.SwitchoverRun r = new LeaderOutage(stack).leaderRegionDark();
    checks.add(new Check("one-writable", r.most() <= 1, r.watchDetail()));
    checks.add(new Check("outcome", r.failoversWhileDark() == 0 && r.outcome().startsWith("Succeeded " + r.from()
        + " -> " + r.to()), r.failoversWhileDark() + " failovers started while dark (active " + r.activeWhileDark()
            + "); switchover " + r.outcome() + " " + ms(r.switchoverMs()) + " after the request"));
    checks.add(new Check("no-ack-lost", r.lost() == 0, r.acknowledged() + " acked, " + r.lost() + " not on " + r.to()
        + ", " + r.unaccounted() + " on no server"));
    takeover(r.takeover(), checks);
    return r.outcome();
  }

  /**
   * The primary's region goes dark holding the watcher leader and a worker: the failover
   * completes; then the region comes back, judged as in {@code region-comes-back}.
   */
  private String leaderAndPrimaryDark(List<Check> checks) {
    LeaderOutage.Takeover[] takeover = new LeaderOutage.Takeover[1];
    // The leading watcher went dark with the primary and answers from a cache it cannot confirm:
    // no last renewal can be read, and the wait counts from the naming.
    String outcome = judge(new LeaderOutage(stack).leaderAndPrimaryRegionDark(takeover), false, true, false, checks);
    takeover(takeover[0], checks);
    return outcome;
  }

  /**
   * The other watcher led after the cut (its time against the bound the Lease sets: duration plus
   * a jittered retry period after the last renewal, never asserted), the cut-off leader had
   * stopped acting by then (never two leaders), and the cut-off worker began no activity after
   * the cut while the other did the failover's.
   */
  private void takeover(LeaderOutage.Takeover t, List<Check> checks) {
    Duration bound = knobs.watcherLease().plus(knobs.watcherRetryPeriod().multipliedBy(12).dividedBy(10));
    checks.add(new Check("takeover", t.takeoverMs() >= 0, "the watcher in " + RegionStack.CONTROL_PLANE_REGION
        + " led " + ms(t.takeoverMs()) + " after " + t.region() + " went dark (Lease + 1.2 retry periods: "
        + bound.toMillis() + " ms)"));
    checks.add(new Check("one-leader", t.stepDownMs() >= 0 && t.stepDownMs() < t.takeoverMs(),
        "the cut-off leader stopped acting " + ms(t.stepDownMs()) + " after the cut (renew deadline "
            + knobs.watcherRenewDeadline().toMillis() + " ms), the other led after " + ms(t.takeoverMs())));
    checks.add(new Check("dark-worker-idle", t.darkWorkerAttempts() == 0 && t.otherWorkerAttempts() > 0,
        "activity attempts begun after the cut: " + t.darkWorkerAttempts() + " by the cut-off worker, "
            + t.otherWorkerAttempts() + " by the other; " + t.stuck().detail()));
  }

  private String flaps(List<Check> checks) {
    List<String> problems = new ArrayList<>();
    String seen = stack.flap(Duration.ofSeconds(2), problems);
    checks.add(new Check("one-writable", problems.stream().noneMatch(p -> p.startsWith("two writable")), seen));
    checks.add(new Check("outcome", problems.stream().noneMatch(p -> p.contains("failover")),
        problems.isEmpty() ? "at most one failover, none for the blip" : String.join("; ", problems)));
    checks.add(new Check("no-ack-lost", problems.stream().noneMatch(p -> p.contains("on no server")), seen));
    return seen;
  }

  /** The activeSite is the one writable server and the one the primary Service routes to. */
  private Check statusMatches() {
    stack.normalise();
    var s = stack.stack();
    String active = s.api().resource().getStatus().activeSite();
    List<String> writable = s.writableSites();
    String routed = s.api().routedSite().orElse("none");
    return new Check("status-matches", writable.equals(List.of(active)) && routed.equals(active),
        "activeSite " + active + ", writable " + writable + ", routed " + routed);
  }

  private static String ms(double ms) {
    return ms < 0 ? "never" : String.format("%.0f ms", ms);
  }

  private void ready() {
    if (stack != null) {
      try {
        stack.normalise();
        if (semiSyncOn) {
          stack.semiSyncRequired(false);
          semiSyncOn = false;
        }
        return;
      } catch (RuntimeException e) {
        closeStack();
      }
    }
    stacks++;
    stack = RegionStack.start(work.resolve("region-" + stacks), flavor, knobs);
    stack.normalise();
  }

  private void closeStack() {
    semiSyncOn = false;
    if (stack != null) {
      stack.close();
      stack = null;
    }
  }

  public int stacksStarted() {
    return stacks;
  }

  @Override
  public void close() {
    closeStack();
  }
}
