package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.topology.Fixture.UUID_A;
import static io.shipstream.failover.model.topology.Fixture.UUID_B;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RecoveryTest {

  @Test
  void mysqlOldPrimaryContainedInTheNewPrimaryRejoins() {
    assertThat(Recovery.decide(UUID_A + ":1-100", UUID_A + ":1-100," + UUID_B + ":1-20"))
        .isInstanceOf(Recovery.Rejoin.class);
  }

  @Test
  void mysqlOldPrimaryWithUnreplicatedWritesIsBlockedWithItsDivergentGtid() {
    var decision = Recovery.decide(UUID_A + ":1-100", UUID_A + ":1-95," + UUID_B + ":1-20");

    assertThat(decision).isEqualTo(new Recovery.Blocked(UUID_A + ":96-100", 5, decision.reason()));
    assertThat(decision.reason()).contains("5 transaction(s)").contains(UUID_A + ":96-100");
  }

  @Test
  void mariaDbOldPrimaryContainedInTheNewPrimaryRejoins() {
    assertThat(Recovery.decide("0-1-100", "0-1-100,0-2-150")).isInstanceOf(Recovery.Rejoin.class);
  }

  @Test
  void mariaDbOldPrimaryIsBlockedEvenThoughTheNewPrimaryWrotePastItsSeqnos() {
    // Server 2 was promoted at 0-1-95 and wrote 96..120; the old primary's own 96..100 never left it.
    var decision = Recovery.decide("0-1-100", "0-1-95,0-2-120");

    assertThat(decision).isInstanceOf(Recovery.Blocked.class);
    assertThat(((Recovery.Blocked) decision).divergentGtid()).isEqualTo("0-1-96..100");
    assertThat(((Recovery.Blocked) decision).count()).isEqualTo(5);
  }

  @Test
  void anEmptyOldPrimaryRejoins() {
    assertThat(Recovery.decide("", "0-2-5")).isInstanceOf(Recovery.Rejoin.class);
  }
}
