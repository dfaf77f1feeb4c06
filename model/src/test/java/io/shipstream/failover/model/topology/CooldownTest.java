package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.topology.Fixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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

  /**
   * Where the cooldown starts, from the status (issue 31 item 2): the last promotion that took
   * effect, never a failover rolled back before its promotion. A status written before {@code
   * lastPromotion} existed counts its {@code lastFailover} when that record carries the promotion
   * point, which only a promotion's record does.
   */
  @ParameterizedTest(name = "lastFailover={0} promotionGtid={1} lastPromotion={2} -> {3}")
  @CsvSource(nullValues = "-", value = {
      // a promotion recorded since lastPromotion exists
      "2026-01-01T10:00:00Z, 0-2-9, 2026-01-01T10:00:00Z, 2026-01-01T10:00:00Z",
      // then a failover rolled back: lastFailover moved on, its record has no promotion point
      "2026-01-01T10:03:00Z, -,     2026-01-01T10:00:00Z, 2026-01-01T10:00:00Z",
      // a group whose only failover was rolled back: no cooldown at all
      "2026-01-01T10:03:00Z, -,     -,                    -",
      // a status written before lastPromotion existed, last record a promotion's
      "2026-01-01T10:00:00Z, 0-2-9, -,                    2026-01-01T10:00:00Z",
      // a group that never failed over
      "-,                    -,     -,                    -"})
  void theCooldownStartsAtTheLastPromotionThatTookEffect(String lastFailover, String promotionGtid,
      String lastPromotion, String since) {
    MysqlFailoverGroupStatus status = new MysqlFailoverGroupStatus("pdx", lastFailover, "pdx", promotionGtid, null,
        null, null, null, null, null, null, null, null, lastPromotion);
    assertThat(status.cooldownSince()).isEqualTo(since);
  }
}
