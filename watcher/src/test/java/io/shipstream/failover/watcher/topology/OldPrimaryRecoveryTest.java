package io.shipstream.failover.watcher.topology;

import static io.shipstream.failover.watcher.topology.Fixtures.NOW;
import static io.shipstream.failover.watcher.topology.Fixtures.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SiteStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.model.topology.SiteObservation;
import io.shipstream.failover.model.topology.SiteState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** iad failed, pdx was promoted by an emergency failover; then iad answers again. */
class OldPrimaryRecoveryTest {
  private final GroupConfig config = Fixtures.config("0s", List.of());
  /** Everything done to the servers and the Events, in order. */
  private final List<String> done = new ArrayList<>();
  private boolean rejoinFails;

  private final SiteConnector servers = new SiteConnector() {
    @Override
    public Probe probe(GroupRef group, GroupConfig config, SiteSpec site) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void fence(GroupRef group, GroupConfig config, SiteSpec site) {
      done.add("fence " + site.name());
    }
  };

  /** What the monitor keeps about the group while its polls run. */
  private GroupMemory memory = new GroupMemory();
  private final OldPrimaryRecovery recovery = new OldPrimaryRecovery(servers,
      (group, config, site, source, gtid) -> {
        if (rejoinFails) {
          throw new java.sql.SQLException("Connection refused");
        }
        done.add("rejoin " + site.name() + " to " + source.name() + " after " + gtid);
      },
      (group, type, reason, message) -> done.add(type + " " + reason + ": " + message));

  private static MysqlFailoverGroupStatus failedOver(String phase, String startTime) {
    EmergencyFailoverStatus e = new EmergencyFailoverStatus(phase, "iad", "pdx", "iad unreachable", null, startTime,
        null, null, false, "0-1-10", "0-1-10", 0L, null, null);
    return new MysqlFailoverGroupStatus("pdx", startTime, "pdx", "0-1-10", null, null, null, null, null, e);
  }

  private static Map<String, SiteObservation> sites(Probe iad, String pdxGtid) {
    Map<String, SiteObservation> m = new LinkedHashMap<>();
    m.put("iad", new SiteObservation(iad.readOnly() ? SiteState.READ_ONLY : SiteState.UNREACHABLE, iad, iad));
    Probe pdx = Fixtures.writable("pdx", pdxGtid);
    m.put("pdx", new SiteObservation(SiteState.WRITABLE, pdx, pdx));
    Probe dr = Fixtures.replica("dr", pdxGtid);
    m.put("dr", new SiteObservation(SiteState.READ_ONLY, dr, dr));
    return m;
  }

  /** Two evaluations of the same polls, as the group's other sites' polls bring about. */
  private void checkTwice(Map<String, SiteObservation> seen, MysqlFailoverGroupStatus status) {
    recovery.check(memory, ORDERS, config, seen, status);
    recovery.check(memory, ORDERS, config, seen, status);
  }

  private static Probe back(boolean readOnly, String gtid) {
    return new Probe("iad", true, readOnly, gtid, "1", false, null, null, NOW);
  }

  @Test
  void aReturningWritableOldPrimaryIsFencedFirstThenRejoinsOnceItsReadOnlySetIsOnTheNewPrimary() {
    MysqlFailoverGroupStatus status = failedOver("Succeeded", "2025-06-01T11:59:00Z");

    Map<String, SiteObservation> writable = sites(back(false, "0-1-10"), "0-1-10,0-2-15");
    // Evaluations after the other sites' polls see the same writable poll: it was fenced already.
    checkTwice(writable, status);
    assertThat(done).containsExactly("fence iad");

    recovery.check(memory, ORDERS, config, sites(back(true, "0-1-10"), "0-1-10,0-2-15"), status);
    recovery.check(memory, ORDERS, config, sites(back(true, "0-1-10"), "0-1-10,0-2-16"), status);

    assertThat(done).hasSize(3);
    assertThat(done.get(1)).isEqualTo("rejoin iad to pdx after 0-1-10");
    assertThat(done.get(2)).startsWith("Normal RecoveryComplete: site 'iad' replicates from the active site 'pdx'");
  }

  @Test
  void anOldPrimaryWithTransactionsTheNewPrimaryLacksStaysReadOnlyWithThemInStatus() {
    MysqlFailoverGroupStatus status = failedOver("Succeeded", "2025-06-01T11:59:00Z");
    // iad wrote 11 and 12 that never reached pdx; pdx then wrote its own 11..15.
    Map<String, SiteObservation> seen = sites(back(true, "0-1-12"), "0-1-10,0-2-15");

    checkTwice(seen, status);

    assertThat(done).singleElement().asString()
        .startsWith("Warning RecoveryBlocked: site 'iad': the old primary holds 2 transaction(s)")
        .contains("0-1-11..12");
    List<SiteStatus> statuses = recovery.withDivergence(memory, List.of(
        new SiteStatus("iad", "READ_ONLY", NOW.toString(), false, "0-1-12", null, null),
        new SiteStatus("pdx", "WRITABLE", NOW.toString(), false, "0-1-10,0-2-15", null, null)));
    assertThat(statuses).extracting(SiteStatus::name, SiteStatus::divergentGtid)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("iad", "0-1-11..12"),
            org.assertj.core.groups.Tuple.tuple("pdx", null));
  }

  @Test
  void aDivergenceIsShownOnlyForTheFailoverThatFoundItNotOnTheSameSiteAfterALaterFailover() {
    recovery.check(memory, ORDERS, config, sites(back(true, "0-1-12"), "0-1-10,0-2-15"),
        failedOver("Succeeded", "2025-06-01T11:59:00Z"));
    assertThat(done).singleElement().asString().startsWith("Warning RecoveryBlocked");

    // A human repaired iad; later failovers moved the primary on; now iad failed again and is down.
    MysqlFailoverGroupStatus later = failedOver("Succeeded", "2025-06-01T12:30:00Z");
    recovery.check(memory, ORDERS, config, sites(Fixtures.dead("iad"), "0-1-10,0-2-40"), later);

    List<SiteStatus> statuses = recovery.withDivergence(memory, List.of(
        new SiteStatus("iad", "UNREACHABLE", NOW.toString(), false, null, null, null)));
    assertThat(statuses).extracting(SiteStatus::divergentGtid).containsOnlyNulls();
  }

  @Test
  void anOldPrimaryIsNotJudgedAgainstAnActivePrimaryPollOlderThanItsOwn() {
    MysqlFailoverGroupStatus status = failedOver("Succeeded", "2025-06-01T11:59:00Z");
    // iad was brought back by hand and replicated pdx's 11..20; pdx died, so iad stopped
    // replicating. pdx's last answer (up to 15) predates iad's poll: iad holds nothing of its own.
    Map<String, SiteObservation> seen = sites(back(true, "0-1-10,0-2-20"), "0-1-10,0-2-15");
    Probe stale = new Probe("pdx", true, false, "0-1-10,0-2-15", "2", false, null, null, NOW.minusSeconds(1));
    seen.put("pdx", new SiteObservation(SiteState.WRITABLE, stale, stale));

    recovery.check(memory, ORDERS, config, seen, status);

    assertThat(done).isEmpty();
    assertThat(recovery.withDivergence(memory, List.of(
        new SiteStatus("iad", "READ_ONLY", NOW.toString(), false, "0-1-10,0-2-20", null, null))))
        .extracting(SiteStatus::divergentGtid).containsOnlyNulls();
  }

  @Test
  void aBlockedOldPrimaryMadeWritableAgainIsFencedAgain() {
    MysqlFailoverGroupStatus status = failedOver("Succeeded", "2025-06-01T11:59:00Z");
    recovery.check(memory, ORDERS, config, sites(back(true, "0-1-12"), "0-1-10,0-2-15"), status);

    recovery.check(memory, ORDERS, config, sites(back(false, "0-1-12"), "0-1-10,0-2-15"), status);

    assertThat(done).hasSize(2);
    assertThat(done.get(1)).isEqualTo("fence iad");
  }

  @Test
  void whileTheFailoverRunsTheOldPrimaryIsFencedButNotRepointed() {
    MysqlFailoverGroupStatus status = failedOver("Promoting", "2025-06-01T11:59:00Z");

    recovery.check(memory, ORDERS, config, sites(back(false, "0-1-10"), "0-1-10"), status);
    recovery.check(memory, ORDERS, config, sites(back(true, "0-1-10"), "0-1-10"), status);

    assertThat(done).containsExactly("fence iad");
  }

  @Test
  void aFailedRejoinIsTriedAgainOnTheNextPollAndReportedOnlyWhenItWorks() {
    MysqlFailoverGroupStatus status = failedOver("Succeeded", "2025-06-01T11:59:00Z");
    rejoinFails = true;
    recovery.check(memory, ORDERS, config, sites(back(true, "0-1-10"), "0-1-10"), status);
    assertThat(done).isEmpty();

    rejoinFails = false;
    recovery.check(memory, ORDERS, config, sites(back(true, "0-1-10"), "0-1-10"), status);

    assertThat(done).hasSize(2);
    assertThat(done.get(0)).isEqualTo("rejoin iad to pdx after 0-1-10");
  }

  @Test
  void noEmergencyFailoverOrAnUnreachableOldPrimaryMeansNothingIsDone() {
    MysqlFailoverGroupStatus planned = new MysqlFailoverGroupStatus("pdx", NOW.toString(), "pdx", null, null, null,
        null, null, null, null);
    recovery.check(memory, ORDERS, config, sites(back(false, "0-1-10"), "0-1-10"), planned);
    recovery.check(memory, ORDERS, config, sites(Fixtures.dead("iad"), "0-1-10"),
        failedOver("Succeeded", "2025-06-01T11:59:00Z"));

    assertThat(done).isEmpty();
  }

  @Test
  void theDivergentTransactionsAreRecordedAsLostOncePerFailoverEvenAcrossAWatcherRestart() {
    List<List<MysqlFailoverGroupStatus.LostTransactions>> written = new ArrayList<>();
    java.time.Clock clock = java.time.Clock.fixed(NOW, java.time.ZoneOffset.UTC);
    OldPrimaryRecovery.Events events = (group, type, reason, message) -> done.add(type + " " + reason + ": " + message);
    OldPrimaryRecovery recording = new OldPrimaryRecovery(servers, (g, c, site, source, gtid) -> {}, events,
        (group, all) -> written.add(all), clock);
    MysqlFailoverGroupStatus status = failedOver("Succeeded", "2025-06-01T11:59:00Z");
    Map<String, SiteObservation> seen = sites(back(true, "0-1-12"), "0-1-10,0-2-15");

    recording.check(memory, ORDERS, config, seen, status);
    recording.check(memory, ORDERS, config, seen, status);

    MysqlFailoverGroupStatus.LostTransactions lost = new MysqlFailoverGroupStatus.LostTransactions("iad",
        "2025-06-01T11:59:00Z", "pdx", "0-1-11..12", 2L, NOW.toString());
    assertThat(written).containsExactly(List.of(lost));
    assertThat(done).hasSize(2);
    assertThat(done.get(0)).startsWith("Warning TransactionsLost: site 'iad' came back holding 2 transaction(s) "
        + "0-1-11..12 that the active site 'pdx' never received");
    assertThat(done.get(1)).startsWith("Warning RecoveryBlocked: site 'iad'");

    // A restarted watcher decides again from the status, which holds the record: no second record or Event.
    done.clear();
    OldPrimaryRecovery restarted = new OldPrimaryRecovery(servers, (g, c, site, source, gtid) -> {}, events,
        (group, all) -> written.add(all), clock);
    restarted.check(new GroupMemory(), ORDERS, config, seen, status.withLostTransactions(List.of(lost)));
    assertThat(written).hasSize(1);
    assertThat(done).singleElement().asString().startsWith("Warning RecoveryBlocked");
  }

  @Test
  void aLossThatCannotBeRecordedIsTriedAgainOnTheNextPoll() {
    List<String> attempts = new ArrayList<>();
    OldPrimaryRecovery recording = new OldPrimaryRecovery(servers, (g, c, site, source, gtid) -> {},
        (group, type, reason, message) -> done.add(type + " " + reason), (group, all) -> {
          attempts.add("record");
          if (attempts.size() == 1) {
            throw new IllegalStateException("the API server is down");
          }
        }, java.time.Clock.fixed(NOW, java.time.ZoneOffset.UTC));
    MysqlFailoverGroupStatus status = failedOver("Succeeded", "2025-06-01T11:59:00Z");
    Map<String, SiteObservation> seen = sites(back(true, "0-1-12"), "0-1-10,0-2-15");

    recording.check(memory, ORDERS, config, seen, status);
    assertThat(done).isEmpty();
    recording.check(memory, ORDERS, config, seen, status);

    assertThat(attempts).hasSize(2);
    assertThat(done).containsExactly("Warning TransactionsLost", "Warning RecoveryBlocked");
  }

  /** A planned failover iad to pdx that succeeded while iad was dead: the run's rejoin failed. */
  private static MysqlFailoverGroupStatus plannedWithSourceDead(String startTime) {
    io.shipstream.failover.model.crd.PlannedFailoverStatus planned =
        new io.shipstream.failover.model.crd
        .PlannedFailoverStatus("Succeeded", "pdx", "iad", "0-1-10", "0-1-10",
            startTime, null, 10.0, 0L, null, null,
            "promoted pdx; old primary iad not re-pointed at pdx; it stays read-only: Connection refused", null);
    return new MysqlFailoverGroupStatus("pdx", startTime, "pdx", "0-1-10", null, planned, null, null, null, null);
  }

  /** Issue 31 item 5: the killed source of a planned failover is the recovery's, as an emergency's old primary. */
  @Test
  void aPlannedFailoversKilledSourceIsFencedAndRejoinedWhenItReturns() {
    MysqlFailoverGroupStatus status = plannedWithSourceDead("2025-06-01T11:59:00Z");

    recovery.check(memory, ORDERS, config, sites(back(false, "0-1-10"), "0-1-10,0-2-15"), status);
    recovery.check(memory, ORDERS, config, sites(back(true, "0-1-10"), "0-1-10,0-2-15"), status);

    assertThat(done).hasSize(3);
    assertThat(done.get(0)).isEqualTo("fence iad");
    assertThat(done.get(1)).isEqualTo("rejoin iad to pdx after 0-1-10");
    assertThat(done.get(2)).startsWith("Normal RecoveryComplete: site 'iad' replicates from the active site 'pdx'");
  }

  /** The newer failover decides whose old primary it is: a later planned failover back to iad leaves none. */
  @Test
  void onlyTheLastFailoversOldPrimaryIsRecovered() {
    MysqlFailoverGroupStatus emergencyThenPlannedBack = failedOver("Succeeded", "2025-06-01T11:00:00Z")
        .withPlannedFailover(new io.shipstream.failover.model.crd.PlannedFailoverStatus("Succeeded", "iad", "pdx",
            "0-2-15", "0-2-15", "2025-06-01T12:00:00Z", null, 3.0, 0L, null, null, "promoted iad", null))
        .withFailover("iad", "2025-06-01T12:00:02Z", "0-2-15");
    // pdx, the planned failover's source, was re-pointed by the run and replicates: nothing to do.
    Map<String, SiteObservation> seen = new LinkedHashMap<>();
    Probe iad = Fixtures.writable("iad", "0-1-10,0-2-15");
    Probe pdx = Fixtures.replica("pdx", "0-1-10,0-2-15");
    seen.put("iad", new SiteObservation(SiteState.WRITABLE, iad, iad));
    seen.put("pdx", new SiteObservation(SiteState.READ_ONLY, pdx, pdx));

    checkTwice(seen, emergencyThenPlannedBack);

    assertThat(done).isEmpty();
  }

  /**
   * Issue 31 item 6: a rejoined old primary whose replication a human stopped (configured, a
   * thread stopped without an error) is not started again, even by a watcher that forgot it
   * rejoined it (a spec edit or a new leader): its own configuration says it is no longer ours.
   */
  @Test
  void aRejoinedOldPrimaryWhoseReplicationAHumanStoppedIsNotStartedAgainAfterTheWatcherForgets() {
    MysqlFailoverGroupStatus status = failedOver("Succeeded", "2025-06-01T11:59:00Z");
    recovery.check(memory, ORDERS, config, sites(back(true, "0-1-10"), "0-1-10,0-2-15"), status);
    assertThat(done).hasSize(2);

    Probe stoppedIo = back(true, "0-1-10,0-2-15").withSourceIo("No", "").withSourceSql(true, "");
    Probe stoppedBoth = back(true, "0-1-10,0-2-15").withSourceIo("No", null).withSourceSql(false, null);
    memory = new GroupMemory(); // the group forgotten: its polls restarted (a spec edit)
    checkTwice(sites(stoppedIo, "0-1-10,0-2-15"), status);
    OldPrimaryRecovery newLeader = new OldPrimaryRecovery(servers, (g, c, site, source, gtid) -> done.add("rejoin"),
        (g, type, reason, message) -> done.add(reason));
    newLeader.check(new GroupMemory(), ORDERS, config, sites(stoppedBoth, "0-1-10,0-2-15"), status);

    assertThat(done).as("one rejoin, one RecoveryComplete, then nothing").hasSize(2);
  }
}
