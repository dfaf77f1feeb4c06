package io.shipstream.failover.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The phases an emergency failover may pre-empt ({@link Phase#isWaiting}: the watcher's
 * KubeEffects cancels a planned failover it finds in one) are exactly those in which the planned
 * runbook has touched nothing yet: Scheduled (waiting for its time) and Deferred (for the cooldown).
 */
class PhaseTest {
  @Test
  void onlyTheWaitsBeforeAnyServerIsTouchedArePreemptible() {
    assertThat(Arrays.stream(Phase.values()).filter(Phase::isWaiting))
        .containsExactly(Phase.Scheduled, Phase.Deferred);
    assertThat(Phase.Scheduled).isLessThan(Phase.Validating).isGreaterThan(Phase.Pending);
    assertThat(Phase.Scheduled.isTerminal()).isFalse();
    assertThat(Phase.Scheduled.isPastPointOfNoReturn()).isFalse();
    assertThat(Phase.isWaiting("Scheduled")).isTrue();
    assertThat(Phase.isWaiting("Deferred")).isTrue();
    assertThat(Phase.isWaiting("Draining")).isFalse();
    assertThat(Phase.isWaiting(null)).isFalse();
    assertThat(Phase.isWaiting("scheduled")).as("as the status spells it").isFalse();
  }

  /** A run ends in Succeeded or Failed; a name the status may hold that is no phase is not an end. */
  @Test
  void onlySucceededAndFailedEndARun() {
    assertThat(Arrays.stream(Phase.values()).filter(Phase::isTerminal)).containsExactly(Phase.Succeeded, Phase.Failed);
    assertThat(Phase.isTerminal("Succeeded")).isTrue();
    assertThat(Phase.isTerminal("Failed")).isTrue();
    assertThat(Phase.isTerminal("Promoting")).isFalse();
    assertThat(Phase.isTerminal(null)).isFalse();
    assertThat(Phase.isTerminal("failed")).as("as the status spells it").isFalse();
  }
}
