package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.topology.Fixture.T0;
import static io.shipstream.failover.model.topology.Fixture.UUID_A;
import static io.shipstream.failover.model.topology.Fixture.UUID_B;
import static io.shipstream.failover.model.topology.Fixture.UUID_C;
import static io.shipstream.failover.model.topology.Fixture.candidate;
import static io.shipstream.failover.model.topology.Fixture.down;
import static io.shipstream.failover.model.topology.Fixture.drOnly;
import static io.shipstream.failover.model.topology.Fixture.group;
import static io.shipstream.failover.model.topology.Fixture.replica;
import static io.shipstream.failover.model.topology.Fixture.sqlBrokenReplica;
import static io.shipstream.failover.model.topology.Fixture.writableProbe;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.topology.Fixture.Scenario;
import io.shipstream.failover.model.topology.Verdict.Blocked;
import io.shipstream.failover.model.topology.Verdict.Cause;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Rows 9-19 of the {@link TopologyMatrix} table: no site writable. */
class TopologyMatrixFailoverTest {
  private static final String P = UUID_A; // the failed primary's server uuid

  private static GroupConfig candidates(int n) {
    return group(Fixture.names(n).toArray(String[]::new));
  }

  /** Two sites: s0 was primary and is gone, s1 is a caught-up replica. The base case of rows 13-19. */
  private static Scenario primaryLost() {
    return Scenario.of(candidates(2)).sites(down("s0", "0-1-100"), replica("s1", "0-1-100")).active("s0");
  }

  // Rows 9-13: nothing to fail over from.

  @Test
  void row9NoActiveSiteRecordedIsNoPrimary() {
    Verdict v = Scenario.of(candidates(2)).sites(down("s0", "0-1-5"), replica("s1", "0-1-5")).evaluate();

    assertThat(v).isInstanceOf(Verdict.NoPrimary.class);
    assertThat(v.reason()).contains("no active site is recorded");
  }

  @Test
  void row9TheLastFailoverTargetStandsInForAMissingActiveSite() {
    Verdict v = Scenario.of(candidates(2)).sites(replica("s0", "0-2-50"), down("s1", "0-2-50"))
        .lastFailover(T0, "s1").after(Duration.ofHours(1)).evaluate();

    assertThat(v).isInstanceOf(Verdict.Promote.class).extracting("failedSite", "candidate").containsExactly("s1", "s0");
  }

  @Test
  void row10AnActiveSiteThatIsNotInTheSpecIsNoPrimary() {
    Verdict v =
        Scenario.of(candidates(2)).sites(replica("s0", "0-1-5"), replica("s1", "0-1-5")).active("gone").evaluate();

    assertThat(v.reason()).contains("'gone' is not in spec.sites");
    assertThat(v).isInstanceOf(Verdict.NoPrimary.class);
  }

  @Test
  void row11TheActiveSiteWithoutAVerdictIsWaitedFor() {
    Verdict v =
        Scenario.of(candidates(3)).sites(replica("s1", "0-1-5"), replica("s2", "0-1-5")).active("s0").evaluate();

    assertThat(v)
        .isEqualTo(new Verdict.NoPrimary("no site is writable; waiting for a verdict on the active site 's0'"));
  }

  @Test
  void row12aAReadOnlyActiveSiteThatAnswersWritableIsBeingPromotedNotMissing() {
    // The moment after a failover's promotion: the status names s1, whose first writable answer
    // is not trusted yet. Nothing is wrong, so there is nothing to alert about.
    Probe promoted = writableProbe("s1", "0-1-100");
    Verdict v = Scenario.of(candidates(2)).sites(down("s0", "0-1-100"), replica("s1", "0-1-100"))
        .site("s1", new SiteObservation(SiteState.READ_ONLY, promoted, promoted)).active("s1").evaluate();

    assertThat(v).isEqualTo(new Verdict.Degraded("s1", "the active site 's1' answers writable after being read-only "
        + "(a promotion or an unfence); it is trusted after 2 writable polls in a row"));
  }

  /**
   * A DBA unfenced the active site: the watcher made it writable after its latest poll had read it
   * read-only. That poll is no news of a missing primary (no NoPrimaryDetected after SiteUnfenced);
   * a poll taken a whole poll interval after the unfence that still answers read-only is.
   */
  @Test
  void row12aAnActiveSiteJustUnfencedIsBeingMadeWritableNotMissing() {
    // Polls every 2 s (the default); s0's latest poll, at T0, read it read-only.
    Scenario unfenced = Scenario.of(candidates(2)).sites(replica("s0", "0-1-5"), replica("s1", "0-1-5")).active("s0")
        .unfencedAt(T0.minusMillis(300)).after(Duration.ofMillis(100));

    Verdict v = unfenced.evaluate();

    assertThat(v).isEqualTo(new Verdict.Degraded("s0", "the active site 's0' was made writable at "
        + T0.minusMillis(300) + " as a DBA unfenced it; its latest poll may have read it before that; it is trusted "
        + "after 2 writable polls in a row"));

    Verdict stillReadOnly = Scenario.of(candidates(2)).sites(replica("s0", "0-1-5"), replica("s1", "0-1-5"))
        .active("s0").unfencedAt(T0.minusSeconds(3)).evaluate();
    assertThat(stillReadOnly).as("polled read-only over a poll interval after the unfence")
        .isInstanceOf(Verdict.NoPrimary.class);
    assertThat(stillReadOnly.reason()).contains("'s0' is reachable but read-only");
  }

  @Test
  void row12bAReachableReadOnlyPrimaryIsNeverFailedOverFrom() {
    Verdict v = Scenario.of(candidates(3)).sites(replica("s0", "0-1-5"), replica("s1", "0-1-5"), down("s2"))
        .active("s0").evaluate();

    assertThat(v).isInstanceOf(Verdict.NoPrimary.class);
    assertThat(v.reason()).contains("'s0' is reachable but read-only");
  }

  @Test
  void row13APrimaryThatAnswersAgainBeforeRecoveryThresholdGetsNoRival() {
    Probe back = writableProbe("s0", "0-1-101");
    SiteObservation returning = new SiteObservation(SiteState.UNREACHABLE, back, back);

    Verdict v = primaryLost().site("s0", returning).evaluate();

    assertThat(v).isInstanceOf(Verdict.NoPrimary.class);
    assertThat(v.reason()).contains("'s0' answers again as writable").contains("2 writable polls");
  }

  // Rows 14-15: mutual exclusion and cooldown.

  @Test
  void row14AFailoverAlreadyRunningBlocks() {
    Verdict v = primaryLost().running().evaluate();

    assertThat(v).isEqualTo(new Blocked(Cause.ConcurrentOperation, "s0", v.reason()));
    assertThat(v.reason()).contains("already running");
  }

  @Test
  void row15InsideTheCooldownBlocksUpToItsLastInstant() {
    Verdict v = primaryLost().lastFailover(T0, "s0").after(Duration.ofMinutes(5).minusMillis(1)).evaluate();

    assertThat(v).isEqualTo(new Blocked(Cause.CooldownActive, "s0", v.reason()));
    assertThat(v.reason()).contains("no automatic failover before " + T0.plus(Duration.ofMinutes(5)));
  }

  /**
   * Row 15 reads the last promotion that took effect, as the watcher feeds it ({@link
   * io.shipstream.failover.model.crd.MysqlFailoverGroupStatus#cooldownSince}): a planned failover
   * rolled back a minute ago moved {@code lastFailover} only, and the primary lost now is failed
   * over; a promotion a minute ago still blocks it.
   */
  @Test
  void row15AFailoverRolledBackBeforeItsPromotionStartsNoCooldown() {
    java.time.Instant rolledBackAt = T0;
    io.shipstream.failover.model.crd.MysqlFailoverGroupStatus rolledBack =
        new io.shipstream.failover.model.crd.MysqlFailoverGroupStatus("s0", rolledBackAt.toString(), "s0", null, null,
            null, null, null, null, null, null, null, null, rolledBackAt.minus(Duration.ofHours(2)).toString());
    io.shipstream.failover.model.crd.MysqlFailoverGroupStatus promoted = rolledBack.withFailover("s0",
        rolledBackAt.toString(), "0-1-1");

    assertThat(primaryLost().lastFailover(java.time.Instant.parse(rolledBack.cooldownSince()), "s0")
        .after(Duration.ofMinutes(1)).evaluate()).isInstanceOf(Verdict.Promote.class);
    assertThat(primaryLost().lastFailover(java.time.Instant.parse(promoted.cooldownSince()), "s0")
        .after(Duration.ofMinutes(1)).evaluate()).isInstanceOf(Blocked.class).extracting("cause")
        .isEqualTo(Cause.CooldownActive);
  }

  @Test
  void row15AtTheEndOfTheCooldownTheFailoverGoesAhead() {
    Verdict v = primaryLost().lastFailover(T0, "s0").after(Duration.ofMinutes(5)).evaluate();

    assertThat(v).isInstanceOf(Verdict.Promote.class);
  }

  @Test
  void row15TheCooldownIsTheGroupsOwnAndZeroDisablesIt() {
    List<io.shipstream.failover.model.crd.SiteSpec> sites = List.of(candidate("s0"), candidate("s1"));
    Scenario longCooldown =
        Scenario.of(group(sites, List.of(), "1h")).sites(down("s0", "0-1-1"), replica("s1", "0-1-1"))
            .active("s0").lastFailover(T0, "s0").after(Duration.ofMinutes(30));
    Scenario noCooldown = Scenario.of(group(sites, List.of(), "0s")).sites(down("s0", "0-1-1"), replica("s1", "0-1-1"))
        .active("s0").lastFailover(T0, "s0");

    assertThat(longCooldown.evaluate()).isInstanceOf(Blocked.class).extracting("cause").isEqualTo(Cause.CooldownActive);
    assertThat(noCooldown.evaluate()).isInstanceOf(Verdict.Promote.class);
  }

  // Row 10b and the fenced sites in rows 16-19.

  @Test
  void row10bAFencedActiveSiteIsNeverFailedOverFromEvenWhenUnreachable() {
    Verdict readOnly = Scenario.of(candidates(2)).sites(replica("s0", "0-1-5"), replica("s1", "0-1-5")).active("s0")
        .fenced("s0").evaluate();
    Verdict gone = primaryLost().fenced("s0").evaluate();

    assertThat(readOnly).isInstanceOf(Verdict.NoPrimary.class);
    assertThat(readOnly.reason()).contains("'s0' is fenced (" + FencedSites.ANNOTATION + ")")
        .contains("writes are stopped on purpose");
    assertThat(gone).isInstanceOf(Verdict.NoPrimary.class);
    assertThat(gone.reason()).contains("nothing is failed over until it is unfenced");
    assertThat(primaryLost().evaluate()).as("unfenced, the same loss is failed over")
        .isInstanceOf(Verdict.Promote.class);
  }

  @Test
  void row16AFencedReplicaIsNeverACandidateEvenTheOneAheadAndListedFirst() {
    GroupConfig config = group(List.of(candidate("s0"), candidate("s1"), candidate("s2")), List.of("s1"), null);
    Scenario s = Scenario.of(config).sites(down("s0", "0-1-100"), replica("s1", "0-1-100"), replica("s2", "0-1-90"))
        .active("s0");

    assertThat(s.evaluate()).isInstanceOf(Verdict.Promote.class).extracting("candidate").isEqualTo("s1");
    assertThat(s.fenced("s1").evaluate()).isInstanceOf(Verdict.Promote.class).extracting("candidate").isEqualTo("s2");
    Verdict none = s.fenced("s1", "s2").evaluate();
    assertThat(none).isEqualTo(new Blocked(Cause.NoCandidate, "s0", none.reason()));
    assertThat(none.reason()).contains("fenced, so never candidates: sites 's1', 's2'");
  }

  // Row 16: no candidate.

  @Test
  void row16OnlyADrOnlyReplicaLeftIsBlockedForNoCandidate() {
    GroupConfig config = group(candidate("s0"), candidate("s1"), drOnly("dr"));

    Verdict v =
        Scenario.of(config).sites(down("s0", "0-1-9"), down("s1"), replica("dr", "0-1-9")).active("s0").evaluate();

    assertThat(v).isEqualTo(new Blocked(Cause.NoCandidate, "s0", v.reason()));
    assertThat(v.reason()).contains("no primary-candidate is reachable and read-only");
  }

  /** The SQL thread as row 16 judges a candidate ({@link CandidateSelection#sqlThreadProblem}), one row per case. */
  @org.junit.jupiter.params.ParameterizedTest(name = "s1 SQL thread running={0}, last error ''{1}'' -> {2}")
  @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', nullValues = "null", value = {
      // running | last SQL error                                   | promoted
      "true      | null                                             | s1",
      "false     | null                                             | s1", // a DBA's STOP: the drain applies the relay log
      "null      | null                                             | s1", // not read: the runbook's inspection guards
      "false     | ''                                               | s1",
      "false     | Could not execute Write_rows_v1 event; Duplicate | s2",
      "true      | Error 'Table doesn''t exist' on query            | s2",
  })
  void row16ACandidateWhoseSqlThreadStoppedOnAnErrorIsPassedOverForTheNext(Boolean running, String error,
      String promoted) {
    GroupConfig config = group(List.of(candidate("s0"), candidate("s1"), candidate("s2")), List.of("s1"), null);
    // s1 is listed first in sitePriorities and as far as s2: promoted unless its SQL thread rules it out.
    SiteObservation s1 = running == null ? sqlUnknownReplica("s1", error)
        : sqlBrokenReplica("s1", "0-1-100", running, error);
    Verdict v = Scenario.of(config).sites(down("s0", "0-1-100"), replica("s2", "0-1-100")).site("s1", s1)
        .active("s0").evaluate();

    assertThat(v).isInstanceOf(Verdict.Promote.class).extracting("candidate").isEqualTo(promoted);
    if (promoted.equals("s2")) {
      assertThat(v.reason()).contains("passed over: the SQL thread of site 's1' ").contains(error.strip());
    } else {
      assertThat(v.reason()).doesNotContain("passed over");
    }
  }

  private static SiteObservation sqlUnknownReplica(String site, String error) {
    Probe p = Fixture.readOnlyProbe(site, "0-1-100", null, false).withSourceSql(null, error);
    return new SiteObservation(SiteState.READ_ONLY, p, p);
  }

  @Test
  void row16TheOnlyCandidateWithABrokenSqlThreadIsBlockedForNoCandidateAndNamed() {
    Verdict v = Scenario.of(candidates(2)).sites(down("s0", "0-1-100"),
        sqlBrokenReplica("s1", "0-1-99", false, "Duplicate entry '7' for key 'PRIMARY'")).active("s0").evaluate();

    assertThat(v).isEqualTo(new Blocked(Cause.NoCandidate, "s0", v.reason()));
    assertThat(v.reason()).contains("no primary-candidate is reachable and read-only with a healthy SQL thread")
        .contains(
            "passed over: the SQL thread of site 's1' stopped on an error: Duplicate entry '7' for key 'PRIMARY'");
  }

  @Test
  void row16ACandidateWithoutAVerdictIsWaitedForRatherThanBlocking() {
    Verdict v = Scenario.of(candidates(3)).sites(down("s0", "0-1-9"), down("s1")).active("s0").evaluate();

    assertThat(v)
        .isEqualTo(new Verdict.NoPrimary("the active site 's0' is unreachable; waiting for a verdict on site 's2'"));
  }

  @Test
  void row16ACandidateThatMissedItsLatestPollOrIsTurningWritableIsNotPromoted() {
    SiteObservation missedPoll = new SiteObservation(SiteState.READ_ONLY, Probe.unreachable("s1", "timeout", T0),
        Fixture.readOnlyProbe("s1", "0-1-9", null, true));
    Probe turning = writableProbe("s2", "0-1-9");
    SiteObservation turningWritable = new SiteObservation(SiteState.READ_ONLY, turning, turning);

    Verdict v = Scenario.of(candidates(3)).sites(down("s0", "0-1-9")).site("s1", missedPoll).site("s2", turningWritable)
        .active("s0").evaluate();

    assertThat(v).isInstanceOf(Blocked.class).extracting("cause").isEqualTo(Cause.NoCandidate);
  }

  // Row 17: unreadable GTID sets.

  @Test
  void row17AnUnparseableGtidSetBlocksNamingTheSite() {
    Verdict v = primaryLost().site("s1", replica("s1", "not-a-gtid")).evaluate();

    assertThat(v).isEqualTo(new Blocked(Cause.UnreadableGtid, "s0", v.reason()));
    assertThat(v.reason()).contains("the GTID set of site 's1' cannot be read");
  }

  @Test
  void row17MixedMysqlAndMariaDbSetsBlock() {
    Verdict v = Scenario.of(candidates(3)).sites(down("s0", "0-1-9"), replica("s1", "0-1-9"), replica("s2", P + ":1-9"))
        .active("s0").evaluate();

    assertThat(v).isInstanceOf(Blocked.class).extracting("cause").isEqualTo(Cause.UnreadableGtid);
    assertThat(v.reason()).contains("cannot be compared");
  }

  // Row 18: divergent candidates.

  @Test
  void row18DivergentCandidatesBlockNamingWhatEachLacks() {
    Verdict v = Scenario.of(candidates(3))
        .sites(down("s0", P + ":1-100"), replica("s1", P + ":1-100," + UUID_B + ":1"),
            replica("s2", P + ":1-100," + UUID_C + ":1"))
        .active("s0").evaluate();

    assertThat(v).isEqualTo(new Blocked(Cause.DivergentCandidates, "s0", v.reason()));
    assertThat(v.reason()).contains("'s1' lacks " + UUID_C + ":1 that site 's2' has");
  }

  @Test
  void row18TheOnlyCandidateHoldingErrantTransactionsBlocks() {
    Probe errant = Fixture.readOnlyProbe("s1", "0-1-100,0-2-101", "2", true);

    Verdict v = primaryLost().site("s1", new SiteObservation(SiteState.READ_ONLY, errant, errant)).evaluate();

    assertThat(v).isInstanceOf(Blocked.class).extracting("cause").isEqualTo(Cause.DivergentCandidates);
    assertThat(v.reason()).contains("site 's1' has 0-2-101..101");
  }

  // Row 19: promote.

  @Test
  void row19TwoSitesPromoteTheReplicaAndCarryTheLastKnownGtid() {
    Verdict v = primaryLost().evaluate();

    assertThat(v).isEqualTo(new Verdict.Promote("s0", "s1", "0-1-100", v.reason()));
    assertThat(v.reason())
        .startsWith("the active site 's0' is unreachable; promoting: site 's1' holds every transaction");
  }

  @Test
  void row19ThreeSitesPromoteTheMostAdvancedReplica() {
    Verdict v = Scenario.of(candidates(3))
        .sites(down("s0", P + ":1-100"), replica("s1", P + ":1-90"), replica("s2", P + ":1-97")).active("s0")
        .evaluate();

    assertThat(v).isEqualTo(new Verdict.Promote("s0", "s2", P + ":1-100", v.reason()));
  }

  @Test
  void row19FiveSitesTiesGoBySitePrioritiesAndDrOnlyIsNeverACandidate() {
    GroupConfig config =
        group(List.of(candidate("s0"), candidate("s1"), candidate("s2"), drOnly("s3"), candidate("s4")),
            List.of("s4", "s2"), null);

    Verdict v = Scenario.of(config)
        .sites(down("s0", P + ":1-100"), replica("s1", P + ":1-100"), replica("s2", P + ":1-100"),
            replica("s3", P + ":1-100"), replica("s4", P + ":1-99"))
        .active("s0").evaluate();

    assertThat(v).isInstanceOf(Verdict.Promote.class).extracting("candidate").isEqualTo("s2");
    assertThat(v.reason()).contains("tied with 's1'").contains("sitePriorities");
  }

  @Test
  void row19FiveSitesTiesWithoutPrioritiesGoByDeclaredOrder() {
    Verdict v = Scenario.of(candidates(5))
        .sites(down("s0", "0-1-50"), down("s1"), replica("s2", "0-1-50"), replica("s3", "0-1-50"),
            replica("s4", "0-1-49"))
        .active("s0").evaluate();

    assertThat(v).isInstanceOf(Verdict.Promote.class).extracting("candidate").isEqualTo("s2");
  }

  @Test
  void row19APrimaryNeverSeenIsStillFailedOverFromWithAnUnknownLastGtid() {
    Verdict v = Scenario.of(candidates(2)).sites(down("s0"), replica("s1", "0-1-5")).active("s0").evaluate();

    assertThat(v).isEqualTo(new Verdict.Promote("s0", "s1", null, v.reason()));
  }

  @Test
  void row19TheFailedPrimarysLastSetVouchesForAnOwnUuidTheCandidateWroteAsAnEarlierPrimary() {
    // s1 (uuid B) was primary before s0 (uuid A); the only candidate holds B:1-40 of its own, which s0 had too.
    Probe s1 = Fixture.readOnlyProbe("s1", UUID_B + ":1-40," + P + ":1-100", UUID_B, true);

    Verdict v = Scenario.of(candidates(2)).sites(down("s0", UUID_B + ":1-40," + P + ":1-100"))
        .site("s1", new SiteObservation(SiteState.READ_ONLY, s1, s1)).active("s0").evaluate();

    assertThat(v).isInstanceOf(Verdict.Promote.class).extracting("candidate").isEqualTo("s1");
  }
}
