package io.shipstream.failover.dev;

import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.FileTrees;
import io.shipstream.failover.testsupport.Flavor;
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
 * <pre>./temporal-dev/benchmark [N] [--flavor mysql,mariadb]</pre>
 *
 * On each flavor given (default: MariaDB and, where it can run, MySQL 9.7).
 */
public final class PlannedFailoverBenchmark {
  private PlannedFailoverBenchmark() {}

  /**
   * {@code serverWindowMs}: the fence applied on the source to the target writable, from the
   * activities' own estimates (the middle of the exchange that carried each statement; NaN when
   * they did not say); {@code windowMs} is the client-seen window, the writer's longest gap;
   * {@code statusWindowMs} the window the run recorded in {@code status.plannedFailover.writeWindow}
   * (NaN when it recorded none), which must equal the server-side one (the same two instants, at the
   * status's millisecond precision) and never exceed the client-seen one.
   */
  record Run(String target, double annotationToSucceededMs, double workflowMs, double windowMs, long lost,
      double serverWindowMs, double statusWindowMs) {

    /** Whether the status window is the server-side one, to the status's millisecond, and within the client's. */
    boolean statusWindowConsistent() {
      return !Double.isNaN(statusWindowMs) && !Double.isNaN(serverWindowMs)
          && Math.abs(statusWindowMs - Math.floor(serverWindowMs)) < 1.0 && statusWindowMs <= windowMs;
    }
  }

  /** The Temporal runs and the same runbook called directly, on one stack under one writer. */
  record Result(Flavor flavor, List<Run> temporal, List<Run> direct, String profile, long remoteRttMs) {}

  /** {@code [N] [--flavor mysql,mariadb]}, as this benchmark and the emergency one take them. */
  record Args(int n, List<Flavor> flavors) {
    static Args parse(String[] args) {
      int n = 10;
      String flavors = null;
      for (int i = 0; i < args.length; i++) {
        if (args[i].equals("--flavor") && i + 1 < args.length) {
          flavors = args[++i];
        } else if (args[i].equals("--n") && i + 1 < args.length && args[i + 1].matches("\\d+")) {
          n = Integer.parseInt(args[++i]);
        } else if (args[i].matches("\\d+")) {
          n = Integer.parseInt(args[i]);
        } else {
          throw new IllegalArgumentException("unknown argument " + args[i] + "; use [N] [--flavor mysql,mariadb]");
        }
      }
      return new Args(n, BenchmarkTable.flavors(flavors));
    }
  }

  public static void main(String[] args) throws IOException {
    Args parsed;
    try {
      parsed = Args.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage() + " (./temporal-dev/benchmark --help shows every option)");
      System.exit(2);
      return;
    }
    Path work = Path.of(System.getProperty("benchmark.work", "temporal-dev/target/benchmark"));
    List<Result> results = new ArrayList<>();
    // -Dbenchmark.remoteRttMs=70: pdx behind a link with that round trip, as the "all" benchmark's --remote-rtt.
    Duration rtt = Duration.ofMillis(Long.getLong("benchmark.remoteRttMs", 0L));
    for (Flavor flavor : parsed.flavors()) {
      results.add(measure(work, parsed.n(), rtt, flavor));
    }
    System.out.println();
    results.forEach(r -> System.out.println(table(r)));
  }

  /**
   * N failovers through Temporal (annotation, watcher, workflow), then N through {@link
   * DirectPlannedFailover} (the same activities in the same order, no Temporal), alternating the
   * target, each after two warm-up failovers that are not counted.
   */
  static Result measure(Path work, int n, Duration remoteRtt, Flavor flavor) throws IOException {
    FileTrees.delete(work);
    List<Run> runs = new ArrayList<>();
    List<Run> direct = new ArrayList<>();
    String profile;
    // -Dbenchmark.tls=true: the stack with TLS everywhere (Options.withTls), to measure what it costs.
    FailoverStack.Options options = FailoverStack.Options.twoSites().withFlavor(flavor);
    if (Boolean.getBoolean("benchmark.tls")) {
      options = options.withTls();
    }
    try (FailoverStack stack = FailoverStack.start(work, options);
        WriteLoad load = WriteLoad.start(stack::routedJdbcUrl, Duration.ofMillis(2), 1);
        DirectPlannedFailover runner = new DirectPlannedFailover(stack.api().client(), java.time.Clock.systemUTC())) {
      // The worker as the worker process runs it (sticky execution, a workflow cache): the
      // benchmark never kills it, so the dev stack's no-sticky workaround would only add cost.
      if (!remoteRtt.isZero()) {
        // The control plane and the client live in iad; pdx is across a link with this round
        // trip, for the worker's calls and for the replication that goes through its endpoint.
        stack.proxyControlPlaneMysql("pdx").delay(remoteRtt.dividedBy(2));
      }
      CallTimeline timeline = new CallTimeline();
      stack.controlPlane().addWorkerInterceptor(timeline);
      stack.controlPlane().useProductionWorkerCache();
      load.awaitAcknowledged(200, Duration.ofSeconds(20));
      // One failover each way to warm the JVMs up; they are not counted.
      String workflowId = "mysqlfailovergroup/" + stack.api().ref().namespace() + "/" + stack.api().ref().name();
      failover(stack, load, "pdx", timeline, workflowId);
      failover(stack, load, "iad", timeline, workflowId);
      for (int i = 0; i < n; i++) {
        String target = other(stack);
        Run run = failover(stack, load, target, timeline, workflowId);
        runs.add(run);
        System.out.printf("%s run %2d -> %s: annotation->Succeeded %6.0f ms, workflow %6.0f ms, window %5.0f ms,"
            + " server-side window %7.1f ms, status-recorded window %5.0f ms (%s), lost %d%n", flavor, i + 1, target,
            run.annotationToSucceededMs(), run.workflowMs(), run.windowMs(), run.serverWindowMs(), run.statusWindowMs(),
            run.statusWindowConsistent() ? "= server-side, <= client-seen" : "INCONSISTENT", run.lost());
      }
      // The last Temporal run's history, before the direct runs (they start no workflow).
      profile = HistoryProfile.of(stack.controlPlane().client(), List.of(workflowId)).table() + "\n"
          + timeline.describe(stack.controlPlane().client(), workflowId);
      direct(stack, load, runner, other(stack));
      direct(stack, load, runner, other(stack));
      for (int i = 0; i < n; i++) {
        String target = other(stack);
        Run run = direct(stack, load, runner, target);
        direct.add(run);
        System.out.printf(
            "%s direct %2d -> %s: start->Succeeded %6.0f ms, window %5.0f ms, server-side window %5.0f ms,"
                + " lost %d (%s)%n",
            flavor, i + 1, target, run.annotationToSucceededMs(), run.windowMs(), run.serverWindowMs(),
            run.lost(), runner.lastSteps());
      }
    } finally {
      FileTrees.delete(work);
    }
    return new Result(flavor, runs, direct, profile, remoteRtt.toMillis());
  }

  static String table(Result r) {
    List<Run> runs = r.temporal();
    List<Run> direct = r.direct();
    double ratio = BenchmarkTable.median(sorted(runs)) / BenchmarkTable.median(sorted(direct));
    double workflowRatio = BenchmarkTable.median(runs.stream().map(Run::workflowMs).sorted().toList())
        / BenchmarkTable.median(sorted(direct));
    String servers = BenchmarkTable.servers(r.flavor());
    String sites = r.remoteRttMs() == 0 ? "2 " + servers + " sites on loopback"
        : "2 " + servers + " sites, pdx behind a link of " + r.remoteRttMs()
            + " ms round trip (the worker, watcher and writer"
            + " in iad)";
    return String.format("planned failover, %d runs, %s, writer every 2 ms%n", runs.size(), sites)
        + BenchmarkTable.header()
        + BenchmarkTable.row("annotation -> Succeeded (ms)", runs.stream().map(Run::annotationToSucceededMs).toList())
        + BenchmarkTable.row("workflow durationSeconds (ms)", runs.stream().map(Run::workflowMs).toList())
        + BenchmarkTable.row("write-unavailability window (ms)", runs.stream().map(Run::windowMs).toList())
        + BenchmarkTable.row("acknowledged rows lost", runs.stream().map(x -> (double) x.lost()).toList())
        + String.format("%nthe same runbook called directly (same activities, same order, no Temporal), %d runs%n",
            direct.size())
        + BenchmarkTable.header()
        + BenchmarkTable.row("start -> Succeeded written (ms)",
            direct.stream().map(Run::annotationToSucceededMs).toList())
        + BenchmarkTable.row("write-unavailability window (ms)", direct.stream().map(Run::windowMs).toList())
        + BenchmarkTable.row("acknowledged rows lost", direct.stream().map(x -> (double) x.lost()).toList())
        + String.format("%nwrites stopped, per direction (the client-seen window is the writer's longest gap; the"
            + " server-side window runs from the fence applied on the source to the target writable, each the middle"
            + " of the worker's exchange with the server)%s%n",
            r.remoteRttMs() == 0 ? ""
                : "; round trips of the " + r.remoteRttMs() + " ms link = ms / " + r.remoteRttMs())
        + String.format("(after its first failed write the writer retries at %s: a client-seen window ends on the"
            + " first of these after the target is labelled primary, plus the reconnect and the write)%n",
            WriteLoad.retryLadder())
        + windows(runs, direct, r.remoteRttMs())
        + String.format("%norchestration overhead: median(annotation -> Succeeded) / median(direct) = %.2f;"
            + " median(workflow durationSeconds) / median(direct) = %.2f%n", ratio, workflowRatio)
        + String.format("%nthe last Temporal run, %s", r.profile());
  }

  /** The two windows per target, Temporal and direct: ms, and round trips of the link where there is one. */
  static String windows(List<Run> temporal, List<Run> direct, long rttMs) {
    StringBuilder t = new StringBuilder("| target | runbook | window | runs | median (ms) | p90 (ms) | worst (ms) |"
        + " median (RTT) | p90 (RTT) | worst (RTT) |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (String target : List.of("iad", "pdx")) {
      String where = target + (rttMs == 0 ? "" : target.equals("iad") ? " (local)" : " (remote)");
      for (var runbook : List.of(java.util.Map.entry("workflow", temporal), java.util.Map.entry("direct", direct))) {
        List<Run> mine = runbook.getValue().stream().filter(x -> x.target().equals(target)).toList();
        if (mine.isEmpty()) {
          continue;
        }
        t.append(windowRow(where, runbook.getKey(), "server-side",
            mine.stream().map(Run::serverWindowMs).filter(v -> !v.isNaN()).toList(), rttMs));
        t.append(windowRow(where, runbook.getKey(), "client-seen", mine.stream().map(Run::windowMs).toList(), rttMs));
      }
    }
    return t.toString();
  }

  private static String windowRow(String target, String runbook, String window, List<Double> values, long rttMs) {
    if (values.isEmpty()) {
      return String.format("| %s | %s | %s | 0 | | | | | | |%n", target, runbook, window);
    }
    List<Double> v = values.stream().sorted().toList();
    double median = BenchmarkTable.median(v);
    double p90 = BenchmarkTable.p90(v);
    double worst = v.get(v.size() - 1);
    String rtts = rttMs == 0 ? "| — | — | —" : String.format("| %.1f | %.1f | %.1f", median / rttMs, p90 / rttMs,
        worst / rttMs);
    return String.format("| %s | %s | %s | %d | %.0f | %.0f | %.0f %s |%n", target, runbook, window, v.size(), median,
        p90, worst, rtts);
  }

  private static List<Double> sorted(List<Run> runs) {
    return runs.stream().map(Run::annotationToSucceededMs).sorted().toList();
  }

  private static String other(FailoverStack stack) {
    return "iad".equals(stack.api().resource().getStatus().activeSite()) ? "pdx" : "iad";
  }

  /** One direct run: the same measures as a Temporal run, from the call to the Succeeded status. */
  private static Run direct(FailoverStack stack, WriteLoad load, DirectPlannedFailover runner, String target) {
    long startNanos = System.nanoTime();
    PlannedFailoverStatus s = runner.run(stack.api().ref(), target);
    long endNanos = System.nanoTime();
    return measured(stack, load, target, startNanos, endNanos, s, runner.lastServerWindow());
  }

  private static Run failover(FailoverStack stack, WriteLoad load, String target, CallTimeline timeline,
      String workflowId) {
    long sinceMs = System.currentTimeMillis();
    String before = Instant.now().toString();
    long startNanos = System.nanoTime();
    timeline.mark(workflowId, "annotation patch sent", System.currentTimeMillis());
    stack.api().annotate(target);
    PlannedFailoverStatus s = stack.waits().planned(p -> "Succeeded".equals(p.phase()) || "Failed".equals(p.phase())
        ? p.startTime() != null && p.startTime().compareTo(before) >= 0 : false, Duration.ofSeconds(120));
    long endNanos = System.nanoTime();
    timeline.mark(workflowId, "Succeeded read back", System.currentTimeMillis());
    if (!"Succeeded".equals(s.phase())) {
      throw new IllegalStateException("failover to " + target + " ended " + s.phase() + ": " + s.message());
    }
    return measured(stack, load, target, startNanos, endNanos, s, timeline.serverWindow(workflowId, sinceMs));
  }

  private static Run measured(FailoverStack stack, WriteLoad load, String target, long startNanos, long endNanos,
      PlannedFailoverStatus s, Duration serverWindow) {
    // Let the writer reach the new primary, then measure its longest gap inside this failover.
    int acked = load.acknowledgedCount();
    load.awaitAcknowledged(acked + 20, Duration.ofSeconds(20));
    double window = longestGap(load.acks(), startNanos) / 1e6;
    // Acknowledgements first, rows second: the writer goes on writing, and a row acknowledged after
    // the rows were read is not missing.
    List<Long> acknowledged = load.acknowledged();
    java.util.Set<Long> onPrimary = new java.util.HashSet<>(DatabaseCluster.writtenIds(stack.server(target)));
    long lost = acknowledged.stream().filter(id -> !onPrimary.contains(id)).count();
    while (stack.api().annotation().isPresent()) {
      Playground.sleep(5);
    }
    return new Run(target, (endNanos - startNanos) / 1e6, s.durationSeconds() * 1000, window, lost,
        serverWindow == null ? Double.NaN : serverWindow.toNanos() / 1e6,
        s.writeWindow() == null || s.writeWindow().seconds() == null ? Double.NaN : s.writeWindow().seconds() * 1000);
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
