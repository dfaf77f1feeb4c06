package io.shipstream.failover.dev;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waiting for what a stack shows, for the end-to-end tests: one home for the loop and its diagnostics. */
final class Await {
  private Await() {}

  /**
   * Asks {@code condition} every 50 ms until it holds; a question that throws (a server still
   * starting, or not answering) is asked again. Fails after {@code timeout} with the group's
   * status (or that it is gone) and Events, which usually say why.
   */
  static void until(FailoverStack stack, BooleanSupplier condition, Duration timeout, String what) {
    long until = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < until) {
      try {
        if (condition.getAsBoolean()) {
          return;
        }
      } catch (RuntimeException e) {
        // Not answering yet: ask again.
      }
      Playground.sleep(50);
    }
    // The group may be gone (a test that deletes it): say so rather than fail on its status.
    var group = stack.api().resource();
    throw new AssertionError("no " + what + " within " + timeout + "; " + (group == null ? "group: gone"
        : "status: " + group.getStatus()) + "; events: " + stack.api().eventReasons());
  }
}
