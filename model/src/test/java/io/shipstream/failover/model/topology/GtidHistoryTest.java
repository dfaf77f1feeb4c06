package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.topology.Fixture.UUID_A;
import static io.shipstream.failover.model.topology.Fixture.UUID_B;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.model.gtid.GtidSet;
import org.junit.jupiter.api.Test;

class GtidHistoryTest {
  private static GtidSet g(String text) {
    return GtidSet.parse(text);
  }

  @Test
  void mysqlIsPlainContainment() {
    assertThat(GtidHistory.includes(g(UUID_A + ":1-100"), g(UUID_A + ":1-90"))).isTrue();
    assertThat(GtidHistory.missing(g(UUID_A + ":1-90"), g(UUID_A + ":1-100"))).hasToString(UUID_A + ":91-100");
    assertThat(GtidHistory.missing(g(UUID_A + ":1-100"), g(UUID_A + ":1-100," + UUID_B + ":1")))
        .hasToString(UUID_B + ":1");
  }

  @Test
  void mariaDbBehindByPositionMissesTheRangeAfterIt() {
    assertThat(GtidHistory.includes(g("0-1-100"), g("0-1-95"))).isTrue();
    assertThat(GtidHistory.missing(g("0-1-95"), g("0-1-100"))).hasToString("0-1-96..100");
  }

  @Test
  void mariaDbSameSeqnoWrittenByAnotherServerIsNotIncluded() {
    // Plain position comparison says each contains the other; they hold different transaction 100.
    assertThat(g("0-2-100").contains(g("0-1-100"))).isTrue();

    assertThat(GtidHistory.includes(g("0-2-100"), g("0-1-100"))).isFalse();
    assertThat(GtidHistory.missing(g("0-2-100"), g("0-1-100"))).hasToString("0-1-100..100");
  }

  @Test
  void mariaDbOldPrimarysUnreplicatedWritesAreSeenAfterTheNewPrimaryWrotePastThem() {
    // Server 1 wrote up to 100, server 2 had only 95 when promoted and then wrote 96..120.
    GtidSet oldPrimary = g("0-1-100");
    GtidSet newPrimary = g("0-1-95,0-2-120");

    assertThat(newPrimary.contains(oldPrimary)).as("positions alone miss it").isTrue();
    assertThat(GtidHistory.missing(newPrimary, oldPrimary)).hasToString("0-1-96..100");
    assertThat(GtidHistory.includes(g("0-1-100,0-2-120"), oldPrimary)).isTrue();
  }

  @Test
  void mariaDbOldPrimarysUnreplicatedWritesAreCountedWholeWhileTheNewPrimaryHasWrittenFewerOfItsOwn() {
    // Server 1 wrote up to 100, server 2 had only 95 when promoted and then wrote 96..98: server 1's
    // 96..100 are all missing (found on real servers by HungGuardIT's frozen sidecar, which
    // counted only 99..100 before).
    GtidSet oldPrimary = g("0-1-100");
    GtidSet newPrimary = g("0-1-95,0-2-98");

    assertThat(GtidHistory.missing(newPrimary, oldPrimary)).hasToString("0-1-96..100");
    assertThat(GtidHistory.missing(newPrimary, oldPrimary).count()).isEqualTo(5);
  }

  @Test
  void mariaDbDomainsAreJudgedSeparately() {
    // A whole domain missing is all of it, which prints as the position 2-3-4 (4 transactions).
    GtidSet missing = GtidHistory.missing(g("0-1-100,1-5-7"), g("0-1-100,1-5-9,2-3-4"));

    assertThat(missing).hasToString("1-5-8..9,2-3-4");
    assertThat(missing.count()).isEqualTo(6);
  }

  @Test
  void emptySetsOfEitherNotationAreIncludedAndIncludeNothing() {
    assertThat(GtidHistory.includes(g(""), g(""))).isTrue();
    assertThat(GtidHistory.includes(g("0-1-5"), g(""))).isTrue();
    assertThat(GtidHistory.missing(g(""), g("0-1-5"))).hasToString("0-1-5");
    assertThat(GtidHistory.missing(g(""), g(UUID_A + ":1-5"))).hasToString(UUID_A + ":1-5");
  }

  @Test
  void mixedNotationsAreAnError() {
    assertThatThrownBy(() -> GtidHistory.missing(g(UUID_A + ":1-5"), g("0-1-5")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> GtidHistory.missing(g("0-1-5"), g(UUID_A + ":1-5")))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
