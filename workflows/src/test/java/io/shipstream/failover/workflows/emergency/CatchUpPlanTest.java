package io.shipstream.failover.workflows.emergency;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.workflows.emergency.CatchUpPlan.Choice;
import io.shipstream.failover.workflows.emergency.CatchUpPlan.Survivor;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which surviving replica, if any, the candidate catches up from before it is promoted. */
class CatchUpPlanTest {
  static final String A = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
  static final String B = "4f22ab58-82db-22f2-af44-d91bba53a673";
  static final String C = "5a33bc69-93ec-33a3-b055-ea2ccbb47840";

  @Test
  void survivorsThatHoldNothingMoreNeedNoCatchUp() {
    Choice choice = CatchUpPlan.choose("pdx", "0-1-100", "0-1-100",
        List.of(new Survivor("dr", "0-1-95", "0-1-100"), new Survivor("ro", "0-1-100", null)));

    assertThat(choice.needed()).isFalse();
    assertThat(choice.warnings()).isEmpty();
  }

  @Test
  void aFresherDrOnlyReplicaIsTheDonorAndWhatItsIoThreadReceivedCounts() {
    Choice choice = CatchUpPlan.choose("pdx", "0-1-100", "0-1-100",
        List.of(new Survivor("dr", "0-1-101", "0-1-103")));

    assertThat(choice.donor()).isEqualTo("dr");
    assertThat(choice.missing()).isEqualTo("0-1-101..103");
    assertThat(choice.transactions()).isEqualTo(3);
    assertThat(choice.warnings()).isEmpty();
  }

  @Test
  void theSurvivorTheCandidateLacksMostOfWinsThenTheFirstGiven() {
    Choice most = CatchUpPlan.choose("pdx", "0-1-100", null, List.of(new Survivor("ro", "0-1-101", null),
        new Survivor("dr", "0-1-104", null), new Survivor("dr2", "0-1-104", null)));

    assertThat(most.donor()).isEqualTo("dr");
    assertThat(most.transactions()).isEqualTo(4);
  }

  @Test
  void transactionsTheCandidateAlreadyReceivedNeedNoDonor() {
    // The relay-log drain ran out of time; promotion applies what is left of it.
    Choice choice = CatchUpPlan.choose("pdx", "0-1-100", "0-1-103", List.of(new Survivor("dr", "0-1-103", null)));

    assertThat(choice.needed()).isFalse();
    assertThat(choice.warnings()).isEmpty();
  }

  @Test
  void aSurvivorThatWouldDropWhatOnlyTheCandidateReceivedIsNotUsed() {
    // dr holds a transaction of B that pdx never got, but not the last two of A that pdx's relay
    // log holds: catching up replaces that relay log.
    Choice choice = CatchUpPlan.choose("pdx", A + ":1-100", A + ":1-105",
        List.of(new Survivor("dr", A + ":1-103," + B + ":1", null)));

    assertThat(choice.needed()).isFalse();
    assertThat(choice.warnings()).singleElement().asString()
        .contains("dr holds " + A + ":101-103," + B + ":1 that pdx has not applied")
        .contains("lacks " + A + ":104-105 that pdx received");
  }

  @Test
  void aMariaDbSurvivorWithItsOwnTransactionsBeyondTheCandidateIsDivergentAndNotUsed() {
    // dr never got pdx's 0-1-100 and wrote of its own (server id 3) up to seqno 101: under
    // gtid_strict_mode its own writes follow 0-1-99 at once, so it holds 0-3-100 and 0-3-101, both
    // after the last seqno the two list for one writer (99).
    Choice choice = CatchUpPlan.choose("pdx", "0-1-100", null, List.of(new Survivor("dr", "0-1-99,0-3-101", null)));

    assertThat(choice.needed()).isFalse();
    assertThat(choice.warnings()).singleElement().asString()
        .contains("dr holds 0-3-100..101 that pdx lacks, but lacks 0-1-100..100 that pdx holds: divergent");
  }

  @Test
  void aMysqlDonorMustHoldEveryTransactionOfTheCandidate() {
    Choice donor = CatchUpPlan.choose("pdx", A + ":1-100," + B + ":1-5", null,
        List.of(new Survivor("dr", A + ":1-103," + B + ":1-5", null)));
    assertThat(donor.donor()).isEqualTo("dr");
    assertThat(donor.missing()).isEqualTo(A + ":101-103");

    Choice divergent = CatchUpPlan.choose("pdx", A + ":1-100," + C + ":1-2", null,
        List.of(new Survivor("dr", A + ":1-103", null)));
    assertThat(divergent.needed()).isFalse();
    assertThat(divergent.warnings()).singleElement().asString().contains("lacks " + C + ":1-2");
  }

  @Test
  void aSetThatCannotBeReadOrComparedIsAWarningNotADonor() {
    Choice choice = CatchUpPlan.choose("pdx", "0-1-100", null,
        List.of(new Survivor("dr", "garbage!", null), new Survivor("ro", A + ":1-3", null),
            new Survivor("dr2", "0-1-102", null)));

    assertThat(choice.donor()).isEqualTo("dr2");
    assertThat(choice.warnings()).hasSize(2).allSatisfy(w -> assertThat(w).startsWith("cannot compare"));
    assertThat(CatchUpPlan.choose("pdx", "nonsense", null, List.of()).warnings()).singleElement().asString()
        .startsWith("cannot read pdx's GTID set");
  }
}
