package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.topology.Fixture.UUID_A;
import static io.shipstream.failover.model.topology.Fixture.UUID_B;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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

  private static final Instant AT = Instant.parse("2025-06-01T12:00:00Z");

  private static Probe iad(String ioState, String ioError, Boolean sqlRunning, String sqlError) {
    boolean running = "Yes".equals(ioState) && Boolean.TRUE.equals(sqlRunning);
    return new Probe("iad", true, true, "0-1-10", "1", running, null, null, AT).withSourceIo(ioState, ioError)
        .withSourceSql(sqlRunning, sqlError);
  }

  /**
   * Issue 31 item 6, the table of the class comment: whose replication it is. Only a server with
   * none configured is the recovery's to set up; in every configured case the recovery does
   * nothing, and a thread stopped without an error is a human's stop, reported.
   */
  @ParameterizedTest(name = "io={0} ioError={1} sql={2} sqlError={3}: set up {4}, by hand {5}")
  @CsvSource(nullValues = "-", textBlock = """
      # no replication configured: a primary left behind
      -,          -,                    -,     -,         true,  -
      # replicates
      Yes,        -,                    true,  -,         false, -
      # STOP SLAVE IO_THREAD, STOP SLAVE SQL_THREAD, STOP SLAVE
      No,         -,                    true,  -,         false, IO
      Yes,        -,                    false, -,         false, SQL
      No,         '',                   false, '',        false, IO and SQL
      # stopped on an error: the server's doing, not a human's
      Connecting, error reconnecting,   true,  -,         false, -
      No,         Got fatal error 1236, true,  -,         false, -
      Yes,        -,                    false, Duplicate, false, -
      No,         -,                    false, Duplicate, false, -
      """)
  void whoseReplicationItIs(String io, String ioError, Boolean sql, String sqlError, boolean setUp, String byHand) {
    Probe p = iad(io, ioError, sql, sqlError);
    assertThat(Recovery.needsSource(p)).isEqualTo(setUp);
    Map<String, SiteObservation> seen =
        Map.of("iad", new SiteObservation(SiteState.READ_ONLY, p, p));
    assertThat(Recovery.stoppedByHand(seen, "pdx").get("iad")).isEqualTo(byHand);
    assertThat(Recovery.stoppedByHand(seen, "iad")).as("the active site is no replica").isEmpty();
  }

  @Test
  void theMessageNamesEachSiteAndItsThreads() {
    assertThat(
        Recovery.stoppedByHandMessage(new TreeMap<>(Map.of("iad", "IO", "dr", "IO and SQL"))))
        .isEqualTo("site 'dr': replication IO and SQL threads stopped without an error, not by the failover: left "
            + "stopped (START SLAVE or START REPLICA to resume); site 'iad': replication IO thread stopped without an "
            + "error, not by the failover: left stopped (START SLAVE or START REPLICA to resume)");
  }

  private static MysqlFailoverGroupStatus status(String active, String lastTarget,
      String emergencyPhase, String emergencyStart, String plannedPhase, String plannedStart) {
    EmergencyFailoverStatus e = emergencyPhase == null ? null
        : new EmergencyFailoverStatus(emergencyPhase, "iad", "pdx", "dead", null,
            emergencyStart, null, null, false, null, null, 0L, null, null);
    PlannedFailoverStatus p = plannedPhase == null ? null
        : new PlannedFailoverStatus(plannedPhase, "dr", "pdx", null, null,
            plannedStart, null, null, null, null, null, null, null);
    return new MysqlFailoverGroupStatus(active, null, lastTarget, null, null, p, null,
        null, null, e);
  }

  /**
   * Issue 31 item 5: whose old primary is left behind. An emergency iad to pdx; a planned pdx to
   * dr. The newer failover by startTime names it, a planned failover's source as much as an
   * emergency's failed site; nothing while it is the active site or the last target.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(nullValues = "-", textBlock = """
      emergency alone,               pdx, pdx, Succeeded, 2025-06-01T10:00:00Z, -,         -,                    iad, true
      emergency still running,       pdx, pdx, Promoting, 2025-06-01T10:00:00Z, -,         -,                    iad, false
      planned after the emergency,   dr,  dr,  Succeeded, 2025-06-01T10:00:00Z, Succeeded, 2025-06-01T11:00:00Z, pdx, true
      planned rolled back,           pdx, pdx, -,         -,                    Failed,    2025-06-01T11:00:00Z, -,   false
      emergency after the planned,   pdx, pdx, Succeeded, 2025-06-01T12:00:00Z, Succeeded, 2025-06-01T11:00:00Z, iad, true
      no active site,                -,   -,   Succeeded, 2025-06-01T10:00:00Z, -,         -,                    -,   false
      """)
  void whichOldPrimaryIsLeftBehind(String row, String active, String lastTarget, String emergencyPhase,
      String emergencyStart, String plannedPhase, String plannedStart, String site, boolean settled) {
    Optional<Recovery.LeftBehind> left = Recovery.leftBehind(status(active, lastTarget, emergencyPhase,
        emergencyStart, plannedPhase, plannedStart));
    if (site == null) {
      assertThat(left).isEmpty();
    } else {
      assertThat(left).get().extracting(Recovery.LeftBehind::site, Recovery.LeftBehind::settled)
          .containsExactly(site, settled);
    }
  }
}
