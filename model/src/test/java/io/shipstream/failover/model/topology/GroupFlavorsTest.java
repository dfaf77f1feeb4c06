package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.Specs.site;
import static io.shipstream.failover.model.Specs.withSites;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.crd.SiteSpec;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The flavors the watcher saw, against each other and against the declared ones. */
class GroupFlavorsTest {
  private static final Instant AT = Instant.parse("2026-11-25T00:00:00Z");

  /**
   * Per site (iad, pdx, dr): declared flavor / flavor the latest poll named / the last answering
   * poll's; '-' for none. The expected problem, or '-' for none.
   */
  @ParameterizedTest(name = "{0} | {1} | {2} -> {3}")
  @CsvSource(delimiter = '|', textBlock = """
      -/MariaDB/-     | -/MariaDB/-  | -/-/-          | -
      -/MySQL/-       | -/MySQL/-    | -/-/-          | -
      mysql/-/-       | -/MySQL/-    | -/-/-          | -
      -/MariaDB/-     | -/MySQL/-    | -/-/-          | a group mixes MariaDB and MySQL (iad is MariaDB; pdx is MySQL)
      -/MariaDB/-     | -/-/-        | mysql/-/-      | a group mixes MariaDB and MySQL (iad is MariaDB; dr is MySQL)
      -/-/MySQL       | -/MariaDB/-  | -/-/-          | a group mixes MariaDB and MySQL (pdx is MariaDB; iad is MySQL)
      mariadb/MySQL/- | -/MySQL/-    | -/-/-          | site 'iad' declares flavor: mariadb but its server is MySQL
      -/MySQL/MariaDB | -/MySQL/-    | -/-/-          | -
      """)
  void table(String iad, String pdx, String dr, String expected) {
    Map<String, String> cells = Map.of("iad", iad, "pdx", pdx, "dr", dr);
    Map<String, SiteObservation> observations = new HashMap<>();
    List<SiteSpec> sites = new java.util.ArrayList<>();
    for (String name : List.of("iad", "pdx", "dr")) {
      String[] c = cells.get(name).split("/");
      sites.add(site(name, name.equals("dr") ? "dr-only" : null).withFlavor(none(c[0])));
      Probe latest = Probe.unreachable(name, "refused", AT).withFlavor(none(c[1]));
      Probe lastReachable = new Probe(name, true, true, null, null, false, null, null, AT).withFlavor(none(c[2]));
      observations.put(name, new SiteObservation(SiteState.READ_ONLY, latest, lastReachable));
    }
    List<String> problems = GroupFlavors.problems(GroupConfig.resolve(withSites(sites)), observations);
    if (expected.equals("-")) {
      assertThat(problems).isEmpty();
    } else {
      assertThat(problems).singleElement().asString().startsWith(expected);
    }
  }

  private static String none(String cell) {
    return cell.equals("-") ? null : cell;
  }
}
