package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.topology.Fixture.UUID_A;
import static io.shipstream.failover.model.topology.Fixture.UUID_B;
import static io.shipstream.failover.model.topology.Fixture.UUID_C;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.model.topology.CandidateSelection.Candidate;
import io.shipstream.failover.model.topology.CandidateSelection.Chosen;
import io.shipstream.failover.model.topology.CandidateSelection.Divergent;
import io.shipstream.failover.model.topology.CandidateSelection.None;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CandidateSelectionTest {
  private static final String P = "dddddddd-0000-0000-0000-00000000000d"; // the failed primary's uuid
  private static final List<String> ORDER = List.of("iad", "pdx", "fra", "sin", "syd");

  private static Candidate c(String site, String gtid) {
    return new Candidate(site, GtidSet.parse(gtid), null);
  }

  private static Candidate c(String site, String gtid, String serverId) {
    return new Candidate(site, GtidSet.parse(gtid), serverId);
  }

  private static CandidateSelection.Choice choose(Candidate... candidates) {
    return CandidateSelection.choose(List.of(candidates), List.of(), ORDER);
  }

  @Test
  void noCandidateIsNone() {
    assertThat(choose()).isInstanceOf(None.class)
        .extracting(CandidateSelection.Choice::reason).asString().contains("no primary-candidate");
  }

  @Test
  void theOnlyCandidateIsChosen() {
    assertThat(choose(c("pdx", P + ":1-90"))).isInstanceOf(Chosen.class).extracting("site").isEqualTo("pdx");
  }

  @Test
  void mysqlTheCandidateContainingTheOthersWinsWhateverItsRank() {
    var choice = choose(c("pdx", P + ":1-90"), c("fra", P + ":1-100"), c("sin", P + ":1-95"));

    assertThat(choice).isInstanceOf(Chosen.class);
    Chosen chosen = (Chosen) choice;
    assertThat(chosen.site()).isEqualTo("fra");
    assertThat(chosen.reason()).contains("'fra' holds every transaction of the other candidates");
    assertThat(chosen.errantGtids()).isEmpty();
  }

  @Test
  void mariaDbTheCandidateFurthestAheadWins() {
    assertThat(choose(c("pdx", "0-1-90"), c("fra", "0-1-100,1-1-7"), c("sin", "0-1-100,1-1-5")))
        .extracting("site").isEqualTo("fra");
  }

  @Test
  void equalSetsAreTiedAndSitePrioritiesDecide() {
    var choice =
        CandidateSelection.choose(List.of(c("pdx", P + ":1-100"), c("fra", P + ":1-100"), c("sin", P + ":1-99")),
            List.of("sin", "fra"), ORDER);

    assertThat(choice).extracting("site").isEqualTo("fra");
    assertThat(choice.reason()).contains("tied with 'pdx'").contains("splitBrainPolicy.sitePriorities");
  }

  @Test
  void equalSetsWithNoPriorityListedFallBackToDeclaredOrder() {
    var choice = CandidateSelection.choose(List.of(c("sin", "0-1-100"), c("pdx", "0-1-100")), List.of("iad"), ORDER);

    assertThat(choice).extracting("site").isEqualTo("pdx");
    assertThat(choice.reason()).contains("tied with 'sin'").contains("declared order");
  }

  @Test
  void aListedSiteOutranksAnUnlistedOneOnATie() {
    var choice = CandidateSelection.choose(List.of(c("pdx", "0-1-100"), c("syd", "0-1-100")), List.of("syd"), ORDER);

    assertThat(choice).extracting("site").isEqualTo("syd");
  }

  @Test
  void mysqlSetsThatEachHoldWhatTheOtherLacksAreDivergent() {
    var choice = choose(c("pdx", P + ":1-100," + UUID_B + ":1-3"), c("fra", P + ":1-100," + UUID_C + ":1-2"));

    assertThat(choice).isInstanceOf(Divergent.class);
    assertThat(choice.reason()).contains("divergent candidates")
        .contains("'pdx' lacks " + UUID_C + ":1-2 that site 'fra' has")
        .contains("'fra' lacks " + UUID_B + ":1-3 that 'pdx' has");
  }

  @Test
  void mariaDbSameSeqnoFromDifferentServersIsDivergent() {
    var choice = choose(c("pdx", "0-1-100"), c("fra", "0-2-100"));

    assertThat(choice).isInstanceOf(Divergent.class);
    assertThat(choice.reason()).contains("'pdx' lacks 0-2-100..100 that site 'fra' has")
        .contains("'fra' lacks 0-1-100..100 that 'pdx' has");
  }

  @Test
  void mysqlErrantTransactionsOfTheCandidatesOwnUuidAreNeverChosenEvenWhenItIsAhead() {
    // fra is a replica (server uuid C) that took a write of its own: C:1, which nobody else saw.
    var choice = choose(c("pdx", P + ":1-100", UUID_B), c("fra", P + ":1-100," + UUID_C + ":1", UUID_C));

    assertThat(choice).isInstanceOf(Chosen.class);
    Chosen chosen = (Chosen) choice;
    assertThat(chosen.site()).isEqualTo("pdx");
    assertThat(chosen.errantGtids()).isEqualTo(Map.of("fra", UUID_C + ":1"));
    assertThat(chosen.reason()).contains("passed over for errant transactions: site 'fra' has " + UUID_C + ":1");
  }

  @Test
  void mysqlTransactionsAServerWroteWhileItWasPrimaryAreNotErrant() {
    // fra was primary before (C:1-50, replicated everywhere), then P became primary.
    var choice = choose(c("pdx", UUID_C + ":1-50," + P + ":1-90", UUID_B),
        c("fra", UUID_C + ":1-50," + P + ":1-100", UUID_C));

    assertThat(choice).extracting("site").isEqualTo("fra");
    assertThat(((Chosen) choice).errantGtids()).isEmpty();
  }

  @Test
  void mysqlTaggedErrantTransactionsCountToo() {
    var choice = choose(c("pdx", P + ":1-100", UUID_B), c("fra", P + ":1-100," + UUID_C + ":fix:1-2", UUID_C));

    assertThat(((Chosen) choice).errantGtids()).isEqualTo(Map.of("fra", UUID_C + ":fix:1-2"));
  }

  @Test
  void theFailedPrimarysLastKnownSetClearsAnOwnUuidItHad() {
    // With two sites there is no other candidate: only the old primary's last set can vouch for C:1-50.
    Candidate fra = c("fra", UUID_C + ":1-50," + P + ":1-100", UUID_C);

    assertThat(CandidateSelection.choose(List.of(fra), List.of(), ORDER)).isInstanceOf(Divergent.class);
    assertThat(CandidateSelection.choose(List.of(fra), List.of(GtidSet.parse(UUID_C + ":1-50," + P + ":1-98")),
        List.of(), ORDER)).extracting("site").isEqualTo("fra");
  }

  @Test
  void mariaDbAHigherSeqnoOfItsOwnServerIdInThePrimarysDomainIsErrant() {
    // Primary server 1; pdx is server 2, fra is server 3 and wrote 0-3-101 as a replica.
    var choice = choose(c("pdx", "0-1-100", "2"), c("fra", "0-1-100,0-3-101", "3"));

    assertThat(choice).isInstanceOf(Chosen.class).extracting("site").isEqualTo("pdx");
    assertThat(((Chosen) choice).errantGtids()).isEqualTo(Map.of("fra", "0-3-101..101"));
  }

  @Test
  void mariaDbAnErrantWriteAtASeqnoAnotherServerAlsoWroteIsErrant() {
    // fra (server 3) wrote 0-3-101 while pdx received the primary's 0-1-101.
    var choice = choose(c("pdx", "0-1-101", "2"), c("fra", "0-1-100,0-3-101", "3"));

    assertThat(choice).extracting("site").isEqualTo("pdx");
    assertThat(((Chosen) choice).errantGtids()).isEqualTo(Map.of("fra", "0-3-101..101"));
  }

  @Test
  void mariaDbErrantIsCaughtWithoutServerIdsWhenAnotherCandidateIsAhead() {
    // No server ids: the pairwise rule still sees that pdx does not have fra's 0-3-101.
    var choice = choose(c("pdx", "0-1-102"), c("fra", "0-1-100,0-3-101"));

    assertThat(choice).isInstanceOf(Divergent.class);
    assertThat(choice.reason()).contains("lacks 0-3-101..101");
  }

  @Test
  void mariaDbOwnTransactionsFromAnEarlierTermAsPrimaryAreNotErrant() {
    // fra (server 3) was primary up to 150; server 1 took over and wrote on. fra's newest GTID is server 1's.
    var choice = choose(c("pdx", "0-3-140", "2"), c("fra", "0-1-155,0-3-150", "3"));

    assertThat(choice).extracting("site").isEqualTo("fra");
    assertThat(((Chosen) choice).errantGtids()).isEmpty();
  }

  @Test
  void anErrantCandidateAheadOfEveryoneElseBlocksRatherThanLosingItsReplicatedTransactions() {
    // fra has the primary's 91-100 that pdx lacks, plus errant C:1: neither can be chosen safely.
    var choice = choose(c("pdx", P + ":1-90", UUID_B), c("fra", P + ":1-100," + UUID_C + ":1", UUID_C));

    assertThat(choice).isInstanceOf(Divergent.class);
    assertThat(choice.reason()).contains("'pdx' lacks " + P + ":91-100 that site 'fra' has")
        .contains("'fra' cannot be chosen either: it holds errant transactions " + UUID_C + ":1");
    assertThat(((Divergent) choice).errantGtids()).containsEntry("fra", UUID_C + ":1");
  }

  @Test
  void everyCandidateErrantIsDivergent() {
    var choice =
        choose(c("pdx", P + ":1-100," + UUID_B + ":1", UUID_B), c("fra", P + ":1-100," + UUID_C + ":1", UUID_C));

    assertThat(choice).isInstanceOf(Divergent.class);
    assertThat(choice.reason()).startsWith("every candidate holds errant transactions")
        .contains("site 'pdx' has " + UUID_B + ":1").contains("site 'fra' has " + UUID_C + ":1");
  }

  @Test
  void errantTransactionsNeedTheServerIdAndIgnoreAnUnparseableOne() {
    Candidate noId = c("fra", "0-1-100,0-3-101");
    Candidate badId = c("fra", "0-1-100,0-3-101", UUID_A);

    assertThat(CandidateSelection.errantTransactions(noId, List.of(GtidSet.parse("0-1-100"))).isEmpty()).isTrue();
    assertThat(CandidateSelection.errantTransactions(badId, List.of(GtidSet.parse("0-1-100"))).isEmpty()).isTrue();
  }

  @Test
  void mixedNotationsAreAnError() {
    assertThatThrownBy(() -> choose(c("pdx", P + ":1-5"), c("fra", "0-1-5")))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
