package io.shipstream.failover.dev;

import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A scenario's timeline: every line carries the milliseconds since the scenario's first action,
 * and the status phases are printed as the resource reaches them, so what a reader sees is what
 * {@code kubectl get -w} would have shown.
 */
final class Timeline {
  private final PrintStream out;
  private final long start = System.nanoTime();
  private String lastPlanned;
  private String lastEmergency;

  Timeline(PrintStream out) {
    this.out = out;
  }

  long elapsedMs() {
    return (System.nanoTime() - start) / 1_000_000;
  }

  long nanosAtStart() {
    return start;
  }

  void print(String format, Object... args) {
    out.printf("%9s  %s%n", "+" + elapsedMs() + " ms", String.format(format, args));
  }

  /**
   * Polls status.plannedFailover of the run started at or after {@code startedAfter}, printing
   * each phase as it is entered, until the condition holds; throws after the timeout.
   */
  PlannedFailoverStatus awaitPlanned(FailoverStack stack, String startedAfter, Predicate<PlannedFailoverStatus> until,
      Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      PlannedFailoverStatus s = stack.api().plannedStatus().orElse(null);
      if (s != null && s.phase() != null && s.startTime() != null && s.startTime().compareTo(startedAfter) >= 0) {
        if (!s.phase().equals(lastPlanned)) {
          lastPlanned = s.phase();
          print("plannedFailover.phase %s%s", s.phase(), s.reason() == null ? "" : " (" + s.reason() + ")");
        }
        if (until.test(s)) {
          return s;
        }
      }
      Playground.sleep(5);
    }
    throw new IllegalStateException("status.plannedFailover did not get there within " + timeout);
  }

  /** Waits for the planned failover started at or after {@code startedAfter} to end. */
  PlannedFailoverStatus awaitPlannedEnd(FailoverStack stack, String startedAfter, Duration timeout) {
    return awaitPlanned(stack, startedAfter, Timeline::ended, timeout);
  }

  /** Prints status.emergencyFailover's phase when it changes; returns it. */
  Optional<EmergencyFailoverStatus> pollEmergency(FailoverStack stack) {
    MysqlFailoverGroupStatus status = stack.api().resource().getStatus();
    EmergencyFailoverStatus e = status == null ? null : status.emergencyFailover();
    if (e != null && e.phase() != null && !e.phase().equals(lastEmergency)) {
      lastEmergency = e.phase();
      print("emergencyFailover.phase %s%s (failed site %s, target %s)", e.phase(),
          e.reason() == null ? "" : " (" + e.reason() + ")", e.failedSite(), e.target());
    }
    return Optional.ofNullable(e);
  }

  static boolean ended(PlannedFailoverStatus s) {
    return "Succeeded".equals(s.phase()) || "Failed".equals(s.phase());
  }

  static String now() {
    return Instant.now().toString();
  }
}
