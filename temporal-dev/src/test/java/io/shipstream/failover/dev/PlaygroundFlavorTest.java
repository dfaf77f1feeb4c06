package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.testsupport.Flavor;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The playground's {@code --flavor}: how it is read, and which scenarios it lets run. */
class PlaygroundFlavorTest {
  @Test
  void theFlavorIsTakenOutOfTheArgumentsWhereverItStands() {
    List<String> args = new ArrayList<>(List.of("primary-kill", "--flavor", "mysql"));
    assertThat(Playground.takeFlavor(args)).isEqualTo(Flavor.MYSQL);
    assertThat(args).containsExactly("primary-kill");

    args = new ArrayList<>(List.of("--flavor=MariaDB", "planned-switchover"));
    assertThat(Playground.takeFlavor(args)).isEqualTo(Flavor.MARIADB);
    assertThat(args).containsExactly("planned-switchover");

    args = new ArrayList<>(List.of("all"));
    assertThat(Playground.takeFlavor(args)).isEqualTo(Flavor.MARIADB);
    assertThat(args).containsExactly("all");
  }

  @Test
  void anUnknownOrMissingFlavorIsRefusedWithTheChoices() {
    assertThatThrownBy(() -> Playground.takeFlavor(new ArrayList<>(List.of("--flavor", "postgres"))))
        .hasMessageContaining("use mysql or mariadb");
    assertThatThrownBy(() -> Playground.takeFlavor(new ArrayList<>(List.of("--flavor"))))
        .hasMessageContaining("mysql or mariadb");
  }

  @Test
  void theListMarksTheScenariosThatRunOnMariaDbOnly() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Playground.list(new PrintStream(out, true, StandardCharsets.UTF_8));
    String listed = out.toString(StandardCharsets.UTF_8);
    assertThat(listed.lines().filter(l -> l.startsWith("planned-switchover ") || l.startsWith("primary-kill ")))
        .hasSize(2).noneMatch(l -> l.contains("[mariadb]"));
    assertThat(listed.lines().filter(l -> l.startsWith("planned-lag-timeout-rollback "))).allMatch(
        l -> l.endsWith("[mariadb]"));
    assertThat(listed).contains("--flavor mysql|mariadb");
  }

  @Test
  void aMariaDbOnlyScenarioIsRefusedOnMySqlBeforeAnythingStarts() {
    assertThatThrownBy(() -> Playground.run("errant-replica-not-promoted", Path.of("target/never"), Flavor.MYSQL))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("runs on mariadb only");
  }

  /** Issue #20: a scenario per day-2 control, in --list (MariaDB only) and run by name. */
  @Test
  void theDayTwoControlsHaveAScenarioEach() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Playground.list(new PrintStream(out, true, StandardCharsets.UTF_8));
    List<String> listed = out.toString(StandardCharsets.UTF_8).lines().toList();
    for (String name : List.of("paused-group", "drain-switchover", "hooks")) {
      assertThat(Playground.scenarios()).contains(name);
      assertThat(listed).filteredOn(l -> l.startsWith(name + " ")).singleElement().asString().endsWith("[mariadb]");
    }
  }
}
