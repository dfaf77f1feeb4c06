package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.topology.Fixture.candidate;
import static io.shipstream.failover.model.topology.Fixture.drOnly;
import static io.shipstream.failover.model.topology.Fixture.group;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The fenced-sites annotation: its grammar, and the table of what one evaluation does with it. */
class FencedSitesTest {
  private static final GroupConfig CONFIG = group(candidate("iad"), candidate("pdx"), drOnly("dr"));

  @ParameterizedTest(name = "''{0}'' fences {1}")
  @CsvSource(delimiter = '|', textBlock = """
      dr          | dr
      ' dr '      | dr
      dr,iad      | iad;dr
      pdx, dr,iad | iad;pdx;dr
      """)
  void aListOfTheGroupsSitesInSpecOrder(String value, String expected) {
    FencedSites f = FencedSites.read(value, CONFIG);

    assertThat(f.valid()).isTrue();
    assertThat(f.sites()).containsExactly(expected.split(";"));
  }

  @Test
  void absentOrEmptyFencesNothing() {
    assertThat(FencedSites.read(null, CONFIG).sites()).isEmpty();
    assertThat(FencedSites.read(null, CONFIG).valid()).isTrue();
    assertThat(FencedSites.read("  ", CONFIG).sites()).isEmpty();
    assertThat(FencedSites.read("", CONFIG).valid()).isTrue();
  }

  @ParameterizedTest(name = "''{0}'' is refused: {1}")
  @CsvSource(delimiter = '|', textBlock = """
      ord     | 'ord' is not a site of the group (its sites are [iad, pdx, dr])
      dr,ord  | 'ord' is not a site of the group
      dr,,iad | it has an empty entry
      dr,     | it has an empty entry
      dr;iad  | 'dr;iad' is not a site name
      DR      | 'DR' is not a site name
      dr,dr   | it names 'dr' twice
      """)
  void anythingElseIsRefusedAsAWhole(String value, String why) {
    FencedSites f = FencedSites.read(value, CONFIG);

    assertThat(f.valid()).isFalse();
    assertThat(f.sites()).as("nothing of a refused value counts").isEmpty();
    assertThat(f.problem()).contains(FencedSites.ANNOTATION + " annotation is '" + value + "'").contains(why)
        .contains("nothing was changed");
  }

  // The table of FencedSites.judge.

  @Test
  void row1ARefusedValueLeavesTheAcceptedSitesAsTheyWere() {
    FencedSites.Outcome o = FencedSites.read("dr,ord", CONFIG).judge(List.of("dr"), "iad", false);

    assertThat(o).isInstanceOf(FencedSites.Rejected.class);
    assertThat(((FencedSites.Rejected) o).why()).contains("'ord' is not a site of the group");
  }

  @Test
  void row2TheSameSitesInAnyOrderChangeNothing() {
    assertThat(FencedSites.read("iad,dr", CONFIG).judge(List.of("dr", "iad"), "iad", false))
        .isEqualTo(new FencedSites.Unchanged());
    assertThat(FencedSites.read(null, CONFIG).judge(null, "iad", false)).isEqualTo(new FencedSites.Unchanged());
  }

  @Test
  void row3APausedGroupTakesAFenceButHoldsAnUnfence() {
    assertThat(FencedSites.read("dr", CONFIG).judge(List.of(), "iad", true))
        .isEqualTo(new FencedSites.Apply(List.of("dr"), List.of("dr"), List.of(), false, List.of()));
    assertThat(FencedSites.read("pdx", CONFIG).judge(List.of("dr"), "iad", true))
        .isEqualTo(new FencedSites.Apply(List.of("dr", "pdx"), List.of("pdx"), List.of(), false, List.of("dr")));
    assertThat(FencedSites.read(null, CONFIG).judge(List.of("iad"), "iad", true))
        .as("nothing added: the unfence waits for the group to resume").isEqualTo(new FencedSites.Unchanged());
  }

  @Test
  void row4TheValueIsAppliedAndUnfencingTheActiveSiteSaysSo() {
    assertThat(FencedSites.read("dr", CONFIG).judge(null, "iad", false))
        .isEqualTo(new FencedSites.Apply(List.of("dr"), List.of("dr"), List.of(), false, List.of()));
    assertThat(FencedSites.read("pdx", CONFIG).judge(List.of("dr"), "iad", false))
        .isEqualTo(new FencedSites.Apply(List.of("pdx"), List.of("pdx"), List.of("dr"), false, List.of()));
    assertThat(FencedSites.read("", CONFIG).judge(List.of("iad"), "iad", false))
        .isEqualTo(new FencedSites.Apply(List.of(), List.of(), List.of("iad"), true, List.of()));
  }
}
