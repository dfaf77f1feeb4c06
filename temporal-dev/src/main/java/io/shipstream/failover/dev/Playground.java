package io.shipstream.failover.dev;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.MariaDbCluster;
import io.shipstream.failover.testsupport.WriteLoad;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.stream.Stream;

/**
 * The playground: the whole system on this machine, and a failover you can watch. Each scenario
 * prints a timeline and ends with a verdict line ({@code PASS}/{@code FAIL} and why).
 *
 * <pre>
 *   ./temporal-dev/playground                      # planned-switchover
 *   ./temporal-dev/playground --list
 *   ./temporal-dev/playground all
 * </pre>
 */
public final class Playground {
  private static final Map<String, BiFunction<FailoverStack, PrintStream, Verdict>> SCENARIOS = new LinkedHashMap<>();

  static {
    SCENARIOS.put("planned-switchover", Scenarios::plannedSwitchover);
    SCENARIOS.put("planned-lag-timeout-rollback", Scenarios::plannedLagTimeoutRollback);
  }

  /** The outcome of one scenario. */
  public record Verdict(boolean passed, String why) {
    @Override
    public String toString() {
      return (passed ? "PASS" : "FAIL") + ": " + why;
    }
  }

  public static void main(String[] args) throws IOException {
    List<String> names = args.length == 0 ? List.of("planned-switchover") : List.of(args);
    if (names.contains("--list")) {
      SCENARIOS.keySet().forEach(System.out::println);
      return;
    }
    if (names.contains("all")) {
      names = List.copyOf(SCENARIOS.keySet());
    }
    for (String name : names) {
      if (!SCENARIOS.containsKey(name)) {
        System.err.println("unknown scenario '" + name + "'; --list shows them");
        System.exit(2);
      }
    }
    Path work = Path.of(System.getProperty("playground.work", "temporal-dev/target/playground"));
    Map<String, Verdict> results = new LinkedHashMap<>();
    for (String name : names) {
      results.put(name, run(name, work.resolve(name)));
    }
    if (results.size() > 1) {
      System.out.println();
      System.out.printf("%-32s %s%n", "scenario", "verdict");
      results.forEach((n, v) -> System.out.printf("%-32s %s%n", n, v));
    }
    System.exit(results.values().stream().allMatch(Verdict::passed) ? 0 : 1);
  }

  /** Runs one scenario on a fresh stack; everything it started is gone when it returns. */
  public static Verdict run(String name, Path work) throws IOException {
    deleteTree(work);
    Files.createDirectories(work);
    PrintStream out = System.out;
    out.println("== " + name);
    long t0 = System.nanoTime();
    try (FailoverStack stack = FailoverStack.start(work, FailoverStack.Options.playground())) {
      out.printf("stack up in %d ms: Temporal at %s (namespace default), group shop/orders, sites %s%n",
          (System.nanoTime() - t0) / 1_000_000, stack.temporalTarget(), stack.servers().keySet());
      stack.servers().forEach((site, server) -> out.printf("  %-4s mariadbd %s%n", site, server.jdbcUrl()));
      Verdict verdict = SCENARIOS.get(name).apply(stack, out);
      out.println(verdict);
      return verdict;
    } catch (RuntimeException e) {
      Verdict verdict = new Verdict(false, "scenario crashed: " + e);
      out.println(verdict);
      return verdict;
    } finally {
      deleteTree(work);
    }
  }

  /** Watches status.plannedFailover and prints each phase as it is entered, with its time. */
  static PlannedFailoverStatus watch(FailoverStack stack, PrintStream out, String annotation, Duration timeout) {
    String before = Instant.now().toString();
    long start = System.nanoTime();
    out.printf("%8s  kubectl annotate mysqlfailovergroup orders bloodraven.shipstream.io/planned-failover=%s%n",
        "+0 ms", annotation);
    stack.annotate(annotation);
    String last = null;
    while (System.nanoTime() - start < timeout.toNanos()) {
      PlannedFailoverStatus s = stack.plannedStatus().orElse(null);
      if (s != null && s.startTime() != null && s.startTime().compareTo(before) >= 0 && !s.phase().equals(last)) {
        last = s.phase();
        out.printf("%8s  %s%s%n", "+" + (System.nanoTime() - start) / 1_000_000 + " ms", s.phase(),
            s.reason() == null ? "" : " (" + s.reason() + ")");
        if (s.phase().equals("Succeeded") || s.phase().equals("Failed")) {
          return s;
        }
      }
      sleep(5);
    }
    throw new IllegalStateException("no end of the failover within " + timeout);
  }

  static void printStatus(PrintStream out, PlannedFailoverStatus s) {
    out.println("status.plannedFailover:");
    for (String line : Serialization.asYaml(s).split("\n")) {
      if (!line.equals("---")) {
        out.println("  " + line);
      }
    }
  }

  static long missing(FailoverStack stack, WriteLoad load, String primary) {
    List<Long> present = MariaDbCluster.writtenIds(stack.server(primary));
    return load.acknowledged().stream().filter(id -> !present.contains(id)).count();
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
