package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.topology.Fixture.T0;
import static io.shipstream.failover.model.topology.Fixture.readOnlyProbe;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.topology.PrimaryConfirmation.Judged;
import io.shipstream.failover.model.topology.PrimaryConfirmation.Outcome;
import io.shipstream.failover.model.topology.PrimaryConfirmation.Result;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The rows of {@link PlannedSourceDeath}: when the watcher tells a planned run that its source is dead. */
class PlannedSourceDeathTest {
  /** iad fenced by the planned run (read-only), then its latest poll failed. */
  private static final SiteObservation DEAD = new SiteObservation(SiteState.READ_ONLY,
      Probe.unreachable("iad", "connection refused", T0.plusSeconds(2)), readOnlyProbe("iad", "0-1-100", "1", false));
  private static final SiteObservation ANSWERING = new SiteObservation(SiteState.READ_ONLY,
      readOnlyProbe("iad", "0-1-100", "1", false), readOnlyProbe("iad", "0-1-100", "1", false));

  private static Result replicasSay(Outcome o) {
    return new Result(o, Map.of("pdx", o == Outcome.ALIVE ? Judged.RECEIVING : Judged.LOST), "'pdx' "
        + (o == Outcome.ALIVE ? "still receives from it" : "lost it (IO thread Connecting, error 2003)"));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"Draining", "WaitingForLag", "WaitingForDragonflySync", "Validating", "Pending"})
  void h7AConfirmedDeathBeforeTheSessionStoreChangesMastersIsTold(String phase) {
    PlannedSourceDeath.Decision d = PlannedSourceDeath.decide(phase, "iad", "iad", DEAD,
        replicasSay(Outcome.CONFIRMED_DEAD));
    assertThat(d.tell()).as(d.why()).isTrue();
    assertThat(d.why()).contains("'iad' is dead").contains("'pdx' lost it");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"Scheduled", "Deferred", "Succeeded", "Failed"})
  void h1NoRunPastItsWaitingIsTold(String phase) {
    assertThat(PlannedSourceDeath.decide(phase, "iad", "iad", DEAD, replicasSay(Outcome.CONFIRMED_DEAD)))
        .extracting(PlannedSourceDeath.Decision::tell, d -> d.why().substring(0, 3)).containsExactly(false, "h1:");
    assertThat(PlannedSourceDeath.decide(null, null, "iad", DEAD, replicasSay(Outcome.CONFIRMED_DEAD)).tell())
        .isFalse();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"PromotingDragonfly", "Promoting", "Resuming"})
  void h2ARunThatOnlyGoesForwardIsNotTold(String phase) {
    assertThat(PlannedSourceDeath.decide(phase, "iad", "iad", DEAD, replicasSay(Outcome.CONFIRMED_DEAD)).why())
        .startsWith("h2:");
  }

  @Test
  void h3AnotherSiteThanTheActiveOneIsNotTheRunsSource() {
    assertThat(PlannedSourceDeath.decide("WaitingForLag", "pdx", "iad", DEAD, replicasSay(Outcome.CONFIRMED_DEAD))
        .why()).startsWith("h3:");
    assertThat(PlannedSourceDeath.decide("WaitingForLag", null, "iad", DEAD, replicasSay(Outcome.CONFIRMED_DEAD))
        .why()).startsWith("h3:");
  }

  @Test
  void h4ASourceThatAnswersTheWatcherIsAlive() {
    assertThat(PlannedSourceDeath.decide("WaitingForLag", "iad", "iad", ANSWERING,
        replicasSay(Outcome.CONFIRMED_DEAD)).why()).startsWith("h4:");
    assertThat(PlannedSourceDeath.decide("WaitingForLag", "iad", "iad", null, replicasSay(Outcome.CONFIRMED_DEAD))
        .why()).startsWith("h4:");
  }

  @Test
  void h5ASourceCutOffFromTheWatcherThatItsReplicasStillHearIsNotDead() {
    PlannedSourceDeath.Decision d = PlannedSourceDeath.decide("WaitingForLag", "iad", "iad", DEAD,
        replicasSay(Outcome.ALIVE));
    assertThat(d.tell()).isFalse();
    assertThat(d.why()).startsWith("h5:").contains("still receive").contains("the run goes on");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"UNCONFIRMED", "RECHECK", "NOT_NEEDED"})
  void h6WithoutTheReplicasConfirmationTheRunKeepsWaiting(Outcome outcome) {
    assertThat(PlannedSourceDeath.decide("WaitingForLag", "iad", "iad", DEAD, replicasSay(outcome)).why())
        .startsWith("h6:");
    assertThat(PlannedSourceDeath.decide("WaitingForLag", "iad", "iad", DEAD, null).why()).startsWith("h6:");
  }
}
