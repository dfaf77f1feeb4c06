package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.topology.Fixture.UUID_A;
import static io.shipstream.failover.model.topology.Fixture.UUID_B;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TransactionsLostTest {

  @Test
  void mysqlCountsWhatThePromotedReplicaNeverReceived() {
    TransactionsLost lost = TransactionsLost.between(UUID_A + ":1-100", UUID_A + ":1-95");

    assertThat(lost).isEqualTo(new TransactionsLost(true, 5, UUID_A + ":96-100"));
  }

  @Test
  void mariaDbCountsTheSeqnosAfterThePromotedPosition() {
    assertThat(TransactionsLost.between("0-1-100,1-1-7", "0-1-95,1-1-7"))
        .isEqualTo(new TransactionsLost(true, 5, "0-1-96..100"));
  }

  @Test
  void nothingLostWhenThePromotedReplicaWasCaughtUp() {
    assertThat(TransactionsLost.between(UUID_A + ":1-100", UUID_A + ":1-100," + UUID_B + ":1-3"))
        .isEqualTo(new TransactionsLost(true, 0, ""));
    assertThat(TransactionsLost.between("0-1-100", "0-1-100")).isEqualTo(new TransactionsLost(true, 0, ""));
  }

  @Test
  void anOldPrimaryNeverSeenIsUnknownNotZero() {
    TransactionsLost lost = TransactionsLost.between(null, "0-1-95");

    assertThat(lost.known()).isFalse();
  }
}
