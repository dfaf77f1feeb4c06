package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.dev.Playground.Verdict;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The playground's scenarios, run by CI exactly as {@code ./temporal-dev/playground <name>} runs
 * them: a fresh stack each, the scenario's own checks, and its verdict line. A scenario that
 * breaks for a user breaks the build.
 */
class PlaygroundScenariosIT {
  @TempDir
  Path work;

  @Test
  void plannedSwitchoverPasses() throws Exception {
    assertPasses("planned-switchover");
  }

  @Test
  void primaryKillPasses() throws Exception {
    assertPasses("primary-kill");
  }

  @Test
  void partitionedPrimarySelfFencesPasses() throws Exception {
    assertPasses("partitioned-primary-self-fences");
  }

  private void assertPasses(String scenario) throws Exception {
    Verdict verdict = Playground.run(scenario, work.resolve(scenario));
    assertThat(verdict.passed()).as("%s: %s", scenario, verdict).isTrue();
  }
}
