package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.dev.Playground.Verdict;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The playground's scenarios, run by CI exactly as {@code ./temporal-dev/playground <name>} runs
 * them: a fresh stack each, the scenario's own checks, and its verdict line. A scenario that
 * breaks for a user breaks the build. The two that run with {@code --flavor mysql} run once per
 * flavor.
 */
class PlaygroundScenariosIT {
  @TempDir
  Path work;

  @FlavorTest
  void plannedSwitchoverPasses(Flavor flavor) throws Exception {
    flavor.assumeAvailable();
    assertPasses("planned-switchover", flavor);
  }

  @FlavorTest
  void primaryKillPasses(Flavor flavor) throws Exception {
    flavor.assumeAvailable();
    assertPasses("primary-kill", flavor);
  }

  @Test
  void partitionedPrimarySelfFencesPasses() throws Exception {
    assertPasses("partitioned-primary-self-fences", Flavor.MARIADB);
  }

  private void assertPasses(String scenario, Flavor flavor) throws Exception {
    Verdict verdict = Playground.run(scenario, work.resolve(scenario), flavor);
    assertThat(verdict.passed()).as("%s on %s: %s", scenario, flavor, verdict).isTrue();
  }
}
