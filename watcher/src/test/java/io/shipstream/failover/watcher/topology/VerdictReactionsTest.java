package io.shipstream.failover.watcher.topology;

import static io.shipstream.failover.watcher.topology.Fixtures.NOW;
import static io.shipstream.failover.watcher.topology.Fixtures.ORDERS;
import static io.shipstream.failover.watcher.topology.Fixtures.dead;
import static io.shipstream.failover.watcher.topology.Fixtures.replica;
import static io.shipstream.failover.watcher.topology.Fixtures.writable;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.model.topology.SiteDebouncer;
import io.shipstream.failover.model.topology.SiteObservation;
import io.shipstream.failover.model.topology.SiteState;
import io.shipstream.failover.model.topology.TopologyMatrix;
import io.shipstream.failover.model.topology.Verdict;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class VerdictReactionsTest {
  private final Fixtures.RecordingEffects effects = new Fixtures.RecordingEffects();
  private final VerdictReactions reactions = new VerdictReactions(effects);
  /** What the monitor keeps about the group while its polls run. */
  private final GroupMemory memory = new GroupMemory();

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

    Verdict first = reactions.react(memory, ORDERS, primaryDead(config, null));
    reactions.react(memory, ORDERS, primaryDead(config, null));
    reactions.react(memory, ORDERS, primaryDead(config, null));

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
  void aPrimaryThatAnswersAPollRightBeforeTheStartWritableOrReadOnlyCancelsIt() {
    GroupConfig config = Fixtures.config("0s", List.of());
    effects.beforeStart = writable("iad", "0-1-10");
    assertThat(reactions.react(memory, ORDERS, primaryDead(config, null))).isInstanceOf(Verdict.Promote.class);
    // Restarted from a configuration that starts it read-only: it answers, so it is not dead either.
    effects.beforeStart = replica("iad", "0-1-10");
    reactions.react(memory, ORDERS, primaryDead(config, null));

    assertThat(effects.polledBeforeStart).containsExactly("iad", "iad");
    assertThat(effects.starts()).isEmpty();
    assertThat(effects.events()).noneMatch(e -> e.contains("EmergencyFailoverStarted"));

    effects.beforeStart = dead("iad");
    reactions.react(memory, ORDERS, primaryDead(config, null));
    assertThat(effects.starts()).as("still dead right before the start").hasSize(1);
    reactions.react(memory, ORDERS, primaryDead(config, null));
    assertThat(effects.polledBeforeStart).as("no poll while its failover runs").hasSize(3);
  }

  @Test
  void theSetsPassedToTheFailoverLeaveOutASiteThatStoppedAnsweringEarlier() {
    GroupConfig config = Fixtures.config("0s", List.of());
    TopologyMatrix.Input drGoneToo = input(config, "iad", null,
        seen(SiteState.UNREACHABLE, dead("iad"), writable("iad", "0-1-10")),
        seen(SiteState.READ_ONLY, replica("pdx", "0-1-10"), replica("pdx", "0-1-10")),
        seen(SiteState.UNREACHABLE, dead("dr"), replica("dr", "0-1-4")));

    reactions.react(memory, ORDERS, drGoneToo);

    assertThat(effects.startSiteGtids).singleElement().isEqualTo(Map.of("iad", "0-1-10", "pdx", "0-1-10"));
  }

  @Test
  void anAlertIsOneEventPerChangeOfSituationNotOnePerPoll() {
    GroupConfig config = Fixtures.config("0s", List.of());
    TopologyMatrix.Input totalLoss = input(config, "iad", null,
        seen(SiteState.UNREACHABLE, dead("iad"), null), seen(SiteState.UNREACHABLE, dead("pdx"), null),
        seen(SiteState.UNREACHABLE, dead("dr"), null));

    for (int i = 0; i < 5; i++) {
      reactions.react(memory, ORDERS, totalLoss);
    }
    reactions.react(memory, ORDERS, healthy(config));
    reactions.react(memory, ORDERS, totalLoss);

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

    reactions.react(memory, ORDERS, drWritable);
    reactions.react(memory, ORDERS, drWritable);

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

    reactions.react(memory, ORDERS, both);

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

    Verdict v = reactions.react(memory, ORDERS, both);

    assertThat(v).isInstanceOfSatisfying(Verdict.SplitBrain.class, sb -> assertThat(sb.alertOnly()).isTrue());
    assertThat(effects.fenced).isEmpty();
    assertThat(effects.activeSites).isEmpty();
    assertThat(effects.events()).singleElement().asString().contains("alert only");
  }

  @Test
  void aFailoverInsideTheCooldownIsBlockedWithTheCauseInTheEvent() {
    GroupConfig config = Fixtures.config("5m", List.of());

    reactions.react(memory, ORDERS, primaryDead(config, NOW.minusSeconds(60)));
    reactions.react(memory, ORDERS, primaryDead(config, NOW.minusSeconds(60)));

    assertThat(effects.starts()).isEmpty();
    assertThat(effects.events()).singleElement().asString().startsWith("Warning FailoverBlocked: CooldownActive: ");
  }

  @Test
  void noWritableSiteWhileAFailoverRunsIsExpectedAndReportedOnlyOnPollsTakenAfterItEnded() {
    GroupConfig config = Fixtures.config("0s", List.of());
    effects.running = true;

    reactions.react(memory, ORDERS, fencedPrimary(config, NOW, NOW));
    effects.running = false;
    reactions.react(memory, ORDERS, fencedPrimary(config, NOW, NOW.plusMillis(100)));
    assertThat(effects.events()).as("the polls may predate the end of the failover").isEmpty();

    reactions.react(memory, ORDERS, fencedPrimary(config, NOW.plusMillis(600), NOW.plusMillis(600)));
    reactions.react(memory, ORDERS, fencedPrimary(config, NOW.plusMillis(1100), NOW.plusMillis(1100)));

    assertThat(effects.events()).singleElement().asString().startsWith("Warning NoPrimaryDetected: ");
  }

  /** Every site answers read-only, polled at {@code polledAt}, evaluated at {@code now}. */
  private static TopologyMatrix.Input fencedPrimary(GroupConfig config, Instant polledAt, Instant now) {
    Map<String, SiteObservation> sites = new LinkedHashMap<>();
    for (String site : List.of("iad", "pdx", "dr")) {
      Probe p = at(replica(site, "0-1-10"), polledAt);
      sites.put(site, seen(SiteState.READ_ONLY, p, p));
    }
    return new TopologyMatrix.Input(config, sites, "iad", null, null, false, now);
  }

  /**
   * The emergency failover iad -> pdx as the monitor sees it, through the real debouncers: pdx is
   * named active and promoted, the workflow ends, and the first polls after that still show pdx
   * read-only (taken before the promotion) and then writable once, short of recoveryThreshold.
   * Neither is a missing primary: no NoPrimaryDetected may follow a successful failover.
   */
  @Test
  void aSuccessfulEmergencyPromotionIsNotFollowedByNoPrimaryDetected() {
    GroupConfig config = Fixtures.config("0s", List.of());
    Map<String, SiteDebouncer> sites = new LinkedHashMap<>();
    for (String site : List.of("iad", "pdx", "dr")) {
      sites.put(site, SiteDebouncer.start(site, config));
    }
    Instant t = NOW;
    observe(sites, at(writable("iad", "0-1-10"), t), at(replica("pdx", "0-1-10"), t), at(replica("dr", "0-1-10"), t));
    for (int i = 1; i <= 3; i++) {
      t = NOW.plusMillis(500L * i);
      observe(sites, at(dead("iad"), t), at(replica("pdx", "0-1-10"), t), at(replica("dr", "0-1-10"), t));
    }
    reactions.react(memory, ORDERS, input(config, sites, "iad", t));
    assertThat(effects.starts()).singleElement().satisfies(p -> assertThat(p.candidate()).isEqualTo("pdx"));

    // The workflow names pdx active and promotes it; while it runs nothing is reported.
    reactions.react(memory, ORDERS, input(config, sites, "pdx", t.plusMillis(200)));
    // It has ended; pdx's latest poll (t) was taken before the promotion.
    effects.running = false;
    reactions.react(memory, ORDERS, input(config, sites, "pdx", t.plusMillis(600)));
    // pdx's next poll: writable, once.
    observe(sites, at(dead("iad"), t.plusMillis(1000)), at(writable("pdx", "0-1-11"), t.plusMillis(1000)),
        at(replica("dr", "0-1-11"), t.plusMillis(1000)));
    Verdict turning = reactions.react(memory, ORDERS, input(config, sites, "pdx", t.plusMillis(1010)));
    // And again: trusted.
    observe(sites, at(dead("iad"), t.plusMillis(1500)), at(writable("pdx", "0-1-12"), t.plusMillis(1500)),
        at(replica("dr", "0-1-12"), t.plusMillis(1500)));
    Verdict settled = reactions.react(memory, ORDERS, input(config, sites, "pdx", t.plusMillis(1510)));

    assertThat(turning).isInstanceOf(Verdict.Degraded.class);
    assertThat(settled).isEqualTo(new Verdict.Degraded("pdx", "site 'iad' is unreachable"));
    assertThat(effects.events()).extracting(e -> e.substring(0, e.indexOf(':')))
        .containsExactly("Warning EmergencyFailoverStarted");
  }

  private static void observe(Map<String, SiteDebouncer> sites, Probe... probes) {
    for (Probe p : probes) {
      sites.put(p.site(), sites.get(p.site()).observe(p));
    }
  }

  private static TopologyMatrix.Input input(GroupConfig config, Map<String, SiteDebouncer> sites, String active,
      Instant now) {
    Map<String, SiteObservation> observations = new LinkedHashMap<>();
    sites.forEach((site, d) -> observations.put(site, d.observation()));
    return new TopologyMatrix.Input(config, observations, active, null, null, false, now);
  }

  private static Probe at(Probe p, Instant at) {
    return new Probe(p.site(), p.reachable(), p.readOnly(), p.gtidExecuted(), p.serverId(), p.replicating(),
        p.secondsBehindSource(), p.error(), at);
  }
}
