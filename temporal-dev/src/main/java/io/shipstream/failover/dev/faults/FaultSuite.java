package io.shipstream.failover.dev.faults;

import io.shipstream.failover.testsupport.FileTrees;
import io.shipstream.failover.testsupport.Flavor;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The fault-injection suite: every named case (or the ones asked for) and any number of seeded
 * random cases, each on the playground stack with the invariant checker beside it, then a table
 * of case, outcome and invariant verdicts. Exits 1 when any invariant failed in any case, and
 * prints the command that replays each failed seed.
 *
 * <pre>
 * ./temporal-dev/faults                       every named case
 * ./temporal-dev/faults --ci                  the short list CI runs
 * ./temporal-dev/faults --cases a,b           named cases
 * ./temporal-dev/faults --seed 42             one random case from seed 42 (a replay)
 * ./temporal-dev/faults --random 10 [--seed S] ten random cases (seeds drawn from S)
 * ./temporal-dev/faults --cases a --repeat 20  case a 20 times in a row (on one stack)
 * ./temporal-dev/faults --flavor mysql ...    on MySQL 9.7 servers (default: MariaDB)
 * </pre>
 */
public final class FaultSuite {
  public static final List<String> INVARIANTS = List.of("one-writable", "no-ack-lost", "outcome", "status-matches");

  private FaultSuite() {}

  /** What {@code --help} prints, and an unknown argument after its error. */
  static final String USAGE = """
      usage: ./temporal-dev/faults [options]
        (no option)              every named case
        --ci                     the short list CI runs (FaultSuiteIT)
        --cases a,b              the named cases, in this order (a name may repeat)
        --list                   the named cases and their faults
        --seed S                 the random case of seed S (replays a printed seed)
        --random N [--seed S]    N random cases, their seeds drawn from S
        --repeat N               everything selected N times in a row, on one stack
        --flavor mysql|mariadb   the servers' flavor (default mariadb)
        --help                   this
      Exits 0 when every invariant held in every case, 1 when one failed, 2 on a bad argument.
      """;

  public static void main(String[] args) throws IOException {
    if (List.of(args).contains("--help") || List.of(args).contains("-h")) {
      System.out.print(USAGE);
      System.exit(0);
    }
    List<FaultPlan> plans;
    Flavor flavor;
    try {
      plans = plans(args);
      flavor = flavor(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.print(USAGE);
      System.exit(2);
      return;
    }
    flavor.unavailableReason().ifPresent(reason -> {
      System.err.println("--flavor mysql needs MySQL 9.7 from the root file system scripts/prerequisites makes as"
          + " root, and it cannot run here: " + reason);
      System.exit(3);
    });
    Path work = Path.of(System.getProperty("faults.work", "temporal-dev/target/faults"));
    List<CaseResult> results = run(plans, work, System.out, flavor);
    System.out.println();
    System.out.print(table(results));
    List<CaseResult> failed = results.stream().filter(r -> !r.passed()).toList();
    System.out.printf("%n%d cases, %d passed, %d failed%n", results.size(), results.size() - failed.size(),
        failed.size());
    System.out.print(repeats(results));
    String onFlavor = flavor == Flavor.MARIADB ? "" : " --flavor " + flavor.name().toLowerCase(java.util.Locale.ROOT);
    for (CaseResult r : failed) {
      System.out.println("FAILED " + r.plan().name() + (r.plan().seed() != null
          ? ": replay with ./temporal-dev/faults --seed " + r.plan().seed() + onFlavor
          : ": rerun with ./temporal-dev/faults --cases " + r.plan().name() + onFlavor));
    }
    System.exit(failed.isEmpty() ? 0 : 1);
  }

  /**
   * Runs the plans one after the other on a harness of their own, with {@code flavor}'s servers;
   * prints a line per case.
   */
  public static List<CaseResult> run(List<FaultPlan> plans, Path work, PrintStream out, Flavor flavor)
      throws IOException {
    FileTrees.delete(work);
    List<CaseResult> results = new ArrayList<>();
    try (FaultHarness harness = new FaultHarness(work, flavor)) {
      for (FaultPlan plan : plans) {
        out.printf("%s (%s): %s%n", plan.name(), flavor, plan.fault().describe());
        CaseResult r = harness.run(plan);
        results.add(r);
        out.printf("  -> %s in %.1f s (stack ready in %.1f s), fault fired: %s; %s%n", r.outcome(), r.seconds(),
            r.readySeconds(), r.fired() == null ? "NO" : r.fired(), r.passed() ? "every invariant held"
                : "INVARIANT FAILED");
        for (CaseResult.Check c : r.checks()) {
          out.printf("     %-15s %s %s%n", c.invariant(), c.held() ? "ok  " : "FAIL", c.detail());
        }
      }
    } finally {
      FileTrees.delete(work);
    }
    return results;
  }

  /** {@code --flavor mysql|mariadb}; MariaDB when not given. */
  static Flavor flavor(String[] args) {
    Flavor flavor = Flavor.MARIADB;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--flavor")) {
        String name = value(args, i);
        try {
          flavor = Flavor.valueOf(name.toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("unknown flavor '" + name + "': use mysql or mariadb");
        }
      }
    }
    return flavor;
  }

  static List<FaultPlan> plans(String[] args) {
    Map<String, FaultPlan> catalog = FaultPlan.catalog();
    List<FaultPlan> plans = new ArrayList<>();
    Long seed = null;
    Integer random = null;
    int repeat = 1;
    List<String> names = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--seed" -> seed = Long.parseLong(value(args, i++));
        case "--random" -> random = Integer.parseInt(value(args, i++));
        case "--repeat" -> repeat = Integer.parseInt(value(args, i++));
        case "--cases" -> names = List.of(value(args, i++).split(","));
        case "--ci" -> names = FaultPlan.ciCases();
        case "--flavor" -> i++; // see flavor(args)
        case "--list" -> {
          catalog.values().forEach(p -> System.out.printf("%-42s %s%n", p.name(), p.fault().describe()));
          System.exit(0);
        }
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if (repeat < 1) {
      throw new IllegalArgumentException("--repeat needs a count of 1 or more, not " + repeat);
    }
    if (names != null) {
      for (String name : names) {
        FaultPlan p = catalog.get(name.trim());
        if (p == null) {
          throw new IllegalArgumentException("no case " + name + "; --list shows them");
        }
        plans.add(p);
      }
    }
    if (random != null) {
      FaultPlan.seeds(seed == null ? System.nanoTime() : seed, random).forEach(s -> plans.add(FaultPlan.random(s)));
    } else if (seed != null) {
      plans.add(FaultPlan.random(seed));
    }
    if (plans.isEmpty()) {
      plans.addAll(catalog.values());
    }
    List<FaultPlan> repeated = new ArrayList<>();
    for (int round = 0; round < repeat; round++) {
      repeated.addAll(plans);
    }
    return repeated;
  }

  /** The value after option {@code args[i]}. */
  private static String value(String[] args, int i) {
    if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
      throw new IllegalArgumentException(args[i] + " needs a value");
    }
    return args[i + 1];
  }

  /** For each case run more than once: how many runs passed, and the range of their durations. */
  static String repeats(List<CaseResult> results) {
    Map<String, List<CaseResult>> byName = new java.util.LinkedHashMap<>();
    results.forEach(r -> byName.computeIfAbsent(r.plan().name(), n -> new ArrayList<>()).add(r));
    StringBuilder out = new StringBuilder();
    byName.forEach((name, runs) -> {
      if (runs.size() > 1) {
        var seconds = runs.stream().mapToDouble(CaseResult::seconds).summaryStatistics();
        out.append(String.format("%s: %d runs, %d passed, %.1f-%.1f s each%n", name, runs.size(),
            runs.stream().filter(CaseResult::passed).count(), seconds.getMin(), seconds.getMax()));
      }
    });
    return out.toString();
  }

  /** The Markdown table: one row per case. */
  public static String table(List<CaseResult> results) {
    StringBuilder t = new StringBuilder("| case | fault | outcome | s | one writable | no ack lost | outcome ok |"
        + " status matches |\n|---|---|---|---|---|---|---|---|\n");
    for (CaseResult r : results) {
      t.append(String.format("| %s | %s%s | %s | %.1f | %s | %s | %s | %s |%n", r.plan().name(),
          r.plan().fault().describe(), r.fired() == null ? " (NOT FIRED)" : "", r.outcome(), r.seconds(),
          r.check("one-writable"), r.check("no-ack-lost"), r.check("outcome"), r.check("status-matches")));
    }
    return t.toString();
  }
}
