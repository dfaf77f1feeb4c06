package io.shipstream.failover.dev;

import io.shipstream.failover.dev.Playground.Verdict;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.WriteLoad;
import java.io.PrintStream;
import java.time.Duration;
import java.util.HashSet;

/** The playground's scenarios; each is also run by the project's tests. */
final class Scenarios {
  private Scenarios() {}

  /** iad → pdx under a steady write load: Succeeded, nothing lost, the window printed. */
  static Verdict plannedSwitchover(FailoverStack stack, PrintStream out) {
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrl)) {
      load.awaitAcknowledged(100, Duration.ofSeconds(10));
      out.printf("writer: %d rows acknowledged through mysql-orders-primary (-> %s)%n",
          load.acknowledgedCount(), stack.routedSite().orElse("?"));
      PlannedFailoverStatus s = Playground.watch(stack, out, "pdx", Duration.ofSeconds(60));
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
    stack.server("pdx").execute("STOP SLAVE", "CHANGE MASTER TO MASTER_DELAY=60", "START SLAVE");
    out.println("pdx now applies every transaction 60 s late (MASTER_DELAY=60)");
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrl)) {
      load.awaitAcknowledged(100, Duration.ofSeconds(10));
      PlannedFailoverStatus s = Playground.watch(stack, out, "pdx:maxLagWait=2s", Duration.ofSeconds(60));
      int after = load.acknowledgedCount();
      load.awaitAcknowledged(after + 100, Duration.ofSeconds(10));
      load.stop();
      Playground.printStatus(out, s);
      long missing = Playground.missing(stack, load, "iad");
      out.printf("writer: write-unavailability window %d ms; acknowledged rows missing on iad: %d%n",
          load.writeUnavailability().toMillis(), missing);
      boolean ok = "Failed".equals(s.phase()) && "LagTimeout".equals(s.reason()) && !stack.server("iad").isReadOnly()
          && stack.server("pdx").isReadOnly() && "iad".equals(stack.resource().getStatus().activeSite())
          && missing == 0 && new HashSet<>(stack.routedSite().stream().toList()).contains("iad");
      return new Verdict(ok, ok ? "LagTimeout rolled back: iad writable and routed again, pdx untouched, 0 rows lost"
          : "expected Failed/LagTimeout with iad writable, got " + s.phase() + "/" + s.reason());
    }
  }
}
