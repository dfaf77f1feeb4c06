package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.topology.Fixture.T0;
import static io.shipstream.failover.model.topology.Fixture.group;
import static io.shipstream.failover.model.topology.Fixture.replica;
import static io.shipstream.failover.model.topology.Fixture.writableProbe;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.Specs;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.topology.Fixture.Scenario;
import io.shipstream.failover.model.topology.PrimaryConfirmation.Asked;
import io.shipstream.failover.model.topology.PrimaryConfirmation.Judged;
import io.shipstream.failover.model.topology.PrimaryConfirmation.Outcome;
import io.shipstream.failover.model.topology.PrimaryConfirmation.Recheck;
import io.shipstream.failover.model.topology.PrimaryConfirmation.ReplicaView;
import io.shipstream.failover.model.topology.PrimaryConfirmation.Result;
import io.shipstream.failover.model.topology.PrimaryConfirmation.Sampled;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every row of the {@link PrimaryConfirmation} tables: r1-r8 for one replica, c1-c4 for them all. */
class PrimaryConfirmationTest {
  private static final Duration MIN = Duration.ofSeconds(3);
  private static final String PRIMARY_ID = "1";
  /** When the watcher's first failing poll of the primary began. */
  private static final Instant LOST = T0;
  private static final Instant NOW = T0.plusSeconds(2);

  private static ReplicaView view(String site, String io, Integer errno, String error, String source, Duration silence,
      String progress, Instant at) {
    return new ReplicaView(site, true, true, io, errno, error, source, silence, progress, true, at);
  }

  private static ReplicaView running(String site, Duration silence) {
    return view(site, "Yes", 0, "", PRIMARY_ID, silence, "bin.000001:400 heartbeats 7", NOW);
  }

  private static ReplicaView connectError(String site) {
    return view(site, "Connecting", 2003, "error reconnecting to master 'repl@127.0.0.1:3306' - retry-time: 2 "
        + "message: Can't connect to server on '127.0.0.1' (111)", PRIMARY_ID, null, "x", NOW);
  }

  /** The judgement on two reads of one replica, the first taken at {@code first.at()}. */
  private static Judged judge(ReplicaView first, ReplicaView second) {
    Sampled both = Sampled.next(Sampled.next(null, first), second);
    return PrimaryConfirmation.judge(both, first.at(), LOST, PRIMARY_ID, MIN);
  }

  private static Judged judge(ReplicaView v) {
    return PrimaryConfirmation.judge(new Sampled(v, v), null, LOST, PRIMARY_ID, MIN);
  }

  private static Asked once(ReplicaView v) {
    return new Asked(new Sampled(v, v), null);
  }

  // ---- one replica: rows r1-r8 ------------------------------------------------------------------

  @Test
  void r1AReplicaThatCannotBeAskedIsNotAsked() {
    assertThat(judge(ReplicaView.unanswered("s1", "connect timed out", NOW))).isEqualTo(Judged.NOT_ASKED);
  }

  @Test
  void r2NoChannelOrAnIoThreadStoppedWithoutErrorIsNotEligible() {
    assertThat(judge(new ReplicaView("s1", true, false, null, null, null, null, null, null, false, NOW)))
        .isEqualTo(Judged.NOT_ELIGIBLE);
    assertThat(judge(view("s1", "No", 0, "", PRIMARY_ID, null, "p", NOW))).as("a DBA's STOP SLAVE")
        .isEqualTo(Judged.NOT_ELIGIBLE);
  }

  @Test
  void r3AReplicaOfAnotherSourceIsNotEligible() {
    assertThat(judge(view("s1", "Yes", 0, "", "9", Duration.ofSeconds(30), "p", NOW))).isEqualTo(Judged.NOT_ELIGIBLE);
  }

  @Test
  void r4AnIoThreadThatLostItsConnectionHasLostThePrimaryAtOnce() {
    assertThat(judge(connectError("s1"))).isEqualTo(Judged.LOST);
    assertThat(judge(view("s1", "Connecting", null, "error reconnecting to master 'r@h:1'", PRIMARY_ID, null, null,
        NOW))).as("by the message when there is no number").isEqualTo(Judged.LOST);
    assertThat(judge(view("s1", "No", 2013, "Lost connection to server", PRIMARY_ID, null, null, NOW)))
        .isEqualTo(Judged.LOST);
  }

  /** As {@link #connectError}, dated by the replica (MySQL) {@code ageMillis} before NOW. */
  private static ReplicaView datedConnectError(String site, long ageMillis) {
    return new ReplicaView(site, true, true, "Connecting", 2003, "error reconnecting to master 'repl@127.0.0.1:3306'",
        PRIMARY_ID, null, "x", true, NOW, Duration.ofMillis(ageMillis));
  }

  @Test
  void r4AConnectionErrorDatedBeforeThePrimarysLastAnswerIsStale() {
    // The primary answered the watcher 500 ms before NOW; the error is 800 ms old: it predates that answer.
    Instant answered = NOW.minusMillis(500);
    ReplicaView old = datedConnectError("s1", 800);
    assertThat(PrimaryConfirmation.judge(new Sampled(old, old), null, LOST, PRIMARY_ID, MIN, answered))
        .isEqualTo(Judged.STALE);
    ReplicaView fresh = datedConnectError("s1", 200);
    assertThat(PrimaryConfirmation.judge(new Sampled(fresh, fresh), null, LOST, PRIMARY_ID, MIN, answered))
        .as("an error after the primary's last answer").isEqualTo(Judged.LOST);
    assertThat(PrimaryConfirmation.judge(new Sampled(old, old), null, LOST, PRIMARY_ID, MIN, null))
        .as("the primary never answered").isEqualTo(Judged.LOST);
    ReplicaView undated = connectError("s1");
    assertThat(PrimaryConfirmation.judge(new Sampled(undated, undated), null, LOST, PRIMARY_ID, MIN, answered))
        .as("MariaDB: undated, so the poll after the replicas decides (c3)").isEqualTo(Judged.LOST);
    Result r = PrimaryConfirmation.decide(false, PRIMARY_ID, LOST, MIN, List.of(once(old)), answered,
        recheck(5, false));
    assertThat(r.outcome()).as("a stale error keeps it to the debounce").isEqualTo(Outcome.UNCONFIRMED);
    assertThat(r.reason()).contains("'s1' shows a connection error older than the primary's last answer");
  }

  /**
   * Both flavors word a failed TLS handshake as an error connecting to the source (messages as
   * TlsIT sees them from mysqld 9.7 and mariadbd 10.11): the source is up, so it is no loss.
   */
  @Test
  void r3tATlsErrorIsNoLossOfThePrimary() {
    ReplicaView mysql = view("s1", "Connecting", 2026, "Error connecting to source 'repl@127.0.0.1:13043'. This was"
        + " attempt 1/10, with a delay of 2 seconds between attempts. Message: SSL connection error:"
        + " error:0A000086:SSL routines::certificate verify failed", PRIMARY_ID, null, null, NOW);
    ReplicaView mariadb = view("s2", "Connecting", 2026, "error connecting to master 'repl@127.0.0.1:23102' -"
        + " retry-time: 2  maximum-retries: 100000  message: SSL connection error: error:00000000:lib(0)::reason(0)",
        PRIMARY_ID, null, null, NOW);
    ReplicaView expired = view("s3", "Connecting", null, "error reconnecting to master 'r@h:1': certificate has"
        + " expired", PRIMARY_ID, null, null, NOW);
    assertThat(judge(mysql)).isEqualTo(Judged.UNSURE);
    assertThat(judge(mariadb)).isEqualTo(Judged.UNSURE);
    assertThat(judge(expired)).as("by the message when there is no number").isEqualTo(Judged.UNSURE);
    Result r = PrimaryConfirmation.decide(false, PRIMARY_ID, LOST, MIN, List.of(once(mysql), once(mariadb)));
    assertThat(r.outcome()).as("a live primary with a bad certificate is not confirmed dead")
        .isEqualTo(Outcome.UNCONFIRMED);
  }

  @Test
  void r5AnIoThreadNotRunningForAnotherReasonIsUnsure() {
    assertThat(judge(view("s1", "Connecting", 0, "", PRIMARY_ID, null, null, NOW))).as("no error yet")
        .isEqualTo(Judged.UNSURE);
    assertThat(judge(view("s1", "No", 1236, "Got fatal error 1236 from master", PRIMARY_ID, null, null, NOW)))
        .as("the source answered with an error").isEqualTo(Judged.UNSURE);
  }

  @Test
  void r6SilenceOfAtLeastMinSourceSilenceIsLost() {
    assertThat(judge(running("s1", MIN))).as("by the server's clock").isEqualTo(Judged.LOST);
    // By two reads 3 s apart with the same progress (MariaDB, no clock to read).
    ReplicaView first = view("s1", "Yes", 0, "", PRIMARY_ID, null, "bin.1:400 heartbeats 7", T0.plusSeconds(1));
    ReplicaView second = view("s1", "Yes", 0, "", PRIMARY_ID, null, "bin.1:400 heartbeats 7", T0.plusSeconds(4));
    assertThat(judge(first, second)).isEqualTo(Judged.LOST);
  }

  @Test
  void r6AnUnchangedProgressThatDoesNotCountHeartbeatsProvesNothing() {
    // MySQL without the performance schema: an idle source sends only heartbeats, which it does not count.
    ReplicaView first = new ReplicaView("s1", true, true, "Yes", 0, "", PRIMARY_ID, null, "gtids", false, T0);
    ReplicaView second = new ReplicaView("s1", true, true, "Yes", 0, "", PRIMARY_ID, null, "gtids", false,
        T0.plusSeconds(10));
    assertThat(judge(first, second)).isEqualTo(Judged.UNSURE);
  }

  @Test
  void r7HeardAfterTheWatcherLostThePrimaryIsReceiving() {
    assertThat(judge(running("s1", Duration.ofMillis(300)))).isEqualTo(Judged.RECEIVING);
    // MariaDB: the progress moved since a read taken after the watcher lost the primary.
    ReplicaView first = view("s1", "Yes", 0, "", PRIMARY_ID, null, "bin.1:400 heartbeats 7", T0.plusSeconds(2));
    ReplicaView second = view("s1", "Yes", 0, "", PRIMARY_ID, null, "bin.1:400 heartbeats 9", T0.plusSeconds(4));
    assertThat(judge(first, second)).isEqualTo(Judged.RECEIVING);
  }

  @Test
  void r8HeardOnlyBeforeTheWatcherLostItAndNotSilentLongEnoughIsUnsure() {
    // Last heard 2.5 s before NOW, i.e. before the watcher's failing poll began at LOST = NOW - 2 s.
    assertThat(judge(running("s1", Duration.ofMillis(2500)))).isEqualTo(Judged.UNSURE);
    // MariaDB, a first read: nothing to compare with.
    assertThat(judge(view("s1", "Yes", 0, "", PRIMARY_ID, null, "p", NOW))).isEqualTo(Judged.UNSURE);
    // Moved since a read taken before the watcher lost the primary: may have been before.
    ReplicaView before = view("s1", "Yes", 0, "", PRIMARY_ID, null, "a", T0.minusSeconds(1));
    ReplicaView now = view("s1", "Yes", 0, "", PRIMARY_ID, null, "b", NOW);
    assertThat(PrimaryConfirmation.judge(Sampled.next(Sampled.next(null, before), now), before.at(), LOST, PRIMARY_ID,
        MIN)).isEqualTo(Judged.UNSURE);
  }

  // ---- all replicas: rows c1-c4 -----------------------------------------------------------------

  @Test
  void c1APrimaryThatAnswersNeedsNoConfirmation() {
    assertThat(PrimaryConfirmation.decide(true, PRIMARY_ID, LOST, MIN, List.of(once(connectError("s1")))).outcome())
        .isEqualTo(Outcome.NOT_NEEDED);
  }

  @Test
  void c2AnyReplicaStillReceivingMeansAlive() {
    Result r = PrimaryConfirmation.decide(false, PRIMARY_ID, LOST, MIN,
        List.of(once(connectError("s1")), once(running("s2", Duration.ofMillis(200)))));
    assertThat(r.outcome()).isEqualTo(Outcome.ALIVE);
    assertThat(r.reason()).contains("'s2' still receives from it").contains("'s1' lost it");
  }

  /** A poll of the primary begun {@code afterMillis} after the replicas answered (NOW). */
  private static Recheck recheck(long afterMillis, boolean answered) {
    return new Recheck(NOW.plusMillis(afterMillis), answered);
  }

  private static List<Asked> everyOneLost() {
    return List.of(once(connectError("s1")), once(running("s2", Duration.ofSeconds(4))),
        once(ReplicaView.unanswered("s3", "timeout", NOW)), once(view("s4", "No", 0, "", PRIMARY_ID, null, null, NOW)));
  }

  @Test
  void c3EveryEligibleReplicaThatAnsweredLostItAndAPollAfterThemFailedIsConfirmedDead() {
    Result r = PrimaryConfirmation.decide(false, PRIMARY_ID, LOST, MIN, everyOneLost(), T0.minusSeconds(1),
        recheck(5, false));
    assertThat(r.outcome()).isEqualTo(Outcome.CONFIRMED_DEAD);
    assertThat(r.judged()).containsEntry("s1", Judged.LOST).containsEntry("s2", Judged.LOST)
        .containsEntry("s3", Judged.NOT_ASKED).containsEntry("s4", Judged.NOT_ELIGIBLE);
    assertThat(r.reason()).contains("a poll of it begun after they answered failed too");
  }

  @Test
  void c3ASilenceAloneNeedsNoPollAfterTheReplicas() {
    // Heard nothing for minSourceSilence up to its answer: measured now, not a leftover.
    Result r = PrimaryConfirmation.decide(false, PRIMARY_ID, LOST, MIN, List.of(once(running("s2",
        Duration.ofSeconds(4)))), T0.minusSeconds(1), null);
    assertThat(r.outcome()).isEqualTo(Outcome.CONFIRMED_DEAD);
  }

  @Test
  void c3aAPrimaryThatAnswersAPollBegunAfterItsReplicasIsNotDeadWhateverTheirErrors() {
    Result r = PrimaryConfirmation.decide(false, PRIMARY_ID, LOST, MIN, everyOneLost(), T0.minusSeconds(1),
        recheck(5, true));
    assertThat(r.outcome()).isEqualTo(Outcome.NOT_NEEDED);
    assertThat(r.reason()).contains("answered a poll begun after its replicas answered")
        .contains("older than its return");
  }

  @Test
  void c3bErrorsWithoutAPollAfterThemAskForOneAndAnEarlierPollIsNoProof() {
    assertThat(PrimaryConfirmation.decide(false, PRIMARY_ID, LOST, MIN, everyOneLost(), T0.minusSeconds(1), null)
        .outcome()).isEqualTo(Outcome.RECHECK);
    assertThat(PrimaryConfirmation.decide(false, PRIMARY_ID, LOST, MIN, everyOneLost()).outcome())
        .as("without the primary's last answer too").isEqualTo(Outcome.RECHECK);
    // A poll that began before a replica answered may have ended before the replica's error.
    assertThat(PrimaryConfirmation.decide(false, PRIMARY_ID, LOST, MIN, everyOneLost(), T0.minusSeconds(1),
        recheck(-1, false)).outcome()).isEqualTo(Outcome.RECHECK);
    Verdict v = PrimaryConfirmation.evaluate(firstFailedPoll(), result(Outcome.RECHECK));
    assertThat(v).as("a decision not finished is no confirmation").isInstanceOf(Verdict.Healthy.class);
  }

  @Test
  void c4NoEligibleReplicaOrOneUnsureLeavesItToTheDebounce() {
    assertThat(PrimaryConfirmation.decide(false, PRIMARY_ID, LOST, MIN, List.of()).outcome())
        .isEqualTo(Outcome.UNCONFIRMED);
    assertThat(PrimaryConfirmation.decide(false, PRIMARY_ID, LOST, MIN,
        List.of(once(ReplicaView.unanswered("s1", "timeout", NOW)), once(view("s2", "No", 0, "", null, null, null,
            NOW))))
        .outcome()).as("none could be asked or none eligible").isEqualTo(Outcome.UNCONFIRMED);
    assertThat(PrimaryConfirmation.decide(false, PRIMARY_ID, LOST, MIN,
        List.of(once(connectError("s1")), once(running("s2", Duration.ofMillis(2500))))).outcome())
        .as("one lost, one unsure").isEqualTo(Outcome.UNCONFIRMED);
  }

  // ---- applied to the matrix --------------------------------------------------------------------

  /** s0 the active primary whose latest poll failed but not yet failureThreshold times (still WRITABLE). */
  private static TopologyMatrix.Input firstFailedPoll() {
    Probe failed = Probe.unreachable("s0", "connect refused", T0.plusSeconds(2));
    SiteObservation s0 = new SiteObservation(SiteState.WRITABLE, failed, writableProbe("s0", "0-1-100"));
    return Scenario.of(group("s0", "s1")).site("s0", s0).site("s1", replica("s1", "0-1-100")).active("s0").input();
  }

  private static TopologyMatrix.Input debounced() {
    Probe failed = Probe.unreachable("s0", "connect timed out", T0.plusSeconds(6));
    SiteObservation s0 = new SiteObservation(SiteState.UNREACHABLE, failed, writableProbe("s0", "0-1-100"));
    return Scenario.of(group("s0", "s1")).site("s0", s0).site("s1", replica("s1", "0-1-100")).active("s0").input();
  }

  private static Result result(Outcome o) {
    return new Result(o, java.util.Map.of("s1", Judged.LOST), "'s1' lost it");
  }

  @Test
  void confirmedDeadPromotesAfterOneFailedPollAndSaysSo() {
    Verdict before = PrimaryConfirmation.evaluate(firstFailedPoll(), null);
    assertThat(before).as("without the replicas, one failed poll is nothing yet").isInstanceOf(Verdict.Healthy.class);

    Verdict v = PrimaryConfirmation.evaluate(firstFailedPoll(), result(Outcome.CONFIRMED_DEAD));
    assertThat(v).isInstanceOf(Verdict.Promote.class).extracting("failedSite", "candidate").containsExactly("s0", "s1");
    assertThat(v.reason()).startsWith("replicas confirmed: ").contains("'s1' lost it");
  }

  @Test
  void aliveKeepsTheDebouncedPrimaryWritable() {
    Verdict v = PrimaryConfirmation.evaluate(debounced(), result(Outcome.ALIVE));
    assertThat(v).isInstanceOf(Verdict.Healthy.class);
    assertThat(PrimaryConfirmation.cutOffMessage("s0", result(Outcome.ALIVE))).contains("cannot reach")
        .contains("'s0'");
  }

  @Test
  void theDebounceStillDecidesWhenTheReplicasCannotAndSaysSo() {
    Verdict v = PrimaryConfirmation.evaluate(debounced(), result(Outcome.UNCONFIRMED));
    assertThat(v).isInstanceOf(Verdict.Promote.class);
    assertThat(v.reason()).startsWith("debounce: 3 polls in a row failed").contains("could not confirm");
    assertThat(PrimaryConfirmation.evaluate(debounced(), null).reason()).startsWith("debounce: ");
  }

  /**
   * A planned failover's fenced source (read-only) that dies: the replicas' confirmation counts as
   * for a writable primary, so the emergency failover the run hands over to needs no second
   * debounce; without it a read-only primary is still never failed over from (row 12b).
   */
  @Test
  void aReadOnlyPrimaryConfirmedDeadIsFailedOverFromAtOnce() {
    Probe failed = Probe.unreachable("s0", "connect refused", T0.plusSeconds(2));
    SiteObservation fenced = new SiteObservation(SiteState.READ_ONLY, failed,
        Fixture.readOnlyProbe("s0", "0-1-100", PRIMARY_ID, false));
    TopologyMatrix.Input in = Scenario.of(group("s0", "s1")).site("s0", fenced).site("s1", replica("s1", "0-1-100"))
        .active("s0").input();
    Verdict v = PrimaryConfirmation.evaluate(in, result(Outcome.CONFIRMED_DEAD));
    assertThat(v).isInstanceOf(Verdict.Promote.class).extracting("failedSite", "candidate").containsExactly("s0", "s1");
    assertThat(v.reason()).startsWith("replicas confirmed: ");
    assertThat(PrimaryConfirmation.evaluate(in, result(Outcome.UNCONFIRMED))).isInstanceOf(Verdict.NoPrimary.class);
    assertThat(PrimaryConfirmation.evaluate(in, result(Outcome.ALIVE))).isInstanceOf(Verdict.NoPrimary.class);
  }

  @Test
  void aConfirmationIsIgnoredOnceThePrimaryAnswersOrIsReadOnly() {
    TopologyMatrix.Input answering = Scenario.of(group("s0", "s1")).sites(Fixture.writable("s0", "0-1-1"),
        replica("s1", "0-1-1")).active("s0").input();
    assertThat(PrimaryConfirmation.evaluate(answering, result(Outcome.CONFIRMED_DEAD)))
        .isInstanceOf(Verdict.Healthy.class);
  }

  // ---- the knob ---------------------------------------------------------------------------------

  private static GroupConfig withSilence(String silence) {
    return GroupConfig.resolve(new MysqlFailoverGroupSpec(List.of(Specs.site("a", "primary-candidate"),
        Specs.site("b", "primary-candidate")), null, null, null, null, null, null, null, null, null, null, null, null,
        silence, null));
  }

  @Test
  void minSourceSilenceDefaultsToThreeSecondsAndMustExceedTheHeartbeatPeriod() {
    assertThat(withSilence(null).minSourceSilence()).isEqualTo(Duration.ofSeconds(3));
    assertThat(withSilence("5s").minSourceSilence()).isEqualTo(Duration.ofSeconds(5));
    assertThatThrownBy(() -> withSilence("0s")).isInstanceOf(GroupConfig.InvalidSpecException.class)
        .hasMessageContaining("minSourceSilence must be greater than 0");
    assertThatThrownBy(() -> withSilence("-2s")).isInstanceOf(GroupConfig.InvalidSpecException.class)
        .hasMessageContaining("minSourceSilence");
    assertThatThrownBy(() -> withSilence("1s")).isInstanceOf(GroupConfig.InvalidSpecException.class)
        .hasMessageContaining("heartbeat");
  }

  // ---- right before the start: rows s1-s2 ------------------------------------------------------

  @Test
  void s1APrimaryThatAnswersRightBeforeTheStartCancelsItWritableOrReadOnly() {
    assertThat(PrimaryConfirmation.startStands(new Probe("iad", true, false, "0-1-10", PRIMARY_ID, false, null, null,
        NOW))).as("writable").isFalse();
    assertThat(PrimaryConfirmation.startStands(new Probe("iad", true, true, "0-1-10", PRIMARY_ID, false, null, null,
        NOW))).as("read-only from its own configuration").isFalse();
  }

  @Test
  void s2APrimaryThatStillDoesNotAnswerIsFailedOver() {
    assertThat(PrimaryConfirmation.startStands(Probe.unreachable("iad", "Connection refused", NOW))).isTrue();
  }

  // ---- a replica's own poll: rows p1-p5 ---------------------------------------------------------

  private static final String LOST_LINK = "error reconnecting to master 'repl@127.0.0.1:3306' - retry-time: 2 "
      + "message: Can't connect to server on '127.0.0.1' (111)";

  private static Probe primaryPoll(boolean answered) {
    return answered ? new Probe("iad", true, false, "0-1-10", PRIMARY_ID, false, null, null, T0)
        : Probe.unreachable("iad", "Connection refused", NOW);
  }

  private static SiteObservation primary(boolean latestAnswered) {
    Probe answered = primaryPoll(true);
    return new SiteObservation(latestAnswered ? SiteState.WRITABLE : SiteState.UNREACHABLE,
        latestAnswered ? answered : primaryPoll(false), answered);
  }

  private static Probe replicaPoll(String source, String io, String ioError) {
    return new Probe("pdx", true, true, "0-1-10", "2", false, null, null, NOW, source, "MariaDB", "0-1-10")
        .withSourceIo(io, ioError);
  }

  @Test
  void p1ThePrimaryIsNotPolledEarlyWhenItsOwnPollAlreadyFailedOrNeverRan() {
    Probe lost = replicaPoll(PRIMARY_ID, "Connecting", LOST_LINK);
    assertThat(PrimaryConfirmation.pollPrimaryNow(lost, primary(false))).isFalse();
    assertThat(PrimaryConfirmation.pollPrimaryNow(lost, null)).isFalse();
    assertThat(PrimaryConfirmation.pollPrimaryNow(lost, SiteObservation.unknown())).isFalse();
  }

  @Test
  void p2AReplicaThatDidNotAnswerOrHasNoChannelAsksNothing() {
    assertThat(PrimaryConfirmation.pollPrimaryNow(Probe.unreachable("pdx", "timeout", NOW), primary(true))).isFalse();
    assertThat(PrimaryConfirmation.pollPrimaryNow(replicaPoll(null, null, null), primary(true))).isFalse();
  }

  @Test
  void p3AReplicaOfAnotherSourceOrOfAnUnknownOneAsksNothing() {
    assertThat(PrimaryConfirmation.pollPrimaryNow(replicaPoll("9", "Connecting", LOST_LINK), primary(true))).isFalse();
    assertThat(PrimaryConfirmation.pollPrimaryNow(replicaPoll(null, "Connecting", LOST_LINK), primary(true))).isFalse();
  }

  @Test
  void p4AReplicaThatLostItsConnectionToThePrimaryHasItPolledAtOnce() {
    assertThat(PrimaryConfirmation.pollPrimaryNow(replicaPoll(PRIMARY_ID, "Connecting", LOST_LINK), primary(true)))
        .isTrue();
    assertThat(PrimaryConfirmation.pollPrimaryNow(replicaPoll(PRIMARY_ID, "No", "Lost connection to server during "
        + "query"), primary(true))).as("MySQL's IO thread stopped by a lost connection").isTrue();
  }

  @Test
  void p5AnyOtherReplicaAsksNothing() {
    assertThat(PrimaryConfirmation.pollPrimaryNow(replicaPoll(PRIMARY_ID, "Yes", ""), primary(true)))
        .as("receiving").isFalse();
    assertThat(PrimaryConfirmation.pollPrimaryNow(replicaPoll(PRIMARY_ID, "No", ""), primary(true)))
        .as("a DBA's STOP SLAVE").isFalse();
    assertThat(PrimaryConfirmation.pollPrimaryNow(replicaPoll(PRIMARY_ID, "Connecting", ""), primary(true)))
        .as("still connecting, no error yet").isFalse();
    assertThat(PrimaryConfirmation.pollPrimaryNow(replicaPoll(PRIMARY_ID, "No", "Access denied for user 'repl'"),
        primary(true))).as("another error").isFalse();
  }
}
