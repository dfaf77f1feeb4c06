package io.shipstream.failover.dev;

import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.MariaDbCluster;
import io.shipstream.failover.testsupport.WriteLoad;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs N planned failovers back and forth on the embedded stack under a steady write load and
 * prints, for each measure, the median, p90 and worst: annotation to Succeeded (seen in the
 * resource's status), the workflow's own durationSeconds, and the write-unavailability window the
 * client saw (last acknowledged write before the failover's gap to the first one after it).
 * Numbers are printed, never asserted: the machines are shared and noisy.
 *
 * <pre>./temporal-dev/benchmark [N]</pre>
 */
public final class PlannedFailoverBenchmark {
  private PlannedFailoverBenchmark() {}

  record Run(String target, double annotationToSucceededMs, double workflowMs, double windowMs, long lost) {}

  public static void main(String[] args) throws IOException {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    Path work = Path.of(System.getProperty("benchmark.work", "temporal-dev/target/benchmark"));
    Playground.deleteTree(work);
    List<Run> runs = new ArrayList<>();
    try (FailoverStack stack = FailoverStack.start(work, FailoverStack.Options.twoSites());
        WriteLoad load = WriteLoad.start(stack::routedJdbcUrl, Duration.ofMillis(2), 1)) {
      load.awaitAcknowledged(200, Duration.ofSeconds(20));
      // One failover to warm the JVMs up; it is not counted.
      failover(stack, load, "pdx");
      failover(stack, load, "iad");
      for (int i = 0; i < n; i++) {
        String target = "iad".equals(stack.resource().getStatus().activeSite()) ? "pdx" : "iad";
        Run run = failover(stack, load, target);
        runs.add(run);
        System.out.printf("run %2d -> %s: annotation->Succeeded %6.0f ms, workflow %6.0f ms, window %5.0f ms, lost %d%n",
            i + 1, target, run.annotationToSucceededMs(), run.workflowMs(), run.windowMs(), run.lost());
      }
    } finally {
      Playground.deleteTree(work);
    }
    System.out.println();
    System.out.printf("planned failover, %d runs, 2 MariaDB sites on loopback, writer every 2 ms%n", runs.size());
    System.out.print(BenchmarkTable.header());
    System.out.print(BenchmarkTable.row("annotation -> Succeeded (ms)",
        runs.stream().map(Run::annotationToSucceededMs).toList()));
    System.out.print(BenchmarkTable.row("workflow durationSeconds (ms)", runs.stream().map(Run::workflowMs).toList()));
    System.out.print(BenchmarkTable.row("write-unavailability window (ms)", runs.stream().map(Run::windowMs).toList()));
    System.out.print(BenchmarkTable.row("acknowledged rows lost", runs.stream().map(r -> (double) r.lost()).toList()));
  }

  private static Run failover(FailoverStack stack, WriteLoad load, String target) {
    String before = Instant.now().toString();
    long startNanos = System.nanoTime();
    stack.annotate(target);
    PlannedFailoverStatus s = stack.awaitPlanned(p -> "Succeeded".equals(p.phase()) || "Failed".equals(p.phase())
        ? p.startTime() != null && p.startTime().compareTo(before) >= 0 : false, Duration.ofSeconds(120));
    long endNanos = System.nanoTime();
    if (!"Succeeded".equals(s.phase())) {
      throw new IllegalStateException("failover to " + target + " ended " + s.phase() + ": " + s.message());
    }
    // Let the writer reach the new primary, then measure its longest gap inside this failover.
    int acked = load.acknowledgedCount();
    load.awaitAcknowledged(acked + 20, Duration.ofSeconds(20));
    double window = longestGap(load.acks(), startNanos) / 1e6;
    // Acknowledgements first, rows second: the writer goes on writing, and a row acknowledged after
    // the rows were read is not missing.
    List<Long> acknowledged = load.acknowledged();
    java.util.Set<Long> onPrimary = new java.util.HashSet<>(MariaDbCluster.writtenIds(stack.server(target)));
    long lost = acknowledged.stream().filter(id -> !onPrimary.contains(id)).count();
    while (stack.annotation().isPresent()) {
      Playground.sleep(5);
    }
    return new Run(target, (endNanos - startNanos) / 1e6, s.durationSeconds() * 1000, window, lost);
  }

  /** The longest pause between consecutive acknowledgements from {@code fromNanos} on. */
  private static long longestGap(List<WriteLoad.Ack> acks, long fromNanos) {
    long longest = 0;
    WriteLoad.Ack previous = null;
    for (WriteLoad.Ack ack : acks) {
      if (previous != null && ack.nanos() >= fromNanos) {
        longest = Math.max(longest, ack.nanos() - previous.nanos());
      }
      previous = ack;
    }
    return longest;
  }
}
