package io.shipstream.failover.dev;

import io.fabric8.kubernetes.api.model.Event;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * A scenario's timeline: every line carries the milliseconds since the scenario's first action,
 * and the status phases are printed as the resource reaches them, so what a reader sees is what
 * {@code kubectl get -w} would have shown.
 */
final class Timeline {
  /** How much of an Event's message is printed: the rest is in {@code kubectl get events}. */
  private static final int EVENT_CHARS = 300;
  /** Events are listed at most this often, however fast the status is polled. */
  private static final Duration EVENT_POLL = Duration.ofMillis(100);
  private final PrintStream out;
  private final long start = System.nanoTime();
  private String lastPlanned;
  private String lastEmergency;
  /** The count each Event (by name) had when it was last printed; null until {@link #followEvents}. */
  private Map<String, Integer> eventsSeen;
  private long eventsPolledAt;

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
   * each phase as it is entered (and the new Events, once {@link #followEvents} was called),
   * until the condition holds; throws after the timeout.
   */
  PlannedFailoverStatus awaitPlanned(FailoverStack stack, String startedAfter, Predicate<PlannedFailoverStatus> until,
      Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      printNewEvents(stack);
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

  /**
   * From now on {@link #until} prints each Event of the group's namespace as it appears (and again
   * when its count grows), as {@code kubectl get events -w} would; the ones already there are not.
   */
  void followEvents(FailoverStack stack) {
    eventsSeen = new HashMap<>();
    stack.api().events().forEach(e -> eventsSeen.put(e.getMetadata().getName(), count(e)));
  }

  /**
   * Asks {@code condition} every 20 ms until it holds or the timeout passes, printing the
   * emergency failover's phases and, once {@link #followEvents} was called, the new Events;
   * whether it held.
   */
  boolean until(FailoverStack stack, BooleanSupplier condition, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      pollEmergency(stack);
      printNewEvents(stack);
      if (condition.getAsBoolean()) {
        return true;
      }
      if (System.nanoTime() >= deadline) {
        return false;
      }
      Playground.sleep(20);
    }
  }

  private void printNewEvents(FailoverStack stack) {
    if (eventsSeen == null || System.nanoTime() - eventsPolledAt < EVENT_POLL.toNanos()) {
      return;
    }
    eventsPolledAt = System.nanoTime();
    for (Event e : stack.api().events()) {
      int count = count(e);
      Integer seen = eventsSeen.put(e.getMetadata().getName(), count);
      if (seen == null || seen < count) {
        String message = Objects.requireNonNullElse(e.getMessage(), "");
        print("Event %s %s%s: %s", e.getType(), e.getReason(), count > 1 ? " (x" + count + ")" : "",
            message.length() > EVENT_CHARS ? message.substring(0, EVENT_CHARS) + " [...]" : message);
      }
    }
  }

  private static int count(Event e) {
    return Objects.requireNonNullElse(e.getCount(), 1);
  }
}
