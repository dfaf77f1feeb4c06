package io.shipstream.failover.dev;

import io.shipstream.failover.dev.Playground.Verdict;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.WriteLoad;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;

/** The playground's planned-failover scenarios; {@code PlaygroundScenariosIT} runs them too. */
final class Scenarios {
  private Scenarios() {}

  /** iad → pdx under a steady write load: Succeeded, nothing lost, the window printed. */
  static Verdict plannedSwitchover(FailoverStack stack, PrintStream out) {
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrl)) {
      load.awaitAcknowledged(100, Duration.ofSeconds(10));
      out.printf("writer: %d rows acknowledged through mysql-orders-primary (-> %s)%n",
          load.acknowledgedCount(), stack.api().routedSite().orElse("?"));
      PlannedFailoverStatus s = Playground.watch(stack, new Timeline(out), "pdx", Duration.ofSeconds(60));
      int after = load.acknowledgedCount();
      load.awaitAcknowledged(after + 100, Duration.ofSeconds(10));
      load.stop();
      Playground.printStatus(out, s);
      long missing = Playground.missing(stack, load, "pdx");
      Duration window = load.writeUnavailability();
      out.printf("writer: %d rows acknowledged, %d failed attempts, write-unavailability window %d ms%n",
          load.acknowledgedCount(), load.errors(), window.toMillis());
      out.printf("acknowledged rows missing on the new primary pdx: %d%n", missing);
      if (!"Succeeded".equals(s.phase())) {
        return new Verdict(false, "phase " + s.phase() + ": " + s.message());
      }
      if (missing != 0 || s.transactionsLost() == null || s.transactionsLost() != 0) {
        return new Verdict(false, missing + " acknowledged rows missing, transactionsLost " + s.transactionsLost());
      }
      if (!stack.server("iad").isReadOnly() || stack.server("pdx").isReadOnly()) {
        return new Verdict(false, "read-only flags wrong after the switchover");
      }
      return new Verdict(true, String.format("pdx promoted in %.3f s, writes stopped for %d ms, 0 rows lost",
          s.durationSeconds(), window.toMillis()));
    }
  }

  /** A target that applies everything 60 s late and a 2 s maxLagWait: rolled back, source writable. */
  static Verdict plannedLagTimeoutRollback(FailoverStack stack, PrintStream out) {
    stack.server("pdx").delayReplication(60);
    out.println("pdx now applies every transaction 60 s late (a replication delay of 60 s)");
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrl)) {
      load.awaitAcknowledged(100, Duration.ofSeconds(10));
      PlannedFailoverStatus s = Playground.watch(stack, new Timeline(out), "pdx:maxLagWait=2s",
          Duration.ofSeconds(60));
      int after = load.acknowledgedCount();
      load.awaitAcknowledged(after + 100, Duration.ofSeconds(10));
      load.stop();
      Playground.printStatus(out, s);
      long missing = Playground.missing(stack, load, "iad");
      out.printf("writer: write-unavailability window %d ms; acknowledged rows missing on iad: %d%n",
          load.writeUnavailability().toMillis(), missing);
      boolean ok = "Failed".equals(s.phase()) && "LagTimeout".equals(s.reason()) && !stack.server("iad").isReadOnly()
          && stack.server("pdx").isReadOnly() && "iad".equals(stack.api().resource().getStatus().activeSite())
          && missing == 0 && new HashSet<>(stack.api().routedSite().stream().toList()).contains("iad");
      return new Verdict(ok, ok ? "LagTimeout rolled back: iad writable and routed again, pdx untouched, 0 rows lost"
          : "expected Failed/LagTimeout with iad writable, got " + s.phase() + "/" + s.reason());
    }
  }

  /**
   * A failover iad -> pdx starts the 5 minute cooldown; with onCooldown=defer a request to go back
   * waits as Deferred with its retryAfter instead of being rejected, and the cancel signal (what
   * {@code temporal workflow signal --name cancel} sends) ends it as Failed/Cancelled. Nothing is
   * fenced: the application's writes on pdx never fail while the request waits or is cancelled.
   */
  static Verdict plannedDeferredThenCancelled(FailoverStack stack, PrintStream out) {
    stack.api().editSpec(spec -> GroupSpecs.withPlannedFailover(spec,
        new MysqlFailoverGroupSpec.PlannedFailoverSpec(null, null, "defer")));
    out.println("spec.plannedFailover.onCooldown=defer, spec.failoverCooldown 5m (the default)");
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrl)) {
      load.awaitAcknowledged(100, Duration.ofSeconds(10));
      Timeline timeline = new Timeline(out);
      PlannedFailoverStatus first = Playground.watch(stack, timeline, "pdx", Duration.ofSeconds(60));
      if (!"Succeeded".equals(first.phase())) {
        return new Verdict(false, "the first failover to pdx ended " + first.phase() + ": " + first.message());
      }
      awaitAnnotationCleared(stack);
      load.awaitAcknowledged(load.acknowledgedCount() + 50, Duration.ofSeconds(10));
      long errorsBefore = load.errors();
      String before = Playground.annotate(stack, timeline, "iad");
      PlannedFailoverStatus deferred = timeline.awaitPlanned(stack, before,
          p -> "Deferred".equals(p.phase()) || Timeline.ended(p), Duration.ofSeconds(30));
      if (!"Deferred".equals(deferred.phase())) {
        return new Verdict(false, "expected Deferred, got " + deferred.phase() + "/" + deferred.reason());
      }
      timeline.print("status.plannedFailover.retryAfter %s (the cooldown's end)", deferred.retryAfter());
      // Two seconds of waiting show that nothing moves while deferred: writes keep landing on pdx.
      Playground.sleep(2_000);
      timeline.print("temporal workflow signal --workflow-id %s --name cancel --input '\"maintenance postponed\"'",
          stack.api().ref().workflowId());
      stack.controlPlane().client().newUntypedWorkflowStub(stack.api().ref().workflowId())
          .signal("cancel", "maintenance postponed");
      PlannedFailoverStatus s = timeline.awaitPlannedEnd(stack, before, Duration.ofSeconds(30));
      awaitAnnotationCleared(stack);
      load.awaitAcknowledged(load.acknowledgedCount() + 50, Duration.ofSeconds(10));
      load.stop();
      Playground.printStatus(out, s);
      long missing = Playground.missing(stack, load, "pdx");
      long failedWrites = load.errors() - errorsBefore;
      out.printf("writer: %d failed writes while deferred and after the cancel; acknowledged rows missing on pdx: %d%n",
          failedWrites, missing);
      boolean ok = "Failed".equals(s.phase()) && "Cancelled".equals(s.reason()) && failedWrites == 0 && missing == 0
          && !stack.server("pdx").isReadOnly() && stack.server("iad").isReadOnly()
          && "pdx".equals(stack.api().resource().getStatus().activeSite())
          && stack.api().routedSite().orElse("").equals("pdx")
          && stack.api().annotation().isEmpty();
      return new Verdict(ok, ok ? "Deferred until " + deferred.retryAfter()
          + ", then Failed/Cancelled by the signal; pdx never fenced (0 failed writes), 0 rows lost"
          : "expected Failed/Cancelled with pdx untouched, got " + s.phase() + "/" + s.reason() + ", "
              + failedWrites + " failed writes, " + missing + " missing");
    }
  }

  /**
   * A scheduled switchover ({@code planned-failover=pdx:at=<time>}): one an hour ahead waits as
   * Scheduled and is withdrawn ({@code kubectl failover cancel orders}), ending Cancelled with
   * nothing fenced; one five seconds ahead waits as Scheduled, then switches over at its time
   * under write load with nothing lost.
   */
  static Verdict scheduledSwitchover(FailoverStack stack, PrintStream out) {
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrl)) {
      load.awaitAcknowledged(100, Duration.ofSeconds(10));
      Timeline timeline = new Timeline(out);
      Instant later = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS);
      String before = Playground.annotate(stack, timeline, "pdx:at=" + later);
      PlannedFailoverStatus waiting = timeline.awaitPlanned(stack, before,
          p -> "Scheduled".equals(p.phase()) || Timeline.ended(p), Duration.ofSeconds(30));
      if (!"Scheduled".equals(waiting.phase())) {
        return new Verdict(false, "expected Scheduled, got " + waiting.phase() + "/" + waiting.reason());
      }
      timeline.print("status.plannedFailover.scheduledAt %s", waiting.scheduledAt());
      timeline
          .print("kubectl failover cancel orders   (kubectl annotate ... bloodraven.shipstream.io/planned-failover-)");
      stack.api().removeAnnotation();
      PlannedFailoverStatus cancelled = timeline.awaitPlannedEnd(stack, before, Duration.ofSeconds(30));
      timeline.print("%s/%s: %s; iad read-only: %s", cancelled.phase(), cancelled.reason(), cancelled.message(),
          stack.server("iad").isReadOnly());
      if (!"Cancelled".equals(cancelled.reason()) || stack.server("iad").isReadOnly()) {
        return new Verdict(false, "the withdrawn request ended " + cancelled.phase() + "/" + cancelled.reason());
      }

      Instant soon = Instant.now().plus(Duration.ofSeconds(5)).truncatedTo(ChronoUnit.SECONDS);
      String again = Playground.annotate(stack, timeline, "pdx:at=" + soon);
      PlannedFailoverStatus s = timeline.awaitPlannedEnd(stack, again, Duration.ofSeconds(60));
      load.awaitAcknowledged(load.acknowledgedCount() + 100, Duration.ofSeconds(10));
      load.stop();
      Playground.printStatus(out, s);
      String promotedAt = stack.api().resource().getStatus().lastFailover();
      long missing = Playground.missing(stack, load, "pdx");
      out.printf("scheduled at %s, promoted at %s; acknowledged rows missing on pdx: %d%n", soon, promotedAt, missing);
      boolean ok = "Succeeded".equals(s.phase()) && soon.toString().equals(s.scheduledAt()) && promotedAt != null
          && !Instant.parse(promotedAt).isBefore(soon) && missing == 0 && !stack.server("pdx").isReadOnly();
      return new Verdict(ok, ok ? "withdrawn while Scheduled: Cancelled, nothing fenced; scheduled at " + soon
          + ": promoted at " + promotedAt + ", 0 rows lost"
          : "expected Succeeded at " + soon + ", got " + s.phase() + "/" + s.reason() + " promoted at " + promotedAt
              + ", " + missing + " missing");
    }
  }

  static void awaitAnnotationCleared(FailoverStack stack) {
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (stack.api().annotation().isPresent() && System.nanoTime() < until) {
      Playground.sleep(10);
    }
  }
}
