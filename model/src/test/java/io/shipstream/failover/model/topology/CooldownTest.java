package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.topology.Fixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class CooldownTest {
  private static final Duration FIVE_MINUTES = Duration.ofMinutes(5);

  @Test
  void activeFromTheFailoverUntilJustBeforeItsEnd() {
    assertThat(Cooldown.activeUntil(FIVE_MINUTES, T0, T0)).contains(T0.plus(FIVE_MINUTES));
    assertThat(Cooldown.activeUntil(FIVE_MINUTES, T0, T0.plus(FIVE_MINUTES).minusMillis(1))).isPresent();
    assertThat(Cooldown.activeUntil(FIVE_MINUTES, T0, T0.plus(FIVE_MINUTES))).isEmpty();
  }

  @Test
  void neverActiveWithoutAFailoverOrWithAZeroCooldown() {
    assertThat(Cooldown.activeUntil(FIVE_MINUTES, null, T0)).isEmpty();
    assertThat(Cooldown.activeUntil(Duration.ZERO, T0, T0)).isEmpty();
  }

  @Test
  void aFailoverStampedInTheFutureKeepsTheCooldownUntilItsEnd() {
    assertThat(Cooldown.activeUntil(FIVE_MINUTES, T0.plusSeconds(30), T0)).contains(T0.plusSeconds(330));
  }
}
