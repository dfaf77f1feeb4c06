package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.topology.Fixture.candidate;
import static io.shipstream.failover.model.topology.Fixture.down;
import static io.shipstream.failover.model.topology.Fixture.drOnly;
import static io.shipstream.failover.model.topology.Fixture.group;
import static io.shipstream.failover.model.topology.Fixture.readOnlyRole;
import static io.shipstream.failover.model.topology.Fixture.replica;
import static io.shipstream.failover.model.topology.Fixture.stoppedReplica;
import static io.shipstream.failover.model.topology.Fixture.writable;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.Fixture.Scenario;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Rows 1-8 of the {@link TopologyMatrix} table: at least one site writable, or none reachable. */
class TopologyMatrixTest {
  private static final String GTID = "0-1-100";

  private static GroupConfig candidates(int n) {
    return group(Fixture.names(n).toArray(String[]::new));
  }

  // Row 1

  @Test
  void row1AWritableDrOnlySiteIsFencedBeforeAnythingElseEvenASplitBrain() {
    GroupConfig config = group(List.of(candidate("iad"), candidate("pdx"), drOnly("dr")), List.of("iad"), null);

    Verdict v = Scenario.of(config).sites(writable("iad"), writable("pdx"), writable("dr")).active("iad").evaluate();

    assertThat(v).isEqualTo(new Verdict.FenceNonPromotable(List.of("dr"), v.reason()));
    assertThat(v.reason()).contains("site 'dr' is writable but may never be primary");
  }

  @Test
  void row1EveryWritableNonPromotableSiteIsListedInDeclaredOrderEvenDuringAFailover() {
    GroupConfig config =
        group(candidate("s0"), readOnlyRole("ro"), candidate("s2"), drOnly("dr"), candidate("s4"));

    Verdict v = Scenario.of(config)
        .sites(down("s0", GTID), replica("s2", GTID), replica("s4", GTID), writable("dr"), writable("ro"))
        .active("s0").running().evaluate();

    assertThat(v).isInstanceOf(Verdict.FenceNonPromotable.class);
    assertThat(((Verdict.FenceNonPromotable) v).sites()).containsExactly("ro", "dr");
    assertThat(v.reason()).contains("sites 'ro', 'dr' are writable");
  }

  @Test
  void row1AFencedSiteThatIsWritableIsFencedEvenTheActiveOne() {
    GroupConfig config = group(candidate("iad"), candidate("pdx"), drOnly("dr"));

    Verdict replica = Scenario.of(config).sites(writable("iad"), writable("pdx"), replica("dr", GTID)).active("iad")
        .fenced("pdx").evaluate();
    Verdict active = Scenario.of(config).sites(writable("iad"), replica("pdx", GTID), replica("dr", GTID))
        .active("iad").fenced("iad").evaluate();

    assertThat(replica).isEqualTo(new Verdict.FenceNonPromotable(List.of("pdx"), replica.reason()));
    assertThat(replica.reason()).isEqualTo("site 'pdx' is writable but fenced (" + FencedSites.ANNOTATION
        + "): fencing");
    assertThat(active).isEqualTo(new Verdict.FenceNonPromotable(List.of("iad"), active.reason()));
  }

  // Row 2

  @ParameterizedTest
  @ValueSource(ints = {2, 3, 5})
  void row2EverySiteUnreachableIsTotalLoss(int n) {
    Scenario s = Scenario.of(candidates(n)).active("s0");
    Fixture.names(n).forEach(name -> s.site(name, down(name, GTID)));

    Verdict v = s.evaluate();

    assertThat(v).isInstanceOf(Verdict.TotalLoss.class);
    assertThat(v.reason()).contains("every site is unreachable");
  }

  @Test
  void row2NotTotalLossWhileOneSiteHasNoVerdictYet() {
    Verdict v = Scenario.of(candidates(3)).sites(down("s0", GTID), down("s1")).active("s0").evaluate();

    assertThat(v).isInstanceOf(Verdict.NoPrimary.class);
    assertThat(v.reason()).contains("waiting for a verdict on site 's2'");
  }

  // Rows 3-6

  @Test
  void row3SplitBrainWhileAFailoverRunsIsAlertOnly() {
    GroupConfig config = group(List.of(candidate("iad"), candidate("pdx")), List.of("iad"), null);

    Verdict v = Scenario.of(config).sites(writable("iad"), writable("pdx")).running().evaluate();

    assertThat(v).isEqualTo(new Verdict.SplitBrain(List.of("iad", "pdx"), null, List.of(), v.reason()));
    assertThat(((Verdict.SplitBrain) v).alertOnly()).isTrue();
    assertThat(v.reason()).contains("failover workflow is running");
  }

  @Test
  void row4TwoSitesKeepTheHighestPriority() {
    GroupConfig config = group(List.of(candidate("iad"), candidate("pdx")), List.of("pdx", "iad"), null);

    Verdict v = Scenario.of(config).sites(writable("iad"), writable("pdx")).active("iad")
        .lastFailover(Fixture.T0, "iad").evaluate();

    assertThat(v).isEqualTo(new Verdict.SplitBrain(List.of("iad", "pdx"), "pdx", List.of("iad"), v.reason()));
    assertThat(v.reason()).contains("keeping 'pdx' because it is the highest writable site in "
        + "splitBrainPolicy.sitePriorities, fencing site 'iad'");
  }

  @Test
  void row4FiveSitesKeepTheHighestListedWritableAndFenceTheOtherWritableOnes() {
    GroupConfig config =
        group(Fixture.names(5).stream().map(Fixture::candidate).toList(), List.of("s4", "s3", "s1"), null);

    Verdict v = Scenario.of(config)
        .sites(writable("s0"), writable("s1"), replica("s2", GTID), writable("s3"), down("s4", GTID))
        .active("s0").evaluate();

    assertThat(v).isEqualTo(new Verdict.SplitBrain(List.of("s0", "s1", "s3"), "s3", List.of("s0", "s1"), v.reason()));
    assertThat(((Verdict.SplitBrain) v).alertOnly()).isFalse();
  }

  @Test
  void row5NoListedSiteWritableKeepsTheLastFailoverTarget() {
    GroupConfig config = group(Fixture.names(3).stream().map(Fixture::candidate).toList(), List.of("s0"), null);

    Verdict v = Scenario.of(config).sites(down("s0", GTID), writable("s1"), writable("s2"))
        .active("s2").lastFailover(Fixture.T0, "s2").evaluate();

    assertThat(v).isEqualTo(new Verdict.SplitBrain(List.of("s1", "s2"), "s2", List.of("s1"), v.reason()));
    assertThat(v.reason()).contains("because it is the target of the last failover");
  }

  @Test
  void row5WithoutPrioritiesTheLastFailoverTargetIsKept() {
    Verdict v = Scenario.of(candidates(2)).sites(writable("s0"), writable("s1"))
        .active("s1").lastFailover(Fixture.T0, "s1").evaluate();

    assertThat(v).isEqualTo(new Verdict.SplitBrain(List.of("s0", "s1"), "s1", List.of("s0"), v.reason()));
  }

  @Test
  void row6NoPriorityAndNoLastFailoverIsAlertOnly() {
    Verdict v = Scenario.of(candidates(3)).sites(writable("s0"), writable("s1"), replica("s2", GTID))
        .active("s0").evaluate();

    assertThat(v).isEqualTo(new Verdict.SplitBrain(List.of("s0", "s1"), null, List.of(), v.reason()));
    assertThat(v.reason()).contains("a human must choose");
  }

  @Test
  void row6SaysWhichWritableSitesTheirSidecarsFenceAndWhichAwaitAHuman() {
    SiteSpec s1 = Fixture.candidate("s1");
    SiteSpec guarded = new SiteSpec(s1.name(), s1.role(), s1.zone(), s1.mysql(), s1.podSelector(),
        s1.taintNodeSelector(), s1.lbIP(), new SiteSpec.Sidecar("http://s1-sidecar:8080"), s1.dragonfly());
    GroupConfig config = group(Fixture.candidate("s0"), guarded, Fixture.candidate("s2"));

    Verdict.SplitBrain v = (Verdict.SplitBrain) Scenario.of(config)
        .sites(writable("s0"), writable("s1"), writable("s2")).active("s0").evaluate();

    assertThat(v.keep()).isNull();
    assertThat(v.reason()).endsWith("the status names 's0' active, so the sidecar of site 's1' fences it (rule 1); "
        + "the watcher fences nothing; site 's2' without a sidecar: alert only, a human must choose");
    Verdict.SplitBrain none = (Verdict.SplitBrain) Scenario.of(config).sites(writable("s0"), writable("s1")).evaluate();
    assertThat(none.reason()).contains("alert only, a human must choose (no site is recorded active");
  }

  @Test
  void row6ALastFailoverTargetThatIsNotWritableDoesNotDecide() {
    Verdict v = Scenario.of(candidates(3)).sites(writable("s0"), writable("s1"), replica("s2", GTID))
        .lastFailover(Fixture.T0, "s2").evaluate();

    assertThat(((Verdict.SplitBrain) v).alertOnly()).isTrue();
  }

  // Rows 7-8

  @ParameterizedTest
  @ValueSource(ints = {2, 3, 5})
  void row8OneWritableSiteAndEveryOtherReplicatingIsHealthy(int n) {
    Scenario s = Scenario.of(candidates(n)).site("s0", writable("s0", GTID)).active("s0");
    Fixture.names(n).stream().skip(1).forEach(name -> s.site(name, replica(name, GTID)));

    assertThat(s.evaluate()).isEqualTo(new Verdict.Healthy("s0"));
  }

  @Test
  void row8HealthyWithoutARecordedActiveSiteSoAFreshGroupCanRecordIt() {
    Verdict v = Scenario.of(candidates(2)).sites(replica("s0", GTID), writable("s1")).evaluate();

    assertThat(v).isEqualTo(new Verdict.Healthy("s1"));
    assertThat(v.reason()).contains("site 's1' is the only writable site");
  }

  @Test
  void row8ANonPromotableReplicaCountsLikeAnyOther() {
    GroupConfig config = group(candidate("iad"), candidate("pdx"), drOnly("dr"));

    assertThat(Scenario.of(config).sites(writable("iad"), replica("pdx", GTID), replica("dr", GTID)).active("iad")
        .evaluate()).isEqualTo(new Verdict.Healthy("iad"));
  }

  @Test
  void row7AnUnreachableReplicaIsDegradedNotAFailover() {
    Verdict v =
        Scenario.of(candidates(3)).sites(writable("s0"), down("s1"), replica("s2", GTID)).active("s0").evaluate();

    assertThat(v).isEqualTo(new Verdict.Degraded("s0", "site 's1' is unreachable"));
  }

  @Test
  void row7FiveSitesListEveryProblem() {
    GroupConfig config =
        group(candidate("s0"), candidate("s1"), candidate("s2"), drOnly("s3"), candidate("s4"));

    Verdict v = Scenario.of(config)
        .sites(writable("s0"), stoppedReplica("s1", GTID), down("s3"), replica("s4", GTID))
        .active("s0").evaluate();

    assertThat(v).isEqualTo(new Verdict.Degraded("s0", "site 's1' is read-only but not replicating; "
        + "site 's2' has no verdict yet; site 's3' is unreachable"));
  }

  @Test
  void row7TheOnlyWritableSiteIsNotTheRecordedActiveSite() {
    Verdict v = Scenario.of(candidates(2)).sites(replica("s0", GTID), writable("s1")).active("s0").evaluate();

    assertThat(v).isEqualTo(new Verdict.Degraded("s1", "site 's1' is writable but the recorded active site is 's0'"));
  }

  @Test
  void row7AReplicaThatJustMissedOnePollIsNotJudgedOnThatPoll() {
    // Debounced READ_ONLY, latest poll lost: its replication cannot be judged, and one lost poll is not a problem.
    SiteObservation blip = new SiteObservation(SiteState.READ_ONLY, Probe.unreachable("s1", "timeout", Fixture.T0),
        Fixture.readOnlyProbe("s1", GTID, null, false));

    assertThat(Scenario.of(candidates(2)).sites(writable("s0")).site("s1", blip).active("s0").evaluate())
        .isEqualTo(new Verdict.Healthy("s0"));
  }
}
