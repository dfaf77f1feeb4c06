package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import io.shipstream.failover.testsupport.TcpProxy;
import io.shipstream.failover.testsupport.WriteLoad;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Holistic detection on real servers (mysqld 9.7 and mariadbd; every test once per flavor) with a
 * sidecar per site, the default monitor knobs (2 s polls, failureThreshold 3, minSourceSilence 3 s)
 * and a writer through the primary Service: when the watcher's poll of the primary fails, the
 * replicas are asked how they see it (model PrimaryConfirmation). A dead primary is failed over
 * from after one confirmation; a primary the watcher alone cannot reach is not failed over from at
 * all. Outcomes are asserted; timings are printed, never asserted.
 */
class HolisticDetectionIT extends StackPerTest {
  /** The default monitor knobs, no cooldown. */
  private static FailoverStack.Options defaults() {
    return new FailoverStack.Options(List.of("iad", "pdx", "dr"), List.of("dr"), "0s", null, "2s", 3, true);
  }

  /**
   * A freeze shorter than the 30 s, to keep the run short: long enough for the replicas'
   * silence (3 s) and the failover's start, which happen in its first 10 s.
   */
  private static final Duration FREEZE = Duration.ofSeconds(15);
  /**
   * The black hole lasts 60 s; 10 s here is five failed polls (2 s apart), well past
   * failureThreshold (3) and the replicas' minSourceSilence (3 s).
   */
  private static final Duration BLACK_HOLE = Duration.ofSeconds(10);

  @FlavorTest
  void aKilledPrimaryIsFailedOverFromAfterOneConfirmationByItsReplicas(Flavor flavor) {
    start(flavor, defaults());
    stack.startSidecars(SidecarMesh.Knobs.playground());
    WritableSampler sampler = WritableSampler.started(stack, new Timeline(System.out));
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere)) {
      load.awaitAcknowledged(100, Duration.ofSeconds(30));
      stack.awaitReplicatedFrom("iad");
      int ackedAtKill = load.acknowledgedCount();
      long killedAt = System.nanoTime();
      stack.server("iad").kill9();

      Await.until(stack, () -> !"iad".equals(activeSite()), Duration.ofSeconds(60), "another active site");
      load.awaitAcknowledged(ackedAtKill + 50, Duration.ofSeconds(60));
      System.out.printf("%s: kill -9 to first acknowledged write on %s: %d ms (default knobs, replicas confirm)%n",
          flavor, activeSite(), writesBackAfter(load, killedAt).toMillis());
      Await.until(stack, () -> "Succeeded".equals(stack.api().emergencyPhase()), Duration.ofSeconds(60),
          "the emergency failover to succeed");
    } finally {
      sampler.close();
    }
    assertThat(activeSite()).isEqualTo("pdx");
    List<String> started = stack.api().eventMessages("EmergencyFailoverStarted");
    System.out.printf("%s: EmergencyFailoverStarted: %s%n", flavor, started);
    assertThat(started).singleElement().asString().as("decided by the replicas, not the debounce")
        .startsWith("replicas confirmed: ").contains("'pdx' lost it");
    assertThat(sampler.most()).as("writable servers at any 50 ms sample").isLessThanOrEqualTo(1);
  }

  @FlavorTest
  void aCutLinkIsNeverTakenForADeadPrimary(Flavor flavor) {
    start(flavor, defaults());
    stack.startSidecars(SidecarMesh.Knobs.playground());
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    TcpProxy watcherToIad = stack.proxyControlPlaneMysql("iad");
    TcpProxy pdxToIad = TcpProxy.start(iad.host(), iad.port());
    WritableSampler sampler = WritableSampler.started(stack, new Timeline(System.out));
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere)) {
      pdx.startReplicationFrom(pdxToIad.host(), pdxToIad.port());
      load.awaitAcknowledged(100, Duration.ofSeconds(30));
      pdx.awaitCaughtUpWith(iad, Duration.ofSeconds(30));

      // (d) pdx's own link to iad is cut while the watcher still reaches iad: nothing to confirm.
      // 6 s: twice minSourceSilence, past three failed polls' worth of debounce.
      pdxToIad.blackhole();
      Playground.sleep(6_000);
      assertThat(stack.api().eventReasons()).doesNotContain("EmergencyFailoverStarted", "FailoverStarted");
      pdxToIad.heal();
      pdx.startReplicationFrom(iad.host(), iad.port());
      pdx.awaitCaughtUpWith(iad, Duration.ofSeconds(30));

      // (b) the watcher's link to iad is black-holed while replication and the writer go on.
      long errorsBefore = load.errors();
      int acked = load.acknowledgedCount();
      long cutAt = System.nanoTime();
      watcherToIad.blackhole();
      Await.until(stack, () -> degradedReason().equals(Optional.of("PrimaryUnreachableFromWatcher")),
          Duration.ofSeconds(30), "the Degraded condition to name the cut-off watcher");
      System.out.printf("%s: black hole to Degraded/PrimaryUnreachableFromWatcher: %d ms%n", flavor,
          Duration.ofNanos(System.nanoTime() - cutAt).toMillis());
      Playground.sleep(Math.max(0, BLACK_HOLE.toMillis() - Duration.ofNanos(System.nanoTime() - cutAt).toMillis()));
      assertThat(degradedReason()).as("still cut off at the end of the black hole")
          .contains("PrimaryUnreachableFromWatcher");
      long healedAt = System.nanoTime();
      watcherToIad.heal();
      Await.until(stack, () -> !degradedReason().equals(Optional.of("PrimaryUnreachableFromWatcher")),
          Duration.ofSeconds(30), "the condition to clear after the heal");
      System.out.printf("%s: heal to condition cleared: %d ms%n", flavor,
          Duration.ofNanos(System.nanoTime() - healedAt).toMillis());
      load.awaitAcknowledged(load.acknowledgedCount() + 20, Duration.ofSeconds(30));
      System.out.printf("%s: %d writes acknowledged across the black hole, %d failed%n", flavor,
          load.acknowledgedCount() - acked, load.errors() - errorsBefore);
      assertThat(load.errors() - errorsBefore).as("the writer never failed: " + load.lastError()).isZero();
    } finally {
      sampler.close();
      pdxToIad.close();
    }
    List<String> reasons = stack.api().eventReasons();
    assertThat(reasons).as("0 failovers, 0 fences").doesNotContain("EmergencyFailoverStarted", "FailoverStarted",
        "NonPromotableSiteFenced", "SplitBrainDetected", "FailoverBlocked");
    assertThat(reasons).contains("PrimaryUnreachableFromWatcher", "PrimaryReachableFromWatcher");
    assertThat(reasons.stream().filter("PrimaryUnreachableFromWatcher"::equals).count()).as("alerted once")
        .isEqualTo(1);
    System.out.printf("%s: %s%n", flavor, stack.api().eventMessages("PrimaryUnreachableFromWatcher"));
    assertThat(activeSite()).isEqualTo("iad");
    assertThat(iad.isReadOnly()).as("iad never fenced").isFalse();
    assertThat(sampler.most()).isLessThanOrEqualTo(1);
  }

  @FlavorTest
  void aFrozenPrimaryIsFailedOverFromOnceAndFencedWhenItResumes(Flavor flavor) {
    start(flavor, defaults());
    stack.startSidecars(SidecarMesh.Knobs.playground());
    DatabaseServer iad = stack.server("iad");
    WritableSampler sampler = WritableSampler.started(stack, new Timeline(System.out));
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere)) {
      load.awaitAcknowledged(100, Duration.ofSeconds(30));
      stack.awaitReplicatedFrom("iad");
      long frozenAt = System.nanoTime();
      iad.pause();
      // Frozen until FREEZE is over or, sooner, until the failover has succeeded and iad's sidecar
      // has ended the frozen process: nothing that happens after both changes the outcome. Never
      // before the failover has looked at iad before its fence, though (a loaded machine can take
      // longer than FREEZE to get there): a primary that answers then is not dead and is not failed
      // over (OldPrimaryRecheck), which is another test's case.
      long until = System.nanoTime() + FREEZE.toNanos();
      long cap = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      while ((System.nanoTime() < until && (iad.isRunning() || !"Succeeded".equals(stack.api().emergencyPhase())))
          || (!pastTheLookBeforeTheFence() && System.nanoTime() < cap)) {
        Playground.sleep(100);
      }
      boolean running = iad.isRunning();
      if (running) {
        iad.resume();
      }
      Await.until(stack, () -> "Succeeded".equals(stack.api().emergencyPhase()), Duration.ofSeconds(90),
          "the emergency failover to succeed");
      load.awaitAcknowledged(load.acknowledgedCount() + 50, Duration.ofSeconds(30));
      System.out.printf("%s: SIGSTOP to first acknowledged write on %s: %d ms%n", flavor, activeSite(),
          writesBackAfter(load, frozenAt).toMillis());
      Playground.sleep(3_000);
      System.out.printf("%s: iad %s at the end of the freeze; EmergencyFailoverStarted: %s%n", flavor,
          running ? "still running" : "stopped by its sidecar", stack.api().eventMessages("EmergencyFailoverStarted"));
      assertThat(!iad.isRunning() || iad.isReadOnly()).as("the old primary takes no writes on its return").isTrue();
    } finally {
      sampler.close();
    }
    assertThat(stack.api().eventReasons().stream().filter("EmergencyFailoverStarted"::equals).count())
        .as("exactly one failover").isEqualTo(1);
    assertThat(activeSite()).isEqualTo("pdx");
    assertThat(sampler.most()).as("never two writable servers in 50 ms samples").isLessThanOrEqualTo(1);
  }

  /**
   * From {@code since} to the end of the longest stretch without an acknowledged write after it:
   * the first write the new primary acknowledged (a write in flight at a SIGSTOP may still be
   * acknowledged by the old primary just after it).
   */
  private static Duration writesBackAfter(WriteLoad load, long since) {
    long previous = since;
    long longestEnd = since;
    long longest = -1;
    for (WriteLoad.Ack a : load.acks()) {
      if (a.nanos() <= since) {
        continue;
      }
      if (a.nanos() - previous > longest) {
        longest = a.nanos() - previous;
        longestEnd = a.nanos();
      }
      previous = a.nanos();
    }
    return Duration.ofNanos(longestEnd - since);
  }

  private String activeSite() {
    MysqlFailoverGroupStatus status = stack.api().resource().getStatus();
    return status == null ? null : status.activeSite();
  }

  /** Whether the emergency failover's status shows it past its look at the old primary before the fence. */
  private boolean pastTheLookBeforeTheFence() {
    return java.util.List.of("Fencing", "Promoting", "Resuming", "Succeeded", "Failed")
        .contains(stack.api().emergencyPhase());
  }

  /** The reason of the Degraded condition while it is True. */
  private Optional<String> degradedReason() {
    MysqlFailoverGroupStatus status = stack.api().resource().getStatus();
    if (status == null || status.conditions() == null) {
      return Optional.empty();
    }
    return status.conditions().stream().filter(c -> "Degraded".equals(c.getType()) && "True".equals(c.getStatus()))
        .map(Condition::getReason).findFirst();
  }
}
