package io.shipstream.failover.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.sidecar.FencingDecision.Action;
import io.shipstream.failover.sidecar.FencingDecision.Boot;
import io.shipstream.failover.sidecar.FencingDecision.MysqlState;
import io.shipstream.failover.testsupport.MutableClock;
import io.shipstream.failover.testsupport.TcpProxy;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One tick at a time, on a clock moved by hand, against stub HTTP servers and a fake server. */
class FencingLoopTest {
  private static final Instant T0 = Instant.parse("2025-03-01T10:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(2);
  private static final Duration INTERVAL = Duration.ofMillis(500);
  private static final Duration SLOW_LEASE = Duration.ofSeconds(20);
  private static final Duration SLOW_INTERVAL = Duration.ofSeconds(5);
  private static final String NEVER_ACTIVE =
      "{\"activeSite\":null,\"neverActive\":true,\"observedAt\":\"2025-03-01T10:00:00Z\"}";

  private final MutableClock clock = new MutableClock(T0);
  private final ExecutorService io = Executors.newCachedThreadPool();
  private final StubHttpServer watcher = new StubHttpServer();
  private final StubHttpServer peer = new StubHttpServer();
  private SidecarMetrics metrics;

  @AfterEach
  void stop() {
    watcher.close();
    peer.close();
    io.shutdownNow();
  }

  @Test
  void aWritablePrimaryOnTheActiveSiteIsLeftAloneAtBoot() {
    watcher.respond("/active-site", 200, view("iad", T0));
    peer.respond("/peer/active-site", 204, null);
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.WRITABLE);
    FencingLoop loop = loop("iad", watcher.url(), List.of(peer.url()), mysql);

    tickEvery(loop, 3);

    assertThat(mysql.calls).isEmpty();
    assertThat(loop.status().boot()).isEqualTo(Boot.DONE);
    assertThat(loop.status().view()).contains(new ActiveSiteView("iad", T0));
    assertThat(loop.status().viewSource()).isEqualTo("watcher");
    assertThat(watcher.paths).allMatch(path -> path.equals("/active-site?namespace=shop&group=orders&site=iad"));
  }

  @Test
  void bootWithoutAViewFencesAndUnfencesOnceTheWatcherNamesThisSite() {
    watcher.respond("/active-site", 503, "{\"error\":\"not synced\"}");
    peer.respond("/peer/active-site", 204, null);
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.WRITABLE);
    FencingLoop loop = loop("iad", watcher.url(), List.of(peer.url()), mysql);

    tickEvery(loop, 3);
    assertThat(mysql.calls).containsExactly("fence");
    assertThat(loop.status().boot()).isEqualTo(Boot.FENCED_BY_BOOT);
    assertThat(metrics.fences("boot")).isEqualTo(1);

    watcher.respond("/active-site", 200, view("iad", T0));
    tickEvery(loop, 2);

    assertThat(mysql.calls).containsExactly("fence", "unfence");
    assertThat(mysql.state).isEqualTo(MysqlState.WRITABLE);
    assertThat(loop.status().boot()).isEqualTo(Boot.DONE);
  }

  @Test
  void aRestartOnANonActiveSiteFencesAndNeverUnfences() {
    watcher.respond("/active-site", 200, view("dfw", T0));
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.WRITABLE);
    FencingLoop loop = loop("iad", watcher.url(), List.of(), mysql);

    tickEvery(loop, 5);

    assertThat(mysql.calls).containsExactly("fence");
    assertThat(mysql.state).isEqualTo(MysqlState.READ_ONLY);
    assertThat(loop.status().lastAction()).isEqualTo(Action.NONE);
  }

  @Test
  void aReadOnlyServerIsNeverTouched() {
    watcher.respond("/active-site", 200, view("dfw", T0));
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.READ_ONLY);
    FencingLoop loop = loop("iad", watcher.url(), List.of(Configs.deadUrl()), mysql);
    tickEvery(loop, 2);

    // Another site is active, then everyone goes silent for five leases.
    watcher.close();
    tickAfterEach(loop, 20);

    assertThat(mysql.calls).isEmpty();
    assertThat(metrics.scrape()).contains("bloodraven_sidecar_fences_total{rule=\"rule2\"} 0.0");
  }

  @Test
  void aStrictlyNewerViewFromAPeerIsAdoptedAndFencesByRule1() {
    watcher.respond("/active-site", 200, view("iad", T0));
    peer.respond("/peer/active-site", 200, view("iad", T0.minusSeconds(1)));
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.WRITABLE);
    FencingLoop loop = loop("iad", watcher.url(), List.of(peer.url()), mysql);
    loop.tick();
    assertThat(loop.status().viewSource()).isEqualTo("watcher");

    // The watcher is lost to this sidecar; the peer has since seen a failover to dfw.
    watcher.respond("/active-site", 401, "unauthorized");
    peer.respond("/peer/active-site", 200, view("dfw", T0.plusSeconds(5)));
    clock.advance(INTERVAL);
    loop.tick();

    assertThat(mysql.calls).containsExactly("fence");
    assertThat(loop.status().lastAction()).isEqualTo(Action.FENCE_RULE1);
    assertThat(loop.status().viewSource()).isEqualTo("peer " + Endpoints.describe(peer.url()));
    assertThat(loop.view()).contains(new ActiveSiteView("dfw", T0.plusSeconds(5)));
    assertThat(metrics.scrape()).contains("bloodraven_sidecar_fences_total{rule=\"rule1\"} 1.0");
  }

  @Test
  void rule1FromAPeerDoesNotWaitOutASilentWatcher() {
    SilentWatcherTick tick = tickWithTheWatcherSilent("iad", MysqlState.WRITABLE, view("dfw", T0.plusSeconds(1)));

    assertThat(tick.took()).isLessThan(Duration.ofMillis(1500));
    assertThat(tick.mysql().calls).containsExactly("fence");
    assertThat(tick.loop().status().lastAction()).isEqualTo(Action.FENCE_RULE1);
    // The watcher's unanswered request says nothing about it: its last contact stands.
    assertThat(tick.loop().status().lastWatcherContact()).contains(T0);
  }

  @Test
  void aReplicasSidecarWaitsForEveryAnswer() {
    SilentWatcherTick tick = tickWithTheWatcherSilent("dfw", MysqlState.READ_ONLY, view("iad", T0.plusSeconds(1)));

    assertThat(tick.took()).isGreaterThanOrEqualTo(Duration.ofMillis(1900));
    assertThat(tick.loop().status().view()).contains(new ActiveSiteView("iad", T0.plusSeconds(1)));
    assertThat(tick.mysql().calls).isEmpty();
  }

  @Test
  void aServerPromotedBeforeTheFailoverIsRecordedIsNotFenced() {
    // dfw is the replica; the workflow promotes it, then records the failover a few ticks later.
    watcher.respond("/active-site", 200, view("iad", T0));
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.READ_ONLY);
    FencingLoop loop = loop("dfw", watcher.url(), List.of(), mysql);
    tickEvery(loop, 2);

    mysql.state = MysqlState.WRITABLE;
    tickEvery(loop, 3);
    watcher.respond("/active-site", 200, view("dfw", T0.plusSeconds(2)));
    tickEvery(loop, 2);

    assertThat(mysql.calls).isEmpty();
    assertThat(mysql.state).isEqualTo(MysqlState.WRITABLE);
  }

  @Test
  void aReplicaMadeWritableWithoutAFailoverIsFencedAfterOneTickAndAMarginNotALease() {
    // A DBA's SET GLOBAL read_only=0 on a replica: no failover names dfw, so the grace (how stale
    // the view may be, since both workflows name the target before promoting it) runs out.
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.READ_ONLY);
    FencingLoop loop = replicaTurnedWritable(view("iad", T0), view("iad", T0), mysql);
    assertThat(loop.promotionGraceEnds()).contains(clock.instant().plus(INTERVAL).plus(FencingLoop.PROMOTION_MARGIN));
    int ticksInGrace = (int) (INTERVAL.plus(FencingLoop.PROMOTION_MARGIN).toMillis() / INTERVAL.toMillis());
    tickAfterEach(loop, ticksInGrace);
    assertThat(mysql.calls).as("within the grace").isEmpty();
    assertThat(loop.watchingClosely()).as("a tick is due when the grace ends").isTrue();
    clock.advance(Duration.ofMillis(1));
    loop.tick();

    assertThat(mysql.calls).containsExactly("fence");
    assertThat(loop.status().lastAction()).isEqualTo(Action.FENCE_RULE1);
  }

  @Test
  void aReplicaMadeWritableWithoutAFailoverIsFencedOnTheSameTickWhenTheWatcherReadsAFreshView() {
    // The watcher reads the group from the API server for fresh=true and says so; its fresh view
    // still names iad after dfw turned writable, so no failover to dfw is recorded.
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.READ_ONLY);
    FencingLoop loop = replicaTurnedWritable(fresh(view("iad", T0)), fresh(view("iad", T0)), mysql);

    assertThat(watcher.paths).anyMatch(p -> p.contains("fresh=true") && p.contains("site=dfw"));
    assertThat(mysql.calls).as("fenced on the tick that saw it writable, no grace").containsExactly("fence");
    assertThat(loop.status().lastAction()).isEqualTo(Action.FENCE_RULE1);
  }

  @Test
  void aPromotionTheFreshViewConfirmsIsLeftWritable() {
    // The workflow recorded dfw active and then made it writable; the cached answer lags, the fresh one does not.
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.READ_ONLY);
    FencingLoop loop = replicaTurnedWritable(view("iad", T0), fresh(view("dfw", T0.plusSeconds(1))), mysql);
    tickEvery(loop, 6);

    assertThat(mysql.calls).isEmpty();
    assertThat(loop.view()).map(ActiveSiteView::activeSite).contains("dfw");
    assertThat(loop.promotionGraceEnds()).isEmpty();
  }

  @Test
  void anAnswerThatDoesNotSayItIsFreshLeavesTheGraceStanding() {
    // An older watcher ignores fresh=true and answers from its cache: that proves nothing either way.
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.READ_ONLY);
    FencingLoop loop = replicaTurnedWritable(view("iad", T0), view("iad", T0), mysql);

    assertThat(mysql.calls).isEmpty();
    assertThat(loop.promotionGraceEnds()).contains(clock.instant().plus(INTERVAL).plus(FencingLoop.PROMOTION_MARGIN));
  }

  @Test
  void aHungServerThatMayBeWritableIsStoppedOnceAnotherSiteIsActive() {
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.WRITABLE);
    FakeServerProcess process = new FakeServerProcess();
    FencingLoop loop = silentAfterOneTick("iad", mysql, process);
    assertThat(loop.status().mysql()).isEqualTo(MysqlState.HUNG);
    assertThat(loop.watchingClosely()).as("its own site is active: nothing to watch for").isFalse();
    assertThat(process.stops).isZero();

    watcher.respond("/active-site", 200, view("pdx", T0.plusSeconds(2)));
    tickEvery(loop, 1);

    assertThat(process.stops).isEqualTo(1);
    assertThat(loop.status().mysql()).as("what proves it to the failover").isEqualTo(MysqlState.STOPPED);
    assertThat(loop.status().lastAction()).isEqualTo(Action.STOP_SERVER);
    assertThat(metrics.fences("stop")).isEqualTo(1);
    assertThat(loop.watchingClosely()).as("a server that comes back is fenced at once").isTrue();
    assertThat(mysql.calls).isEmpty();
  }

  @Test
  void aHungServerThatLastAnsweredReadOnlyIsLeftAloneAndProvesNothing() {
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.READ_ONLY);
    FakeServerProcess process = new FakeServerProcess();
    FencingLoop loop = silentAfterOneTick("pdx", mysql, process);
    tickEvery(loop, 2);

    assertThat(process.stops).isZero();
    assertThat(loop.status().mysql()).isEqualTo(MysqlState.UNREACHABLE);
    assertThat(loop.status().mysql().takesNoWrites()).isFalse();
  }

  @Test
  void aServerWhoseProcessExitedIsReportedStoppedAndAServerThatCannotBeSeenUnreachable() {
    watcher.respond("/active-site", 200, view("pdx", T0));
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.READ_ONLY);
    FakeServerProcess process = new FakeServerProcess();
    FencingLoop loop = loop("iad", watcher.url(), List.of(), mysql, process);
    tickEvery(loop, 1);

    mysql.state = MysqlState.UNREACHABLE;
    process.liveness = ServerProcess.Liveness.EXITED;
    tickEvery(loop, 1);
    assertThat(loop.status().mysql()).isEqualTo(MysqlState.STOPPED);

    process.liveness = ServerProcess.Liveness.UNKNOWN;
    tickEvery(loop, 1);
    assertThat(loop.status().mysql()).isEqualTo(MysqlState.UNREACHABLE);
    assertThat(process.stops).isZero();
  }

  @Test
  void aRestartedPrimaryComesBackReadOnlyAndItsSidecarLiftsThatOnlyOnTheActiveSite() {
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.WRITABLE);
    FencingLoop loop = silentAfterOneTick("iad", mysql, new FakeServerProcess());

    mysql.state = MysqlState.STARTUP_READ_ONLY;
    tickEvery(loop, 1);

    assertThat(mysql.calls).containsExactly("unfence");
    assertThat(mysql.state).isEqualTo(MysqlState.WRITABLE);
    assertThat(loop.status().lastAction()).isEqualTo(Action.UNFENCE_STARTUP);

    // On a site that is not active, the same start-up read-only stays.
    FakeLocalMysql replica = new FakeLocalMysql(MysqlState.STARTUP_READ_ONLY);
    watcher.respond("/active-site", 200, view("pdx", T0));
    FencingLoop other = loop("iad", watcher.url(), List.of(), replica, new FakeServerProcess());
    tickEvery(other, 3);
    assertThat(replica.calls).isEmpty();
  }

  @Test
  void aFenceAnybodyAppliedIsNeverLiftedEvenOnTheActiveSite() {
    // READ_ONLY is a read_only set by a statement (rule 2, an operator, the failover), unlike STARTUP_READ_ONLY.
    watcher.respond("/active-site", 200, view("iad", T0));
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.READ_ONLY);
    FencingLoop loop = loop("iad", watcher.url(), List.of(), mysql, new FakeServerProcess());

    tickEvery(loop, 5);

    assertThat(mysql.calls).isEmpty();
  }

  @Test
  void itsOwnBootUnfenceIsNoPromotion() {
    watcher.respond("/active-site", 503, "{}");
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.WRITABLE);
    FencingLoop loop = loop("iad", watcher.url(), List.of(), mysql);
    tickEvery(loop, 1);
    watcher.respond("/active-site", 200, view("iad", T0));
    tickEvery(loop, 1);
    assertThat(mysql.calls).containsExactly("fence", "unfence");

    watcher.respond("/active-site", 200, view("dfw", T0.plusSeconds(1)));
    tickEvery(loop, 1);

    assertThat(mysql.calls).containsExactly("fence", "unfence", "fence");
    assertThat(loop.status().lastAction()).isEqualTo(Action.FENCE_RULE1);
  }

  @Test
  void anOlderOrEquallyOldPeerViewIsNotAdopted() {
    watcher.respond("/active-site", 200, view("iad", T0));
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.WRITABLE);
    FencingLoop loop = loop("iad", watcher.url(), List.of(peer.url()), mysql);
    peer.respond("/peer/active-site", 204, null);
    loop.tick();

    watcher.respond("/active-site", 500, "oops");
    peer.respond("/peer/active-site", 200, view("dfw", T0.minusMillis(1)));
    clock.advance(INTERVAL);
    loop.tick();
    peer.respond("/peer/active-site", 200, view("dfw", T0));
    clock.advance(INTERVAL);
    loop.tick();

    assertThat(loop.view()).contains(new ActiveSiteView("iad", T0));
    assertThat(mysql.calls).isEmpty();
  }

  @Test
  void aPeerAnswering404IsAnOlderSidecarWhosePingStillHoldsTheLease() {
    watcher.respond("/active-site", 200, view("iad", T0));
    peer.respond("/peer/ping", 200, "{\"site\":\"dfw\"}");
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.WRITABLE);
    FencingLoop loop = loop("iad", watcher.url(), List.of(peer.url()), mysql);
    loop.tick();

    watcher.close();
    tickAfterEach(loop, 12);
    assertThat(mysql.calls).isEmpty();
    assertThat(loop.status().peers()).singleElement().satisfies(link -> {
      assertThat(link.problem()).isNull();
      assertThat(link.lastContact()).contains(clock.instant());
    });
    assertThat(peer.paths).contains("/peer/active-site?site=iad", "/peer/ping");

    // Once the old peer is gone too, the lease runs out.
    peer.close();
    tickAfterEach(loop, 5);
    assertThat(mysql.calls).containsExactly("fence");
    assertThat(loop.status().lastAction()).isEqualTo(Action.FENCE_RULE2);
  }

  /**
   * A watcher replica cut off from the API server keeps answering from its cache, which it cannot
   * confirm; it says how stale the cache is, and the contact counts as of then: the lease runs out
   * a lease after the watcher's last confirmation, however often it answers.
   */
  @Test
  void aWatcherWhoseCacheIsStaleKeepsTheLeaseOnlyAsOfItsLastConfirmation() {
    watcher.respond("/active-site", 200, view("iad", T0));
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.WRITABLE);
    FencingLoop loop = loop("iad", watcher.url(), List.of(), mysql);
    loop.tick();
    Instant confirmed = clock.instant();

    int ticksToExpiry = (int) (LEASE.toMillis() / INTERVAL.toMillis());
    for (int i = 1; i <= ticksToExpiry; i++) {
      clock.advance(INTERVAL);
      long stale = Duration.between(confirmed, clock.instant()).toMillis();
      watcher.respond("/active-site", 200, withStaleness(view("iad", T0), stale));
      loop.tick();
    }
    assertThat(mysql.calls).as("a lease after the last confirmation, not yet past it").isEmpty();
    assertThat(loop.status().lastWatcherContact()).contains(confirmed);

    clock.advance(Duration.ofMillis(1));
    watcher.respond("/active-site", 200, withStaleness(view("iad", T0),
        Duration.between(confirmed, clock.instant()).toMillis()));
    loop.tick();
    assertThat(mysql.calls).containsExactly("fence");
    assertThat(loop.status().lastAction()).isEqualTo(Action.FENCE_RULE2);
  }

  @Test
  void refusedTokensAndErrorPagesDoNotHoldTheLease() {
    watcher.respond("/active-site", 200, view("iad", T0));
    peer.respond("/peer/active-site", 204, null);
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.WRITABLE);
    FencingLoop loop = loop("iad", watcher.url(), List.of(peer.url()), mysql);
    loop.tick();

    watcher.respond("/active-site", 503, "Service Unavailable");
    peer.respond("/peer/active-site", 401, "a bearer token is required");
    int ticksToExpiry = (int) (LEASE.toMillis() / INTERVAL.toMillis());
    tickAfterEach(loop, ticksToExpiry);
    assertThat(mysql.calls).as("exactly one lease after the last contact").isEmpty();

    fencesByRule2AMillisecondLater(loop, mysql);
    assertThat(watcher.authorizations).containsOnly("Bearer " + Configs.TOKEN);
    assertThat(peer.authorizations).containsOnly("Bearer " + Configs.TOKEN);
  }

  @Test
  void itsOwnLeaseFenceIsShownWhileItStandsAndForgottenOnceTheServerIsWritableAgain() {
    watcher.respond("/active-site", 200, view("iad", T0));
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.WRITABLE);
    FencingLoop loop = loop("iad", watcher.url(), List.of(), mysql);
    loop.tick();
    assertThat(loop.status().ownFence()).isEmpty();
    assertThat(loop.status().leaseLive()).isTrue();

    watcher.respond("/active-site", 503, "Service Unavailable");
    tickAfterEach(loop, (int) (LEASE.toMillis() / INTERVAL.toMillis()) + 1);
    assertThat(mysql.calls).containsExactly("fence");
    assertThat(loop.status().ownFence()).contains("rule2");
    assertThat(loop.status().leaseLive()).isFalse();
    assertThat(loop.status().toJson()).contains("\"ownFence\":\"rule2\"", "\"leaseLive\":false");

    // Contact is back: the fence stands (the sidecar never lifts it), and the lease holds again.
    watcher.respond("/active-site", 200, view("iad", clock.instant()));
    tickAfterEach(loop, 2);
    assertThat(mysql.calls).containsExactly("fence");
    assertThat(loop.status().ownFence()).contains("rule2");
    assertThat(loop.status().leaseLive()).isTrue();

    // Lifted by someone else (the watcher): no longer the sidecar's fence.
    mysql.state = MysqlState.WRITABLE;
    tickAfterEach(loop, 1);
    assertThat(mysql.calls).containsExactly("fence");
    assertThat(loop.status().ownFence()).isEmpty();
    assertThat(loop.status().toJson()).contains("\"ownFence\":null", "\"leaseLive\":true");
  }

  @Test
  void aFenceTheServerRefusesIsRetriedEveryTick() {
    watcher.respond("/active-site", 200, view("dfw", T0));
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.WRITABLE);
    mysql.refuseFence = true;
    FencingLoop loop = loop("iad", watcher.url(), List.of(), mysql);

    tickEvery(loop, 2);
    assertThat(mysql.calls).containsExactly("fence refused", "fence refused");
    assertThat(loop.status().boot()).isEqualTo(Boot.PENDING);
    assertThat(metrics.fences("boot")).isZero();

    mysql.refuseFence = false;
    tickEvery(loop, 1);
    assertThat(mysql.calls).endsWith("fence");
    assertThat(mysql.state).isEqualTo(MysqlState.READ_ONLY);
    assertThat(metrics.fences("boot")).isEqualTo(1);
  }

  // The tests below run with a 20 s lease and a 5 s interval, so that each request may take 2 s:
  // on a loaded machine a first request can take longer than the 250 ms the short knobs give.

  @Test
  void aWritablePrimaryOfAGroupThatHasNeverHadAnActiveSiteIsLeftAloneUntilAViewNamesASite() {
    watcher.respond("/active-site", 200, NEVER_ACTIVE);
    peer.respond("/peer/active-site", 204, null);
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.WRITABLE);
    FencingLoop loop = slowLoop("iad", List.of(peer.url()), mysql);

    // Five leases of never-active answers: each one holds the lease.
    for (int i = 0; i < 20; i++) {
      loop.tick();
      clock.advance(SLOW_INTERVAL);
    }
    assertThat(mysql.calls).isEmpty();
    assertThat(loop.status().boot()).isEqualTo(Boot.DONE);
    assertThat(loop.status().neverActive()).isTrue();
    assertThat(loop.view()).as("nothing to relay to the peers").isEmpty();
    assertThat(loop.status().toJson()).contains("\"neverActive\":true", "\"view\":null");

    // Adopted: the usual rules apply from the view on.
    watcher.respond("/active-site", 200, view("iad", T0.plusSeconds(100)));
    loop.tick();
    assertThat(mysql.calls).isEmpty();
    assertThat(loop.status().neverActive()).isFalse();
    clock.advance(SLOW_INTERVAL);
    watcher.respond("/active-site", 200, view("dfw", T0.plusSeconds(105)));
    loop.tick();
    assertThat(mysql.calls).containsExactly("fence");
    assertThat(loop.status().lastAction()).isEqualTo(Action.FENCE_RULE1);
  }

  @Test
  void aBootFenceSetBeforeTheWatcherAnsweredIsLiftedWhenItSaysTheGroupHasNeverBeenActive() {
    // The watcher is not synced yet when the sidecar starts (helm install starts both at once).
    watcher.respond("/active-site", 503, "{\"error\":\"not synced\"}");
    peer.respond("/peer/active-site", 204, null);
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.WRITABLE);
    FencingLoop loop = slowLoop("iad", List.of(peer.url()), mysql);
    loop.tick();
    assertThat(mysql.calls).as("a peer's 204 holds the lease but waives nothing").containsExactly("fence");

    clock.advance(SLOW_INTERVAL);
    watcher.respond("/active-site", 200, NEVER_ACTIVE);
    loop.tick();

    assertThat(mysql.calls).containsExactly("fence", "unfence");
    assertThat(mysql.state).isEqualTo(MysqlState.WRITABLE);
    assertThat(loop.status().boot()).isEqualTo(Boot.DONE);
  }

  @Test
  void aNeverActiveGroupStillFencesByRule2WhenEveryoneFallsSilent() {
    watcher.respond("/active-site", 200, NEVER_ACTIVE);
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.WRITABLE);
    FencingLoop loop = slowLoop("iad", List.of(), mysql);
    loop.tick();

    watcher.close();
    silentForALease(loop, mysql, SLOW_LEASE);

    fencesByRule2AMillisecondLater(loop, mysql);
    assertThat(metrics.fences("rule2")).isEqualTo(1);
  }

  @Test
  void theGroupsLeaseFromTheWatcherRulesRule2AndIsKeptAcrossAPartition() {
    // The environment says 20 s and 5 s; the spec says 45 s and 10 s.
    watcher.respond("/active-site", 200, withTiming(view("iad", T0), 45_000, 10_000));
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.WRITABLE);
    FencingLoop loop = slowLoop("iad", List.of(), mysql);
    assertThat(loop.status().leaseTimeout()).as("the environment's until the first answer").isEqualTo(SLOW_LEASE);
    loop.tick();
    assertThat(loop.status().leaseTimeout()).isEqualTo(Duration.ofSeconds(45));
    assertThat(loop.peerCheckInterval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(loop.status().toJson()).contains("\"leaseTimeoutMillis\":45000", "\"peerCheckIntervalMillis\":10000");

    Instant lastContact = clock.instant();
    watcher.close();
    // The environment's lease ran out long ago; the group's has not.
    silentForALease(loop, mysql, Duration.ofSeconds(45));
    assertThat(loop.status().leaseTimeout()).as("kept while cut off").isEqualTo(Duration.ofSeconds(45));
    assertThat(loop.status().leaseExpiresAt()).isEqualTo(lastContact.plusSeconds(45));

    fencesByRule2AMillisecondLater(loop, mysql);
  }

  @Test
  void aShorterLeaseFromTheWatcherFencesSoonerThanTheEnvironmentsWould() {
    watcher.respond("/active-site", 200, withTiming(view("iad", T0), 1_200, 400));
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.WRITABLE);
    FencingLoop loop = slowLoop("iad", List.of(), mysql);
    loop.tick();

    watcher.close();
    silentForALease(loop, mysql, Duration.ofMillis(1_200));

    fencesByRule2AMillisecondLater(loop, mysql);
  }

  @Test
  void aTimingOutsideTheSpecsLimitsIsIgnored() {
    // A lease of no more than two intervals would expire between two healthy ticks.
    watcher.respond("/active-site", 200, withTiming(view("iad", T0), 10_000, 5_000));
    FencingLoop loop = slowLoop("iad", List.of(), new FakeLocalMysql(MysqlState.WRITABLE));
    loop.tick();

    assertThat(loop.status().leaseTimeout()).isEqualTo(SLOW_LEASE);
    assertThat(loop.peerCheckInterval()).isEqualTo(SLOW_INTERVAL);
  }

  @Test
  void peersDoNotRelayTheGroupsTiming() {
    watcher.respond("/active-site", 503, "{}");
    peer.respond("/peer/active-site", 200, withTiming(view("iad", T0), 45_000, 10_000));
    FencingLoop loop = slowLoop("iad", List.of(peer.url()), new FakeLocalMysql(MysqlState.WRITABLE));
    loop.tick();

    assertThat(loop.view()).contains(new ActiveSiteView("iad", T0));
    assertThat(loop.status().leaseTimeout()).isEqualTo(SLOW_LEASE);
  }

  @Test
  void contactTimesAreExportedAsEpochSeconds() {
    watcher.respond("/active-site", 200, view("iad", T0));
    peer.respond("/peer/active-site", 204, null);
    FencingLoop loop = loop("iad", watcher.url(), List.of(peer.url()), new FakeLocalMysql(MysqlState.WRITABLE));
    clock.advance(Duration.ofSeconds(7));
    loop.tick();

    assertThat(gauge(metrics.scrape(), "kind=\"watcher\"")).isEqualTo(T0.plusSeconds(7).getEpochSecond());
    assertThat(gauge(metrics.scrape(), "kind=\"peer\"")).isEqualTo(T0.plusSeconds(7).getEpochSecond());
    assertThat(metrics.scrape()).contains("endpoint=\"" + Endpoints.describe(peer.url()) + "\"");
  }

  private static double gauge(String scrape, String label) {
    return scrape.lines()
        .filter(line -> line.startsWith("bloodraven_sidecar_last_contact_timestamp_seconds{") && line.contains(label))
        .map(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no contact gauge with " + label + " in\n" + scrape));
  }

  private record SilentWatcherTick(FencingLoop loop, FakeLocalMysql mysql, Duration took) {}

  /**
   * One tick with iad active everywhere, then a second one after the link to the watcher was
   * black-holed and the peer began to answer {@code peerView}; returns how long the second took.
   * A 5 s interval gives 2 s request timeouts, far longer than a loopback answer takes.
   */
  private SilentWatcherTick tickWithTheWatcherSilent(String site, MysqlState state, String peerView) {
    watcher.respond("/active-site", 200, view("iad", T0));
    peer.respond("/peer/active-site", 204, null);
    try (TcpProxy toWatcher = TcpProxy.start("127.0.0.1", watcher.url().getPort())) {
      FakeLocalMysql mysql = new FakeLocalMysql(state);
      FencingLoop loop = loop(site, toWatcher.httpUrl(), List.of(peer.url()), mysql, SLOW_LEASE, SLOW_INTERVAL);
      loop.tick();

      toWatcher.blackhole();
      peer.respond("/peer/active-site", 200, peerView);
      long started = System.nanoTime();
      loop.tick();
      return new SilentWatcherTick(loop, mysql, Duration.ofNanos(System.nanoTime() - started));
    }
  }

  /**
   * iad's loop with {@code activeSite} active: one tick in which the server answers in its state,
   * then one in which it answers no more.
   */
  private FencingLoop silentAfterOneTick(String activeSite, FakeLocalMysql mysql, FakeServerProcess process) {
    watcher.respond("/active-site", 200, view(activeSite, T0));
    FencingLoop loop = loop("iad", watcher.url(), List.of(), mysql, process);
    tickEvery(loop, 1);
    mysql.state = MysqlState.UNREACHABLE;
    tickEvery(loop, 1);
    return loop;
  }

  private FencingLoop slowLoop(String site, List<URI> peers, FakeLocalMysql mysql) {
    return loop(site, watcher.url(), peers, mysql, SLOW_LEASE, SLOW_INTERVAL);
  }

  private FencingLoop loop(String site, URI watcherUrl, List<URI> peers, FakeLocalMysql mysql) {
    return loop(site, watcherUrl, peers, mysql, LEASE, INTERVAL);
  }

  private FencingLoop loop(String site, URI watcherUrl, List<URI> peers, FakeLocalMysql mysql,
      ServerProcess process) {
    return loop(site, watcherUrl, peers, mysql, LEASE, INTERVAL, process);
  }

  private FencingLoop loop(String site, URI watcherUrl, List<URI> peers, FakeLocalMysql mysql, Duration lease,
      Duration interval) {
    return loop(site, watcherUrl, peers, mysql, lease, interval, ServerProcess.none());
  }

  private FencingLoop loop(String site, URI watcherUrl, List<URI> peers, FakeLocalMysql mysql, Duration lease,
      Duration interval, ServerProcess process) {
    SidecarConfig config = Configs.config(site, watcherUrl, peers, lease, interval);
    metrics = new SidecarMetrics(config.watcherUrl(), config.peerUrls());
    return new FencingLoop(config, clock, new TopologyClient(config, clock, io), mysql, process, metrics);
  }

  /**
   * dfw, a replica while iad is active, with a 20 s lease: one tick with its server read-only and
   * the watcher answering {@code first}, then the next interval's, by which the server turned
   * writable and the watcher answers {@code then}.
   */
  private FencingLoop replicaTurnedWritable(String first, String then, FakeLocalMysql mysql) {
    watcher.respond("/active-site", 200, first);
    FencingLoop loop = loop("dfw", watcher.url(), List.of(), mysql, Duration.ofSeconds(20), INTERVAL);
    loop.tick();

    watcher.respond("/active-site", 200, then);
    clock.advance(INTERVAL);
    mysql.state = MysqlState.WRITABLE;
    loop.tick();
    return loop;
  }

  /** A tick exactly {@code lease} after the last contact: the lease still holds, nothing is fenced. */
  private void silentForALease(FencingLoop loop, FakeLocalMysql mysql, Duration lease) {
    clock.advance(lease);
    loop.tick();
    assertThat(mysql.calls).as("exactly one lease after the last contact").isEmpty();
  }

  /** The tick a millisecond after the lease ran out fences the server by rule 2. */
  private void fencesByRule2AMillisecondLater(FencingLoop loop, FakeLocalMysql mysql) {
    clock.advance(Duration.ofMillis(1));
    loop.tick();
    assertThat(mysql.calls).containsExactly("fence");
    assertThat(loop.status().lastAction()).isEqualTo(Action.FENCE_RULE2);
  }

  /** As {@link #tickEvery}, but the clock moves before each tick rather than after. */
  private void tickAfterEach(FencingLoop loop, int ticks) {
    for (int i = 0; i < ticks; i++) {
      clock.advance(INTERVAL);
      loop.tick();
    }
  }

  private void tickEvery(FencingLoop loop, int ticks) {
    for (int i = 0; i < ticks; i++) {
      loop.tick();
      clock.advance(INTERVAL);
    }
  }

  private static String view(String site, Instant at) {
    return new ActiveSiteView(site, at).toJson();
  }

  /** {@code json}, an answer of the watcher's, from a cache last confirmed {@code millis} before it. */
  private static String withStaleness(String json, long millis) {
    return json.substring(0, json.lastIndexOf('}')) + ",\"staleMillis\":" + millis + "}";
  }

  /** {@code json}, an answer of the watcher's, marked as read from the API server for this request. */
  private static String fresh(String json) {
    return json.substring(0, json.lastIndexOf('}')) + ",\"fresh\":true}";
  }

  /** {@code json}, an answer of the watcher's, with the group's timing added. */
  private static String withTiming(String json, long leaseMillis, long intervalMillis) {
    return json.substring(0, json.length() - 1) + ",\"leaseTimeoutMillis\":" + leaseMillis
        + ",\"peerCheckIntervalMillis\":" + intervalMillis + "}";
  }
}
