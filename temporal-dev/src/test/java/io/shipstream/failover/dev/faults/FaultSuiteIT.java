package io.shipstream.failover.dev.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault-injection suite under failsafe. By default the short list ({@link FaultPlan#ciCases}:
 * one case of each kind of fault), which is what {@code ./scripts/test} runs; the {@code faults}
 * Maven profile runs every named case plus seeded random ones ({@code faults.cases=all},
 * {@code faults.random}, {@code faults.seed}). Every invariant must hold in every case; the table
 * goes to the test's output file and, on failure, into the assertion message with the replay
 * command of each failed seed. Once per flavor: the invariants hold on MySQL as on MariaDB.
 */
class FaultSuiteIT {
  @TempDir
  Path work;

  @FlavorTest
  void everyInvariantHoldsInEveryCase(Flavor flavor) throws Exception {
    flavor.assumeAvailable();
    List<String> args = new java.util.ArrayList<>();
    String cases = System.getProperty("faults.cases", "ci");
    if (cases.equals("ci")) {
      args.add("--ci");
    } else if (!cases.equals("all")) {
      args.addAll(List.of("--cases", cases));
    }
    String random = System.getProperty("faults.random", "");
    if (!random.isBlank() && Integer.parseInt(random) > 0) {
      args.addAll(List.of("--random", random));
    }
    String seed = System.getProperty("faults.seed", "");
    if (!seed.isBlank()) {
      args.addAll(List.of("--seed", seed));
    }
    List<FaultPlan> plans = FaultSuite.plans(args.toArray(String[]::new));

    ByteArrayOutputStream log = new ByteArrayOutputStream();
    List<CaseResult> results =
        FaultSuite.run(plans, work.resolve(flavor.name()), new PrintStream(log, true, StandardCharsets.UTF_8), flavor);
    String table = FaultSuite.table(results);
    System.out.println(log.toString(StandardCharsets.UTF_8));
    System.out.println(flavor + "\n" + table);

    assertThat(results).hasSize(plans.size());
    assertThat(results).allSatisfy(r -> assertThat(r.passed())
        .as("%s on %s (%s): %s%n%s", r.plan().name(), flavor, r.plan().fault().describe(),
            r.plan().seed() == null ? "" : "replay with ./temporal-dev/faults --seed " + r.plan().seed()
                + " --flavor " + flavor.name().toLowerCase(java.util.Locale.ROOT),
            table)
        .isTrue());
    assertThat(results).allSatisfy(r -> assertThat(r.checks()).extracting(CaseResult.Check::invariant)
        .containsAll(FaultSuite.INVARIANTS));
  }
}
