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
 * ./temporal-dev/faults --flavor mysql ...    on MySQL 9.7 servers (default: MariaDB)
 * </pre>
 */
public final class FaultSuite {
  public static final List<String> INVARIANTS = List.of("one-writable", "no-ack-lost", "outcome", "status-matches");

  private FaultSuite() {}

  public static void main(String[] args) throws IOException {
    List<FaultPlan> plans = plans(args);
    Flavor flavor = flavor(args);
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
        out.printf("  -> %s in %.1f s, fault fired: %s; %s%n", r.outcome(), r.seconds(),
            r.fired() == null ? "NO" : r.fired(), r.passed() ? "every invariant held" : "INVARIANT FAILED");
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
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals("--flavor")) {
        try {
          flavor = Flavor.valueOf(args[i + 1].toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("unknown flavor '" + args[i + 1] + "': use mysql or mariadb");
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
    List<String> names = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--seed" -> seed = Long.parseLong(args[++i]);
        case "--random" -> random = Integer.parseInt(args[++i]);
        case "--cases" -> names = List.of(args[++i].split(","));
        case "--ci" -> names = FaultPlan.ciCases();
        case "--flavor" -> i++; // see flavor(args)
        case "--list" -> {
          catalog.values().forEach(p -> System.out.printf("%-42s %s%n", p.name(), p.fault().describe()));
          System.exit(0);
        }
        default -> throw new IllegalArgumentException("unknown argument " + args[i]
            + "; use --ci, --cases a,b, --seed S, --random N, --list, --flavor mysql|mariadb");
      }
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
    return plans;
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
