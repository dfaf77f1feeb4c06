package io.shipstream.failover.watcher.topology;

import static io.shipstream.failover.watcher.topology.Fixtures.NOW;
import static io.shipstream.failover.watcher.topology.Fixtures.ORDERS;
import static io.shipstream.failover.watcher.topology.Fixtures.dead;
import static io.shipstream.failover.watcher.topology.Fixtures.replica;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.WorkflowRef;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.topology.PrimaryConfirmation.Judged;
import io.shipstream.failover.model.topology.PrimaryConfirmation.Outcome;
import io.shipstream.failover.model.topology.PrimaryConfirmation.Result;
import io.shipstream.failover.model.topology.SiteObservation;
import io.shipstream.failover.model.topology.SiteState;
import io.shipstream.failover.model.topology.TopologyMatrix;
import io.shipstream.failover.model.topology.Verdict;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The hand-off of issue 31, item 1: a planned failover's fenced source that its replicas confirm
 * dead ends the run (told once, no FailoverBlocked meanwhile), and the emergency failover starts at
 * the first evaluation after the run ended, with no second debounce and no cooldown.
 */
class PlannedSourceDeathReactionsTest {
  private final Fixtures.RecordingEffects effects = new Fixtures.RecordingEffects();
  private final VerdictReactions reactions = new VerdictReactions(effects);
  /** What the monitor keeps about the group while its polls run. */
  private final GroupMemory memory = new GroupMemory();
  private final GroupConfig config = Fixtures.config("5m", List.of());

  /** iad fenced by the run (read-only by the debounce), its latest poll failed just now. */
  private TopologyMatrix.Input sourceJustDied(boolean plannedHolds) {
    Map<String, SiteObservation> sites = new LinkedHashMap<>();
    sites.put("iad", new SiteObservation(SiteState.READ_ONLY, dead("iad"), replica("iad", "0-1-10")));
    sites.put("pdx", new SiteObservation(SiteState.READ_ONLY, replica("pdx", "0-1-8"), replica("pdx", "0-1-8")));
    sites.put("dr", new SiteObservation(SiteState.READ_ONLY, replica("dr", "0-1-8"), replica("dr", "0-1-8")));
    return new TopologyMatrix.Input(config, sites, "iad", null, null, plannedHolds, NOW);
  }

  private static MysqlFailoverGroupStatus planned(String phase) {
    return MysqlFailoverGroupStatus.empty().withActiveSite("iad").withPlannedFailover(new PlannedFailoverStatus(phase,
        "pdx", "iad", "0-1-10", null, NOW.toString(), null, null, null, null, null, null, null))
        .withWorkflow(new WorkflowRef("PlannedFailover", "failover-shop-orders", "run-1"));
  }

  private static Result replicas(Outcome outcome) {
    return new Result(outcome, Map.of("pdx", Judged.LOST, "dr", Judged.LOST), "'pdx' lost it, 'dr' lost it");
  }

  @Test
  void theRunIsToldOnceWithoutABlockedAlertAndTheEmergencyFailoverStartsOnceItEnded() {
    for (int i = 0; i < 3; i++) {
      assertThat(reactions.handOff(memory, ORDERS, planned("WaitingForLag"), sourceJustDied(true),
          replicas(Outcome.CONFIRMED_DEAD))).isTrue();
      Verdict v =
          reactions.react(memory, ORDERS, sourceJustDied(true), replicas(Outcome.CONFIRMED_DEAD), Optional.empty());
      assertThat(v).isInstanceOf(Verdict.Blocked.class);
    }
    assertThat(effects.toldSourceDied).singleElement().asString().startsWith("run-1: its source 'iad' is dead")
        .contains("'pdx' lost it");
    assertThat(effects.events()).as("the hand-off is no block").isEmpty();
    assertThat(effects.starts()).isEmpty();

    // The run ended SourceCrashed: the same confirmation starts the emergency failover, inside the
    // cooldown of nothing (no lastFailover) and without waiting for failureThreshold polls.
    assertThat(
        reactions.handOff(memory, ORDERS, planned("Failed"), sourceJustDied(false), replicas(Outcome.CONFIRMED_DEAD)))
        .isFalse();
    Verdict v =
        reactions.react(memory, ORDERS, sourceJustDied(false), replicas(Outcome.CONFIRMED_DEAD), Optional.empty());
    assertThat(v).isInstanceOf(Verdict.Promote.class);
    assertThat(effects.starts()).singleElement().extracting(Verdict.Promote::candidate).isEqualTo("pdx");
    assertThat(effects.toldSourceDied).hasSize(1);
  }

  @Test
  void aSourceItsReplicasStillHearIsNotDeadAndTheRunGoesOn() {
    assertThat(reactions.handOff(memory, ORDERS, planned("WaitingForLag"), sourceJustDied(true),
        new Result(Outcome.ALIVE, Map.of("pdx", Judged.RECEIVING), "'pdx' still receives from it"))).isFalse();
    assertThat(reactions.handOff(memory, ORDERS, planned("WaitingForLag"), sourceJustDied(true),
        replicas(Outcome.UNCONFIRMED))).isFalse();
    assertThat(effects.toldSourceDied).isEmpty();
  }

  @Test
  void anEmergencyRunOrARunPastItsPointOfNoReturnIsNotTold() {
    MysqlFailoverGroupStatus emergency = planned("WaitingForLag").withWorkflow(new WorkflowRef("EmergencyFailover",
        "failover-shop-orders", "run-2"));
    assertThat(reactions.handOff(memory, ORDERS, emergency, sourceJustDied(true), replicas(Outcome.CONFIRMED_DEAD)))
        .isFalse();
    assertThat(
        reactions.handOff(memory, ORDERS, planned("Promoting"), sourceJustDied(true), replicas(Outcome.CONFIRMED_DEAD)))
        .isFalse();
    assertThat(effects.toldSourceDied).isEmpty();
  }
}
