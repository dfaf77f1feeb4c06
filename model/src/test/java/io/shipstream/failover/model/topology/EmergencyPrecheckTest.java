package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.topology.Fixture.T0;
import static io.shipstream.failover.model.topology.Fixture.down;
import static io.shipstream.failover.model.topology.Fixture.group;
import static io.shipstream.failover.model.topology.Fixture.replica;
import static io.shipstream.failover.model.topology.Fixture.sqlBrokenReplica;
import static io.shipstream.failover.model.topology.Fixture.writable;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.topology.Fixture.Scenario;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The emergency precheck is the matrix asked about a healthy group with its primary assumed lost:
 * each case names what the matrix then says, and the count of what would be lost.
 */
class EmergencyPrecheckTest {

  private static Scenario healthy() {
    return Scenario.of(group("iad", "pdx", "sfo")).active("iad")
        .sites(writable("iad", "0-1-100"), replica("pdx", "0-1-100"), replica("sfo", "0-1-90"));
  }

  @Test
  void aHealthyGroupNamesTheCandidateHoldingEverythingAndLosesNothing() {
    EmergencyPrecheck answer = EmergencyPrecheck.ifActiveDiesNow(healthy().input());

    assertThat(answer.activeSite()).isEqualTo("iad");
    assertThat(answer.verdict()).isInstanceOf(Verdict.Promote.class)
        .extracting("failedSite", "candidate", "failedSiteLastGtid").containsExactly("iad", "pdx", "0-1-100");
    assertThat(answer.transactionsLost()).isZero();
    assertThat(answer.lostGtid()).isNull();
  }

  @Test
  void whatTheCandidateLacksOfThePrimarysReadingIsWhatWouldBeLost() {
    EmergencyPrecheck answer = EmergencyPrecheck.ifActiveDiesNow(Scenario.of(group("iad", "pdx")).active("iad")
        .sites(writable("iad", "0-1-100"), replica("pdx", "0-1-97")).input());

    assertThat(answer.verdict()).isInstanceOf(Verdict.Promote.class).extracting("candidate").isEqualTo("pdx");
    assertThat(answer.transactionsLost()).isEqualTo(3);
    assertThat(answer.lostGtid()).isNotBlank();
  }

  @Test
  void aFencedSiteIsNeverTheCandidate() {
    EmergencyPrecheck answer = EmergencyPrecheck.ifActiveDiesNow(healthy().fenced("pdx").input());

    assertThat(answer.verdict()).isInstanceOf(Verdict.Promote.class).extracting("candidate").isEqualTo("sfo");
    assertThat(answer.transactionsLost()).isEqualTo(10);
  }

  @Test
  void insideTheCooldownTheMatrixBlocksWithItsOwnCause() {
    EmergencyPrecheck answer = EmergencyPrecheck.ifActiveDiesNow(healthy().lastFailover(T0, "iad")
        .after(Duration.ofMinutes(1)).input());

    assertThat(answer.verdict()).isInstanceOf(Verdict.Blocked.class)
        .extracting("cause").isEqualTo(Verdict.Cause.CooldownActive);
    assertThat(answer.transactionsLost()).isNull();
  }

  @Test
  void noHealthyCandidateIsNoCandidate() {
    EmergencyPrecheck answer = EmergencyPrecheck.ifActiveDiesNow(Scenario.of(group("iad", "pdx")).active("iad")
        .sites(writable("iad", "0-1-100"), sqlBrokenReplica("pdx", "0-1-100", false, "Duplicate entry")).input());

    assertThat(answer.verdict()).isInstanceOf(Verdict.Blocked.class)
        .extracting("cause").isEqualTo(Verdict.Cause.NoCandidate);
    assertThat(answer.verdict().reason()).contains("Duplicate entry");
  }

  @Test
  void aRunningFailoverHoldsItBack() {
    EmergencyPrecheck answer = EmergencyPrecheck.ifActiveDiesNow(healthy().running().input());

    assertThat(answer.verdict()).isInstanceOf(Verdict.Blocked.class)
        .extracting("cause").isEqualTo(Verdict.Cause.ConcurrentOperation);
  }

  @Test
  void withoutARecordedActiveSiteTheSoleWritableSiteIsAssumedLost() {
    EmergencyPrecheck answer = EmergencyPrecheck.ifActiveDiesNow(Scenario.of(group("iad", "pdx"))
        .sites(writable("iad", "0-1-100"), replica("pdx", "0-1-100")).input());

    assertThat(answer.activeSite()).isEqualTo("iad");
    assertThat(answer.verdict()).isInstanceOf(Verdict.Promote.class).extracting("candidate").isEqualTo("pdx");
  }

  @Test
  void aPrimaryAlreadyDownKeepsItsLastReading() {
    EmergencyPrecheck answer = EmergencyPrecheck.ifActiveDiesNow(Scenario.of(group("iad", "pdx")).active("iad")
        .sites(down("iad", "0-1-100"), replica("pdx", "0-1-99")).input());

    assertThat(answer.verdict()).isInstanceOf(Verdict.Promote.class).extracting("failedSiteLastGtid")
        .isEqualTo("0-1-100");
    assertThat(answer.transactionsLost()).isEqualTo(1);
  }

  @Test
  void aGroupWithNothingWritableAndNoActiveSiteHasNoPrimaryToLose() {
    EmergencyPrecheck answer = EmergencyPrecheck.ifActiveDiesNow(Scenario.of(group("iad", "pdx"))
        .sites(replica("iad", "0-1-1"), replica("pdx", "0-1-1")).input());

    assertThat(answer.activeSite()).isNull();
    assertThat(answer.verdict()).isInstanceOf(Verdict.NoPrimary.class);
  }
}
