package io.shipstream.failover.watcher.topology;

import static io.shipstream.failover.watcher.topology.Fixtures.NOW;
import static io.shipstream.failover.watcher.topology.Fixtures.ORDERS;
import static io.shipstream.failover.watcher.topology.Fixtures.dead;
import static io.shipstream.failover.watcher.topology.Fixtures.replica;
import static io.shipstream.failover.watcher.topology.Fixtures.writable;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.topology.PromoteAnywayAnnotation;
import io.shipstream.failover.model.topology.SiteObservation;
import io.shipstream.failover.model.topology.SiteState;
import io.shipstream.failover.model.topology.TopologyMatrix;
import io.shipstream.failover.model.topology.Verdict;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The lag limit as the watcher acts on it: the FailoverBlocked alert, and what becomes of a
 * promote-anyway annotation (spent by the forced start, rejected when invalid, removed when moot).
 */
class PromoteAnywayReactionsTest {
  private static final String KEY = PromoteAnywayAnnotation.ANNOTATION;
  private final Fixtures.RecordingEffects effects = new Fixtures.RecordingEffects();
  private final VerdictReactions reactions = new VerdictReactions(effects);
  /** What the monitor keeps about the group while its polls run. */
  private final GroupMemory memory = new GroupMemory();

  /** The fixture group with a cooldown of 0 and maxLagOnPromotion 2. */
  private static GroupConfig limited() {
    MysqlFailoverGroupSpec s = Fixtures.spec("0s", List.of());
    return GroupConfig.resolve(new MysqlFailoverGroupSpec(s.sites(), s.credentialsSecretRef(), s.pollInterval(),
        s.failureThreshold(), s.recoveryThreshold(), s.failoverCooldown(), s.connectionDrainTimeout(),
        s.plannedFailover(), s.splitBrainPolicy(), s.dns(), s.sidecar(), s.dragonfly(),
        new MysqlFailoverGroupSpec.EmergencyFailoverSpec(2L), s.minSourceSilence(), s.semiSync()));
  }

  /** iad died at 0-1-10; pdx executed and received 0-1-5: five behind, over the limit of 2. */
  private static TopologyMatrix.Input pdxBehind() {
    SiteObservation pdx = new SiteObservation(SiteState.READ_ONLY, replica("pdx", "0-1-5").withReceivedGtid("0-1-5"),
        replica("pdx", "0-1-5"));
    return new TopologyMatrix.Input(limited(), Map.of(
        "iad", new SiteObservation(SiteState.UNREACHABLE, dead("iad"), writable("iad", "0-1-10")),
        "pdx", pdx,
        "dr", new SiteObservation(SiteState.READ_ONLY, replica("dr", "0-1-5"), replica("dr", "0-1-5"))),
        "iad", null, null, false, NOW);
  }

  private static TopologyMatrix.Input healthy() {
    return new TopologyMatrix.Input(limited(), Map.of(
        "iad", new SiteObservation(SiteState.WRITABLE, writable("iad", "0-1-10"), writable("iad", "0-1-10")),
        "pdx", new SiteObservation(SiteState.READ_ONLY, replica("pdx", "0-1-10"), replica("pdx", "0-1-10")),
        "dr", new SiteObservation(SiteState.READ_ONLY, replica("dr", "0-1-10"), replica("dr", "0-1-10"))),
        "iad", null, null, false, NOW);
  }

  private static Optional<PromoteAnywayAnnotation> annotation(String value) {
    return PromoteAnywayAnnotation.read(value, limited());
  }

  @Test
  void aCandidateOverTheLimitIsBlockedOnceAndNotPromoted() {
    Verdict v = reactions.react(memory, ORDERS, pdxBehind(), null, Optional.empty());
    reactions.react(memory, ORDERS, pdxBehind(), null, Optional.empty());

    assertThat(v).isInstanceOf(Verdict.Blocked.class).extracting("cause")
        .isEqualTo(Verdict.Cause.CandidateTooFarBehind);
    assertThat(effects.starts()).isEmpty();
    assertThat(effects.events()).singleElement().asString()
        .startsWith("Warning FailoverBlocked: CandidateTooFarBehind: the active site 'iad' is unreachable; site 'pdx' "
            + "had not received 5 transaction(s) of the last known set of 'iad' (0-1-6..10), more than "
            + "spec.emergencyFailover.maxLagOnPromotion 2");
  }

  @Test
  void theOverrideStartsTheFailoverOnceRecordsItAndIsSpent() {
    reactions.react(memory, ORDERS, pdxBehind(), null, Optional.empty());

    Verdict v = reactions.react(memory, ORDERS, pdxBehind(), null, annotation("pdx"));
    // The informer's copy may still carry the annotation for a moment: nothing happens twice.
    reactions.react(memory, ORDERS, pdxBehind(), null, annotation("pdx"));

    assertThat(v).isInstanceOf(Verdict.Promote.class);
    assertThat(effects.starts()).singleElement().satisfies(p -> {
      assertThat(p.candidate()).isEqualTo("pdx");
      assertThat(p.lagOverride()).isEqualTo(new Verdict.LagOverride(5L, "0-1-6..10", 2));
    });
    assertThat(effects.removedAnnotations).containsExactly(KEY + "=pdx");
    assertThat(effects.events()).hasSize(3).last().asString().isEqualTo("Warning PromotedOverLagLimit: promoting pdx "
        + "over the lag limit as " + KEY + "=pdx requests: it had not received 5 transaction(s) of iad (0-1-6..10), "
        + "limit 2; they are lost unless another survivor holds them; request removed");
  }

  @Test
  void theRequestOnTheResourceOutlivesAWatcherRestart() {
    reactions.react(memory, ORDERS, pdxBehind(), null, Optional.empty());
    Fixtures.RecordingEffects afterRestart = new Fixtures.RecordingEffects();

    new VerdictReactions(afterRestart).react(new GroupMemory(), ORDERS, pdxBehind(), null, annotation("pdx"));

    assertThat(afterRestart.starts()).singleElement().extracting(Verdict.Promote::forced).isEqualTo(true);
    assertThat(afterRestart.removedAnnotations).containsExactly(KEY + "=pdx");
  }

  @Test
  void anInvalidRequestIsReportedOnceAndChangesNothing() {
    reactions.react(memory, ORDERS, pdxBehind(), null, annotation("sfo"));
    reactions.react(memory, ORDERS, pdxBehind(), null, annotation("sfo"));

    assertThat(effects.starts()).isEmpty();
    assertThat(effects.removedAnnotations).isEmpty();
    assertThat(effects.events()).hasSize(2).last().asString().isEqualTo("Warning PromoteAnywayRejected: the " + KEY
        + " annotation names 'sfo', which is not a site of the group; nothing was changed, remove or correct the "
        + "annotation");
  }

  @Test
  void aRequestNamingAnotherSiteThanTheBlockedOneIsRemovedWithoutPromoting() {
    reactions.react(memory, ORDERS, pdxBehind(), null, annotation("iad"));

    assertThat(effects.starts()).isEmpty();
    assertThat(effects.removedAnnotations).containsExactly(KEY + "=iad");
    assertThat(effects.events()).last().asString().contains("the candidate held back by the lag limit is 'pdx'");
  }

  @Test
  void aRequestOnAGroupWithAPrimaryIsRemovedSoItNeverForcesALaterFailover() {
    reactions.react(memory, ORDERS, healthy(), null, annotation("pdx"));
    Verdict later = reactions.react(memory, ORDERS, pdxBehind(), null, Optional.empty());

    assertThat(effects.removedAnnotations).containsExactly(KEY + "=pdx");
    assertThat(effects.events()).first().asString().startsWith("Warning PromoteAnywayRejected: ")
        .contains("a site is writable");
    assertThat(later).isInstanceOf(Verdict.Blocked.class);
    assertThat(effects.starts()).isEmpty();
  }
}
