package io.shipstream.failover.model.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.Specs;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.PromoteAnywayAnnotation.Forced;
import io.shipstream.failover.model.topology.PromoteAnywayAnnotation.Invalid;
import io.shipstream.failover.model.topology.PromoteAnywayAnnotation.Moot;
import io.shipstream.failover.model.topology.PromoteAnywayAnnotation.Outcome;
import io.shipstream.failover.model.topology.PromoteAnywayAnnotation.Pending;
import io.shipstream.failover.model.topology.Verdict.Blocked;
import io.shipstream.failover.model.topology.Verdict.Cause;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The promote-anyway annotation: its grammar, and the table of its outcomes by verdict. */
class PromoteAnywayAnnotationTest {
  private static final GroupConfig GROUP = GroupConfig.resolve(Specs.withSites(List.of(
      Specs.site("iad", null), Specs.site("pdx", null), Specs.site("dr", SiteSpec.ROLE_DR_ONLY))));

  private static final Verdict.LagOverride OVER = new Verdict.LagOverride(6L, "0-1-95..100", 5);

  @Test
  void absentIsNoRequest() {
    assertThat(PromoteAnywayAnnotation.read(null, GROUP)).isEmpty();
  }

  @Test
  void aCandidateSiteIsARequest() {
    assertThat(PromoteAnywayAnnotation.read(" pdx ", GROUP))
        .contains(new PromoteAnywayAnnotation(" pdx ", "pdx", null));
  }

  @ParameterizedTest(name = "''{0}'' is rejected: {1}")
  @CsvSource(delimiter = '|', value = {
      "''          | is empty",
      "PDX         | is not a site name",
      "pdx:force   | is not a site name",
      "pdx,iad     | is not a site name",
      "sfo         | names 'sfo', which is not a site of the group",
      "dr          | names 'dr', whose role dr-only may never be primary",
  })
  void badValuesAreInvalidWhateverTheVerdict(String value, String why) {
    Optional<PromoteAnywayAnnotation> a = PromoteAnywayAnnotation.read(value, GROUP);

    assertThat(a).get().extracting(PromoteAnywayAnnotation::valid).isEqualTo(false);
    Outcome blocked = a.get().judge(new Blocked(Cause.CandidateTooFarBehind, "iad", "x", "pdx"));
    assertThat(blocked).isInstanceOf(Invalid.class);
    assertThat(((Invalid) blocked).why()).contains(why).contains("nothing was changed");
  }

  @Test
  void theTableOfOutcomes() {
    PromoteAnywayAnnotation pdx = PromoteAnywayAnnotation.read("pdx", GROUP).orElseThrow();

    assertThat(pdx.judge(new Verdict.Promote("iad", "pdx", "0-1-100", "r", OVER))).isEqualTo(new Forced());
    assertThat(pdx.judge(new Blocked(Cause.CandidateTooFarBehind, "pdx", "r", "iad"))).isInstanceOf(Moot.class)
        .extracting("why").asString().contains("the candidate held back by the lag limit is 'iad'");
    assertThat(pdx.judge(new Verdict.Healthy("iad"))).isInstanceOf(Moot.class)
        .extracting("why").asString().contains("a site is writable");
    assertThat(pdx.judge(new Verdict.Degraded("iad", "r"))).isInstanceOf(Moot.class);
    assertThat(pdx.judge(new Verdict.SplitBrain(List.of("iad", "pdx"), null, List.of(), "r"))).isInstanceOf(Moot.class);
    assertThat(pdx.judge(new Verdict.FenceNonPromotable(List.of("dr"), "r"))).isInstanceOf(Moot.class);
    // No block to override yet (or no longer one): kept, never acted on.
    assertThat(pdx.judge(new Blocked(Cause.CandidateTooFarBehind, "iad", "r", "pdx"))).isEqualTo(new Pending());
    assertThat(pdx.judge(new Blocked(Cause.CooldownActive, "iad", "r"))).isEqualTo(new Pending());
    assertThat(pdx.judge(new Verdict.NoPrimary("r"))).isEqualTo(new Pending());
    assertThat(pdx.judge(new Verdict.TotalLoss("r"))).isEqualTo(new Pending());
    assertThat(pdx.judge(new Verdict.Promote("iad", "pdx", "0-1-100", "r"))).isEqualTo(new Pending());
    assertThat(pdx.judge(new Verdict.Promote("pdx", "iad", "0-1-100", "r", OVER))).isEqualTo(new Pending());
  }
}
