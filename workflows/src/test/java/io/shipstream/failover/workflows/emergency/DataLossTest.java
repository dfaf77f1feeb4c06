package io.shipstream.failover.workflows.emergency;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Transactions lost = the old primary's set minus the promoted one, in both notations, and never a made-up zero. */
class DataLossTest {
  static final String A = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
  static final String B = "4f22ab58-82db-22f2-af44-d91bba53a673";

  @Test
  void mariaDbLossIsTheSeqnosAfterThePromotedPosition() {
    DataLoss loss = DataLoss.between("0-1-100", "0-1-97");
    assertThat(loss.transactions()).isEqualTo(3);
    assertThat(loss.lostGtid()).isEqualTo("0-1-98..100");
    assertThat(loss.any()).isTrue();
  }

  @Test
  void mysqlLossCountsEveryMissingTransactionOfEverySource() {
    DataLoss loss = DataLoss.between(A + ":1-100," + B + ":1-5", A + ":1-90," + B + ":1-5");
    assertThat(loss.transactions()).isEqualTo(10);
    assertThat(loss.lostGtid()).isEqualTo(A + ":91-100");
  }

  @Test
  void aPromotedServerAheadOfTheLastKnownSetLosesNothing() {
    DataLoss loss = DataLoss.between("0-1-100", "0-1-120");
    assertThat(loss.transactions()).isZero();
    assertThat(loss.lostGtid()).isNull();
    assertThat(loss.any()).isFalse();
    assertThat(loss.known()).isTrue();
  }

  @Test
  void theLossCountsWhatAnySurvivingReplicaHeldNotOnlyTheOldPrimarysLastKnownSet() {
    // The watcher last saw iad at 100; dr had received 103 by the time it died.
    DataLoss loss = DataLoss.between("0-1-100", java.util.Arrays.asList("0-1-103", null, "0-1-98"), "0-1-101");
    assertThat(loss.transactions()).isEqualTo(2);
    assertThat(loss.lostGtid()).isEqualTo("0-1-102..103");

    DataLoss mysql = DataLoss.between(A + ":1-100", java.util.List.of(A + ":1-90," + B + ":1-2"), A + ":1-100");
    assertThat(mysql.transactions()).isEqualTo(2);
    assertThat(mysql.lostGtid()).isEqualTo(B + ":1-2");
  }

  @Test
  void anOldPrimaryWithoutTransactionsLosesNothing() {
    assertThat(DataLoss.between("", "0-1-5").transactions()).isZero();
  }

  @Test
  void aNeverSeenOldPrimaryMakesTheLossUnknownNotZero() {
    DataLoss loss = DataLoss.between(null, "0-1-100");
    assertThat(loss.known()).isFalse();
    assertThat(loss.transactions()).isNull();
    assertThat(loss.unknownBecause()).contains("never seen");
  }

  @Test
  void setsThatCannotBeComparedMakeTheLossUnknown() {
    assertThat(DataLoss.between(A + ":1-5", "0-1-100").unknownBecause()).contains("cannot compare");
    assertThat(DataLoss.between("garbage!", "0-1-100").known()).isFalse();
  }

  @Test
  void theClaimNamesWhatItWasCheckedAgainst() {
    DataLoss none = DataLoss.between("0-1-100", "0-1-100");
    assertThat(none.claim("iad", true))
        .isEqualTo("0 of the transactions iad held at its fence and the survivors had seen were lost");
    // Not read at the fence: iad may have committed more than anybody saw, so no plain "0 lost".
    assertThat(none.claim("iad", false)).startsWith("0 of the transactions the survivors had seen were lost")
        .contains("iad could not be read at the fence");
    assertThat(DataLoss.between(null, "0-1-100").claim("iad", false)).isEqualTo("transactions lost unknown");
    assertThat(DataLoss.computedFrom("iad", false, 2, "pdx"))
        .isEqualTo("iad's GTID set as last seen before it failed (it could not be read at the fence), with 2 set(s) "
            + "of the other servers as last seen, against pdx's set read right after its promotion");
  }
}
