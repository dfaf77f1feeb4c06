package io.shipstream.failover.watcher.topology;

import static io.shipstream.failover.watcher.topology.Fixtures.NOW;
import static io.shipstream.failover.watcher.topology.Fixtures.ORDERS;
import static io.shipstream.failover.watcher.topology.Fixtures.dead;
import static io.shipstream.failover.watcher.topology.Fixtures.replica;
import static io.shipstream.failover.watcher.topology.Fixtures.writable;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.model.topology.SiteObservation;
import io.shipstream.failover.model.topology.SiteState;
import io.shipstream.failover.model.topology.TopologyMatrix;
import io.shipstream.failover.model.topology.Verdict;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReactionsTest {
  private final Fixtures.RecordingEffects effects = new Fixtures.RecordingEffects();
  private final Reactions reactions = new Reactions(effects);

  private static SiteObservation seen(SiteState state, Probe probe, Probe lastReachable) {
    return new SiteObservation(state, probe, lastReachable);
  }

  private static TopologyMatrix.Input input(GroupConfig config, String active, Instant lastFailover,
      SiteObservation iad, SiteObservation pdx, SiteObservation dr) {
    Map<String, SiteObservation> sites = new LinkedHashMap<>();
    sites.put("iad", iad);
    sites.put("pdx", pdx);
    sites.put("dr", dr);
    return new TopologyMatrix.Input(config, sites, active, lastFailover, null, false, NOW);
  }

  private static TopologyMatrix.Input primaryDead(GroupConfig config, Instant lastFailover) {
    return input(config, "iad", lastFailover,
        seen(SiteState.UNREACHABLE, dead("iad"), writable("iad", "0-1-10")),
        seen(SiteState.READ_ONLY, replica("pdx", "0-1-10"), replica("pdx", "0-1-10")),
        seen(SiteState.READ_ONLY, replica("dr", "0-1-9"), replica("dr", "0-1-9")));
  }

  private static TopologyMatrix.Input healthy(GroupConfig config) {
    return input(config, "iad", null,
        seen(SiteState.WRITABLE, writable("iad", "0-1-10"), writable("iad", "0-1-10")),
        seen(SiteState.READ_ONLY, replica("pdx", "0-1-10"), replica("pdx", "0-1-10")),
        seen(SiteState.READ_ONLY, replica("dr", "0-1-10"), replica("dr", "0-1-10")));
  }

  @Test
  void aDeadPrimaryStartsOneEmergencyFailoverToTheFreshestCandidateWithItsLastGtid() {
    GroupConfig config = Fixtures.config("0s", List.of());

    Verdict first = reactions.react(ORDERS, primaryDead(config, null));
    reactions.react(ORDERS, primaryDead(config, null));
    reactions.react(ORDERS, primaryDead(config, null));

    assertThat(first).isInstanceOf(Verdict.Promote.class);
    assertThat(effects.starts()).singleElement().satisfies(p -> {
      assertThat(p.failedSite()).isEqualTo("iad");
      assertThat(p.candidate()).isEqualTo("pdx");
      assertThat(p.failedSiteLastGtid()).isEqualTo("0-1-10");
    });
    assertThat(effects.startSiteGtids).singleElement().as("every answering site's set and the failed one's last")
        .isEqualTo(Map.of("iad", "0-1-10", "pdx", "0-1-10", "dr", "0-1-9"));
    assertThat(effects.events()).singleElement().asString().startsWith("Warning EmergencyFailoverStarted: ");
  }

  @Test
  void theSetsPassedToTheFailoverLeaveOutASiteThatStoppedAnsweringEarlier() {
    GroupConfig config = Fixtures.config("0s", List.of());
    TopologyMatrix.Input drGoneToo = input(config, "iad", null,
        seen(SiteState.UNREACHABLE, dead("iad"), writable("iad", "0-1-10")),
        seen(SiteState.READ_ONLY, replica("pdx", "0-1-10"), replica("pdx", "0-1-10")),
        seen(SiteState.UNREACHABLE, dead("dr"), replica("dr", "0-1-4")));

    reactions.react(ORDERS, drGoneToo);

    assertThat(effects.startSiteGtids).singleElement().isEqualTo(Map.of("iad", "0-1-10", "pdx", "0-1-10"));
  }

  @Test
  void anAlertIsOneEventPerChangeOfSituationNotOnePerPoll() {
    GroupConfig config = Fixtures.config("0s", List.of());
    TopologyMatrix.Input totalLoss = input(config, "iad", null,
        seen(SiteState.UNREACHABLE, dead("iad"), null), seen(SiteState.UNREACHABLE, dead("pdx"), null),
        seen(SiteState.UNREACHABLE, dead("dr"), null));

    for (int i = 0; i < 5; i++) {
      reactions.react(ORDERS, totalLoss);
    }
    reactions.react(ORDERS, healthy(config));
    reactions.react(ORDERS, totalLoss);

    assertThat(effects.events()).hasSize(2).allSatisfy(e -> assertThat(e).startsWith("Warning TotalLossDetected: "));
    assertThat(effects.starts()).isEmpty();
  }

  @Test
  void aWritableDrOnlySiteIsFencedOnEveryPollAndReportedOnce() {
    GroupConfig config = Fixtures.config("0s", List.of());
    TopologyMatrix.Input drWritable = input(config, "iad", null,
        seen(SiteState.WRITABLE, writable("iad", "0-1-10"), writable("iad", "0-1-10")),
        seen(SiteState.READ_ONLY, replica("pdx", "0-1-10"), replica("pdx", "0-1-10")),
        seen(SiteState.WRITABLE, writable("dr", "0-1-10"), writable("dr", "0-1-10")));

    reactions.react(ORDERS, drWritable);
    reactions.react(ORDERS, drWritable);

    assertThat(effects.fenced).containsExactly("dr", "dr");
    assertThat(effects.events()).singleElement().asString().startsWith("Warning NonPromotableSiteFenced: ");
  }

  @Test
  void aSplitBrainResolvedBySitePrioritiesFencesTheOtherAndRecordsTheKeptSiteAsActive() {
    GroupConfig config = Fixtures.config("0s", List.of("pdx", "iad"));
    TopologyMatrix.Input both = input(config, "iad", null,
        seen(SiteState.WRITABLE, writable("iad", "0-1-10"), writable("iad", "0-1-10")),
        seen(SiteState.WRITABLE, writable("pdx", "0-1-10"), writable("pdx", "0-1-10")),
        seen(SiteState.READ_ONLY, replica("dr", "0-1-10"), replica("dr", "0-1-10")));

    reactions.react(ORDERS, both);

    assertThat(effects.fenced).containsExactly("iad");
    assertThat(effects.activeSites).containsExactly("pdx");
    assertThat(effects.events()).singleElement().asString().startsWith("Warning SplitBrainDetected: ");
  }

  @Test
  void aSplitBrainWhileAFailoverRunsIsOnlyReported() {
    GroupConfig config = Fixtures.config("0s", List.of("pdx", "iad"));
    effects.running = true;
    TopologyMatrix.Input both = input(config, "iad", null,
        seen(SiteState.WRITABLE, writable("iad", "0-1-10"), writable("iad", "0-1-10")),
        seen(SiteState.WRITABLE, writable("pdx", "0-1-10"), writable("pdx", "0-1-10")),
        seen(SiteState.READ_ONLY, replica("dr", "0-1-10"), replica("dr", "0-1-10")));

    Verdict v = reactions.react(ORDERS, both);

    assertThat(v).isInstanceOfSatisfying(Verdict.SplitBrain.class, sb -> assertThat(sb.alertOnly()).isTrue());
    assertThat(effects.fenced).isEmpty();
    assertThat(effects.activeSites).isEmpty();
    assertThat(effects.events()).singleElement().asString().contains("alert only");
  }

  @Test
  void aFailoverInsideTheCooldownIsBlockedWithTheCauseInTheEvent() {
    GroupConfig config = Fixtures.config("5m", List.of());

    reactions.react(ORDERS, primaryDead(config, NOW.minusSeconds(60)));
    reactions.react(ORDERS, primaryDead(config, NOW.minusSeconds(60)));

    assertThat(effects.starts()).isEmpty();
    assertThat(effects.events()).singleElement().asString().startsWith("Warning FailoverBlocked: CooldownActive: ");
  }

  @Test
  void noWritableSiteWhileAFailoverRunsIsExpectedAndNotReported() {
    GroupConfig config = Fixtures.config("0s", List.of());
    effects.running = true;
    TopologyMatrix.Input fencedPrimary = input(config, "iad", null,
        seen(SiteState.READ_ONLY, replica("iad", "0-1-10"), replica("iad", "0-1-10")),
        seen(SiteState.READ_ONLY, replica("pdx", "0-1-10"), replica("pdx", "0-1-10")),
        seen(SiteState.READ_ONLY, replica("dr", "0-1-10"), replica("dr", "0-1-10")));

    reactions.react(ORDERS, fencedPrimary);
    effects.running = false;
    reactions.react(ORDERS, fencedPrimary);
    reactions.react(ORDERS, fencedPrimary);

    assertThat(effects.events()).singleElement().asString().startsWith("Warning NoPrimaryDetected: ");
  }
}
