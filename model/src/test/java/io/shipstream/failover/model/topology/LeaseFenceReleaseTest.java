package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.topology.Fixture.candidate;
import static io.shipstream.failover.model.topology.Fixture.down;
import static io.shipstream.failover.model.topology.Fixture.drOnly;
import static io.shipstream.failover.model.topology.Fixture.group;
import static io.shipstream.failover.model.topology.Fixture.replica;
import static io.shipstream.failover.model.topology.Fixture.stoppedReplica;
import static io.shipstream.failover.model.topology.Fixture.writable;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.topology.LeaseFenceRelease.Decision;
import io.shipstream.failover.model.topology.LeaseFenceRelease.Keep;
import io.shipstream.failover.model.topology.LeaseFenceRelease.Lift;
import io.shipstream.failover.model.topology.LeaseFenceRelease.SidecarFence;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every row of the {@link LeaseFenceRelease} table. */
class LeaseFenceReleaseTest {
  private static final GroupConfig CONFIG = group(List.of(candidate("iad"), candidate("pdx"), drOnly("dr")), List.of(),
      null);
  private static final SidecarFence LEASE_FENCE_BACK = new SidecarFence("rule2", true);

  /** iad fenced by its sidecar (read-only, no source) at 0-1-100; pdx and dr replicas that hold all of it. */
  private static Map<String, SiteObservation> fencedPrimary() {
    Map<String, SiteObservation> sites = new HashMap<>();
    sites.put("iad", stoppedReplica("iad", "0-1-100"));
    sites.put("pdx", replica("pdx", "0-1-100"));
    sites.put("dr", replica("dr", "0-1-98"));
    return sites;
  }

  private static Decision decide(Map<String, SiteObservation> sites, boolean running, SidecarFence sidecar) {
    return LeaseFenceRelease.decide(CONFIG, sites, "iad", List.of(), running, sidecar);
  }

  private static void assertKept(Decision d, String because) {
    assertThat(d).isInstanceOf(Keep.class);
    assertThat(d.reason()).contains(because);
    assertThat(((Keep) d).askSidecar()).isFalse();
  }

  @Test
  void row1NoActiveSiteOfTheSpec() {
    assertKept(LeaseFenceRelease.decide(CONFIG, fencedPrimary(), null, null, false, LEASE_FENCE_BACK),
        "no active site");
    assertKept(LeaseFenceRelease.decide(CONFIG, fencedPrimary(), "sfo", null, false, LEASE_FENCE_BACK),
        "no active site");
  }

  @Test
  void row1bTheActiveSiteFencedByADbaStaysFencedEvenBehindALeaseFence() {
    assertKept(LeaseFenceRelease.decide(CONFIG, fencedPrimary(), "iad", List.of("dr", "iad"), false, LEASE_FENCE_BACK),
        "fenced by a DBA");
  }

  @Test
  void row2TheActiveSiteIsWritableOrDidNotAnswer() {
    Map<String, SiteObservation> sites = fencedPrimary();
    sites.put("iad", writable("iad", "0-1-100"));
    assertKept(decide(sites, false, LEASE_FENCE_BACK), "did not answer read-only");
    sites.put("iad", down("iad", "0-1-100"));
    assertKept(decide(sites, false, LEASE_FENCE_BACK), "did not answer read-only");
  }

  @Test
  void row3AFailoverRuns() {
    assertKept(decide(fencedPrimary(), true, LEASE_FENCE_BACK), "a failover runs");
  }

  @Test
  void row4TheActiveSiteReplicates() {
    Map<String, SiteObservation> sites = fencedPrimary();
    sites.put("iad", replica("iad", "0-1-100"));
    assertKept(decide(sites, false, LEASE_FENCE_BACK), "replicates from a source");
  }

  @Test
  void row5AnotherSiteDidNotAnswerOrIsWritable() {
    Map<String, SiteObservation> sites = fencedPrimary();
    sites.put("dr", down("dr"));
    assertKept(decide(sites, false, LEASE_FENCE_BACK), "site 'dr' did not answer");
    sites.remove("dr");
    assertKept(decide(sites, false, LEASE_FENCE_BACK), "site 'dr' did not answer");
    sites.put("dr", replica("dr", "0-1-100"));
    sites.put("pdx", writable("pdx", "0-1-100"));
    assertKept(decide(sites, false, LEASE_FENCE_BACK), "site 'pdx' is writable");
  }

  @Test
  void row6AGtidSetThatCannotBeRead() {
    Map<String, SiteObservation> sites = fencedPrimary();
    sites.put("pdx", replica("pdx", "not a set"));
    assertKept(decide(sites, false, LEASE_FENCE_BACK), "cannot be compared");
  }

  @Test
  void row7AnotherSiteWasWrittenPastTheActiveSite() {
    Map<String, SiteObservation> sites = fencedPrimary();
    // pdx was promoted and written meanwhile, then fenced again: iad must not take writes beside that history.
    sites.put("pdx", replica("pdx", "0-1-100,0-2-103"));
    assertKept(decide(sites, false, LEASE_FENCE_BACK), "site 'pdx' holds 3 transaction(s) the active site 'iad' lacks");
  }

  @Test
  void row8WithoutTheSidecarsWordTheSidecarIsToBeAsked() {
    Decision d = decide(fencedPrimary(), false, null);
    assertThat(d).isInstanceOf(Keep.class);
    assertThat(((Keep) d).askSidecar()).isTrue();
  }

  @Test
  void row9AReadOnlyTheSidecarDidNotSetByRule2StaysForAHuman() {
    assertKept(decide(fencedPrimary(), false, new SidecarFence(null, true)), "the sidecar did not fence it");
    assertKept(decide(fencedPrimary(), false, new SidecarFence("rule1", true)), "its fence is rule1");
    assertKept(decide(fencedPrimary(), false, new SidecarFence("boot", true)), "its fence is boot");
  }

  @Test
  void row10TheSidecarStillCutOff() {
    assertKept(decide(fencedPrimary(), false, new SidecarFence("rule2", false)), "still hears from neither");
  }

  @Test
  void row11LiftedWhenNothingElseExplainsTheFence() {
    Decision d = decide(fencedPrimary(), false, LEASE_FENCE_BACK);
    assertThat(d).isInstanceOf(Lift.class);
    assertThat(((Lift) d).site()).isEqualTo("iad");
    assertThat(d.reason()).contains("longer than its lease").contains("no failover ran");
  }
}
