package io.shipstream.failover.dev;

import io.fabric8.kubernetes.api.model.Event;
import io.shipstream.failover.dev.Playground.Verdict;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SiteStatus;
import io.shipstream.failover.sidecar.FencingDecision.Action;
import io.shipstream.failover.sidecar.SidecarStatus;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.WriteLoad;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The playground's scenarios about what must never become writable: a primary whose sidecar is
 * cut off the network fences itself, and a replica holding an errant transaction is never
 * promoted.
 */
final class FencingScenarios {
  private FencingScenarios() {}

  /**
   * iad's sidecar loses the watcher and both peers (every link black-holed, both ways) while the
   * application writes to iad. After leaseTimeout the sidecar makes iad read-only (rule 2). What
   * follows is what the code does, and what an operator should expect:
   *
   * <ul>
   *   <li>Nothing is promoted: the topology monitor still reaches iad's MySQL, and a primary that
   *       answers read-only is alive and fenced on purpose, never failed over from (matrix row 12b,
   *       NoPrimaryDetected).
   *   <li>Healing the network does not make the sidecar unfence iad: it only ever lifts its own
   *       boot fence (FencingDecision: a read-only MySQL is never touched otherwise). The watcher
   *       does, once the sidecar says the read-only is its own rule-2 fence and its lease holds
   *       again, no failover runs and every other site is a read-only replica holding nothing iad
   *       lacks (model LeaseFenceRelease, a LeaseFenceLifted Event); the sidecar leaves a writable
   *       server of the active site alone, writes resume, and no acknowledged row is missing. The
   *       application sees errors meanwhile, never two writable primaries.
   * </ul>
   */
  static Verdict partitionedPrimarySelfFences(FailoverStack stack, PrintStream out) {
    SidecarMesh sidecars = stack.sidecars().orElseThrow(() -> new IllegalStateException("no sidecars in this stack"));
    Duration lease = sidecars.knobs().leaseTimeout();
    Duration tick = sidecars.knobs().peerCheckInterval();
    // Rule 2 fires on the first tick after the lease ran out; that tick first waits out its
    // requests to the black-holed links (half a tick), and a loaded machine adds some slack.
    Duration bound = lease.plus(tick).plus(tick.dividedBy(2)).plusMillis(500);
    out.printf("sidecars: leaseTimeout %d ms, peerCheckInterval %d ms; iad must be read-only within %d ms%n",
        lease.toMillis(), tick.toMillis(), bound.toMillis());
    DatabaseServer iad = stack.server("iad");
    Timeline timeline = new Timeline(out);
    WritableSampler sampler = WritableSampler.started(stack, timeline);
    try (WriteLoad load = writerWithAHundredRows(stack, timeline)) {
      long cutAt = System.nanoTime();
      sidecars.partition("iad");
      timeline.print("network cut: iad's sidecar <-> watcher, pdx and dr sidecars black-holed (packets dropped)");

      long errorsAtCut = load.errors();
      long fencedAt = 0;
      Action fenceAction = null;
      boolean errorSeen = false;
      long until = cutAt + lease.multipliedBy(5).toNanos();
      // Until the fence is seen on the server and in the sidecar's status, and the writer noticed it
      // (or had a second to).
      while (System.nanoTime() < until && (fencedAt == 0 || fenceAction == null
          || !errorSeen && System.nanoTime() - fencedAt < 1_000_000_000L)) {
        SidecarStatus s = sidecars.status("iad");
        if (fenceAction == null && s.lastFenceAt().isPresent()) {
          fenceAction = s.lastAction();
          timeline.print("iad sidecar: %s (no answer from the watcher or any peer for longer than %d ms)",
              fenceAction, lease.toMillis());
        }
        if (fencedAt == 0 && iad.isReadOnly()) {
          fencedAt = System.nanoTime();
          timeline.print("iad read_only=ON, %d ms after the cut", (fencedAt - cutAt) / 1_000_000);
        }
        if (!errorSeen && load.errors() > errorsAtCut) {
          errorSeen = true;
          timeline.print("writer: first failed write: %s", load.lastError().orElse("?"));
        }
        Playground.sleep(10);
      }
      if (fencedAt == 0) {
        return new Verdict(false, "iad still writable " + lease.multipliedBy(5).toMillis() + " ms after the cut");
      }
      long fenceMs = (fencedAt - cutAt) / 1_000_000;

      // The rest of the group keeps running: nothing is promoted over a primary that answers read-only.
      Playground.sleep(lease.toMillis());
      timeline.print("writer: %d failed writes since the cut, the latest: %s", load.errors() - errorsAtCut,
          load.lastError().orElse("?"));
      timeline.print("status.activeSite %s; %s", stack.api().resource().getStatus().activeSite(),
          lastEvent(stack, "NoPrimaryDetected").map(m -> "NoPrimaryDetected: " + m)
              .orElse("no NoPrimaryDetected Event"));

      int ackedBefore = load.acknowledgedCount();
      sidecars.heal("iad");
      long healedAt = System.nanoTime();
      timeline.print("network healed");
      awaitTrue(() -> sidecars.steady("iad"), Duration.ofSeconds(10));
      timeline.print("iad sidecar hears the watcher and both peers again; its view: %s active (from %s); its own "
          + "fence: %s", sidecars.status("iad").view().map(v -> v.activeSite()).orElse("none"),
          sidecars.status("iad").viewSource(), sidecars.status("iad").ownFence().orElse("none"));
      // The sidecar never lifts a rule-2 fence itself; the watcher does, once nothing else explains it.
      awaitTrue(() -> !iad.isReadOnly(), Duration.ofSeconds(30));
      long liftedAt = System.nanoTime();
      boolean lifted = !iad.isReadOnly();
      timeline.print("iad read_only=%s %d ms after the heal; %s", lifted ? "OFF" : "ON",
          (liftedAt - healedAt) / 1_000_000,
          lastEvent(stack, "LeaseFenceLifted").map(m -> "LeaseFenceLifted: " + m).orElse("no LeaseFenceLifted Event"));
      if (lifted) {
        load.awaitAcknowledged(ackedBefore + 50, Duration.ofSeconds(30));
        timeline.print("writer: writes acknowledged on iad again");
      }
      // Three ticks in which the sidecar could object; it must not, iad is the active site.
      Playground.sleep(tick.multipliedBy(3).toMillis());
      boolean stillWritable = !iad.isReadOnly();
      load.stop();
      sampler.stop();
      long missing = Playground.missing(stack, load, "iad");
      out.printf("writer: %d rows acknowledged, %d failed attempts, write-unavailability window %d ms%n",
          load.acknowledgedCount(), load.errors(), load.writeUnavailability().toMillis());
      out.printf("most writable servers in any 50 ms sample: %d; acknowledged rows missing on iad: %d%n",
          sampler.most(), missing);
      MysqlFailoverGroupStatus status = stack.api().resource().getStatus();
      if (fenceMs > bound.toMillis()) {
        return new Verdict(false, "iad fenced " + fenceMs + " ms after the cut, more than the " + bound.toMillis()
            + " ms bound");
      }
      if (fenceAction != Action.FENCE_RULE2) {
        return new Verdict(false, "iad was made read-only, but the sidecar's action was " + fenceAction);
      }
      if (sampler.most() > 1) {
        return new Verdict(false, sampler.most() + " servers were writable at once");
      }
      if (!lifted || lastEvent(stack, "LeaseFenceLifted").isEmpty() || !"iad".equals(status.activeSite())
          || status.emergencyFailover() != null) {
        return new Verdict(false, "after the heal: iad writable " + lifted + ", LeaseFenceLifted "
            + lastEvent(stack, "LeaseFenceLifted").isPresent() + ", activeSite " + status.activeSite()
            + ", emergency failover " + status.emergencyFailover());
      }
      if (!stillWritable || missing != 0) {
        return new Verdict(false, "after the lift: iad writable " + stillWritable + ", " + missing
            + " acknowledged rows missing");
      }
      return new Verdict(true, String.format("iad fenced itself %d ms after the cut (lease %d ms, rule 2), "
          + "nothing promoted, the watcher lifted the fence %d ms after the heal, never two writable servers, "
          + "0 acknowledged rows lost", fenceMs, lease.toMillis(), (liftedAt - healedAt) / 1_000_000));
    } finally {
      sampler.stop();
    }
  }

  /**
   * An admin writes to the pdx replica directly (binlogged, under pdx's own server id, in a GTID
   * domain of its own so that iad's replicated writes do not stop pdx's SQL thread under
   * gtid_strict_mode): an errant transaction iad never had. Then iad is killed. Promoting pdx would
   * publish that transaction and make every other server diverge, so the topology monitor must
   * refuse (DivergentCandidates, a FailoverBlocked Event) and nothing may become writable.
   */
  static Verdict errantReplicaNotPromoted(FailoverStack stack, PrintStream out) {
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    Timeline timeline = new Timeline(out);
    WritableSampler sampler = WritableSampler.started(stack, timeline);
    try (WriteLoad load = writerWithAHundredRows(stack, timeline)) {
      String errant = pdx.executeErrant("INSERT INTO " + DatabaseCluster.WRITES_TABLE + " VALUES (-1, NOW(6))");
      timeline.print("admin on pdx (read_only, but the admin is not bound by it): INSERT binlogged as %s "
          + "(server_id %d, pdx's own); pdx's GTID set is now %s", errant, pdx.serverId(), pdx.gtidExecuted());
      // The monitor must have polled pdx's new set before iad goes: it compares against iad's last known one.
      Playground.sleep(1_500);
      pdx.awaitCaughtUpWith(iad, Duration.ofSeconds(30));
      int ackedAtKill = load.acknowledgedCount();
      long errorsAtKill = load.errors();
      iad.kill9();
      timeline.print("kill -9 the server of iad (pid %d) after %d acknowledged rows", iad.pid(), ackedAtKill);
      // A sample taken before the kill may still be counted; from here on, nothing may be writable.
      Playground.sleep(200);
      sampler.resetMost();

      String blocked = null;
      long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      boolean unreachableShown = false;
      while (blocked == null && System.nanoTime() < until) {
        if (!unreachableShown && "UNREACHABLE".equals(siteState(stack, "iad"))) {
          unreachableShown = true;
          timeline.print("status.sites[iad].state UNREACHABLE");
        }
        blocked = lastEvent(stack, "FailoverBlocked").orElse(null);
        Playground.sleep(20);
      }
      if (blocked == null) {
        return new Verdict(false, "no FailoverBlocked Event within 30 s of the kill; activeSite "
            + stack.api().resource().getStatus().activeSite());
      }
      timeline.print("Event FailoverBlocked: %s", blocked);
      // Several more polls: the verdict must stand, not merely come first.
      Playground.sleep(3_000);
      timeline.print("3 s later: status.activeSite %s, emergencyFailover %s",
          stack.api().resource().getStatus().activeSite(),
          stack.api().resource().getStatus().emergencyFailover() == null ? "none" : "started");
      load.stop();
      sampler.stop();
      out.printf("writer: %d failed writes since the kill (%s): iad is gone and nothing replaces it%n",
          load.errors() - errorsAtKill, load.lastError().orElse("no error"));
      MysqlFailoverGroupStatus status = stack.api().resource().getStatus();
      out.println("status.sites:");
      for (SiteStatus s : Objects.requireNonNullElse(status.sites(), List.<SiteStatus>of())) {
        out.printf("  %-4s %-11s replicating=%s gtidExecuted=%s%n", s.name(), s.state(), s.replicating(),
            s.gtidExecuted());
      }
      out.printf("writable servers in any 50 ms sample after the kill: %d%n", sampler.most());
      boolean divergent = blocked.startsWith("DivergentCandidates");
      boolean started = FaultScenarios.eventCount(stack, "EmergencyFailoverStarted") > 0;
      boolean readOnly = pdx.isReadOnly() && stack.server("dr").isReadOnly();
      if (!divergent || started || !"iad".equals(status.activeSite()) || status.emergencyFailover() != null) {
        return new Verdict(false, "expected DivergentCandidates and no failover, got: " + blocked
            + (started ? "; an emergency failover started" : "") + "; activeSite " + status.activeSite());
      }
      if (sampler.most() > 0 || !readOnly) {
        return new Verdict(false, "something became writable after the kill: most " + sampler.most()
            + ", pdx and dr read-only " + readOnly);
      }
      return new Verdict(true, "pdx holds " + errant + ", a transaction iad never had: the monitor "
          + "blocked the failover (DivergentCandidates), nothing became writable, activeSite still iad; "
          + "a human decides (restore iad, or discard pdx's errant write and promote by hand)");
    } finally {
      sampler.stop();
    }
  }

  private static String siteState(FailoverStack stack, String site) {
    MysqlFailoverGroupStatus status = stack.api().resource().getStatus();
    return status == null || status.sites() == null ? null : status.sites().stream()
        .filter(s -> site.equals(s.name())).map(SiteStatus::state).findFirst().orElse(null);
  }

  /** The message of the group's newest Event with this reason. */
  private static Optional<String> lastEvent(FailoverStack stack, String reason) {
    return stack.api().events().stream().filter(e -> reason.equals(e.getReason())).reduce((a, b) -> b)
        .map(Event::getMessage);
  }

  /** A writer through the primary Service (iad), once it has 100 rows acknowledged. */
  private static WriteLoad writerWithAHundredRows(FailoverStack stack, Timeline timeline) {
    WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere);
    try {
      load.awaitAcknowledged(100, Duration.ofSeconds(30));
    } catch (RuntimeException e) {
      load.close();
      throw e;
    }
    timeline.print("writer: %d rows acknowledged through mysql-orders-primary (-> iad)", load.acknowledgedCount());
    return load;
  }

  private static void awaitTrue(java.util.function.BooleanSupplier condition, Duration timeout) {
    long until = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean() && System.nanoTime() < until) {
      Playground.sleep(20);
    }
  }
}
