package io.shipstream.failover.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.sidecar.FencingDecision.Action;
import io.shipstream.failover.sidecar.FencingDecision.Boot;
import io.shipstream.failover.sidecar.FencingDecision.Inputs;
import io.shipstream.failover.sidecar.FencingDecision.MysqlState;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FencingDecisionTest {
  private static final Instant START = Instant.parse("2025-03-01T10:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(20);
  private static final String OWN = "iad";

  /**
   * Every combination of boot state, server state, view (none, naming this site, naming another,
   * or none in a group the watcher says has never had an active site) and lease (held, expired),
   * written out rather than derived, so the table is the specification.
   */
  @ParameterizedTest(name = "{0} {1} view={2} lease={3} -> {4}")
  @CsvSource({
      // An unreachable server cannot be acted on, whatever else is true.
      "PENDING,        UNREACHABLE, NONE,      HELD,    NONE",
      "PENDING,        UNREACHABLE, NONE,      EXPIRED, NONE",
      "PENDING,        UNREACHABLE, HERE,      HELD,    NONE",
      "PENDING,        UNREACHABLE, HERE,      EXPIRED, NONE",
      "PENDING,        UNREACHABLE, ELSEWHERE, HELD,    NONE",
      "PENDING,        UNREACHABLE, ELSEWHERE, EXPIRED, NONE",
      "FENCED_BY_BOOT, UNREACHABLE, NONE,      HELD,    NONE",
      "FENCED_BY_BOOT, UNREACHABLE, NONE,      EXPIRED, NONE",
      "FENCED_BY_BOOT, UNREACHABLE, HERE,      HELD,    NONE",
      "FENCED_BY_BOOT, UNREACHABLE, HERE,      EXPIRED, NONE",
      "FENCED_BY_BOOT, UNREACHABLE, ELSEWHERE, HELD,    NONE",
      "FENCED_BY_BOOT, UNREACHABLE, ELSEWHERE, EXPIRED, NONE",
      "DONE,           UNREACHABLE, NONE,      HELD,    NONE",
      "DONE,           UNREACHABLE, NONE,      EXPIRED, NONE",
      "DONE,           UNREACHABLE, HERE,      HELD,    NONE",
      "DONE,           UNREACHABLE, HERE,      EXPIRED, NONE",
      "DONE,           UNREACHABLE, ELSEWHERE, HELD,    NONE",
      "DONE,           UNREACHABLE, ELSEWHERE, EXPIRED, NONE",
      // Boot, read-only server: nothing to fence, and nothing the sidecar fenced to undo.
      "PENDING,        READ_ONLY,   NONE,      HELD,    NONE",
      "PENDING,        READ_ONLY,   NONE,      EXPIRED, NONE",
      "PENDING,        READ_ONLY,   HERE,      HELD,    NONE",
      "PENDING,        READ_ONLY,   HERE,      EXPIRED, NONE",
      "PENDING,        READ_ONLY,   ELSEWHERE, HELD,    NONE",
      "PENDING,        READ_ONLY,   ELSEWHERE, EXPIRED, NONE",
      // Boot, writable server: fenced unless this site is known to be the active one.
      "PENDING,        WRITABLE,    NONE,      HELD,    FENCE_AT_BOOT",
      "PENDING,        WRITABLE,    NONE,      EXPIRED, FENCE_AT_BOOT",
      "PENDING,        WRITABLE,    HERE,      HELD,    NONE",
      "PENDING,        WRITABLE,    HERE,      EXPIRED, FENCE_AT_BOOT",
      "PENDING,        WRITABLE,    ELSEWHERE, HELD,    FENCE_AT_BOOT",
      "PENDING,        WRITABLE,    ELSEWHERE, EXPIRED, FENCE_AT_BOOT",
      // The boot fence stands until a live view names this site.
      "FENCED_BY_BOOT, READ_ONLY,   NONE,      HELD,    NONE",
      "FENCED_BY_BOOT, READ_ONLY,   NONE,      EXPIRED, NONE",
      "FENCED_BY_BOOT, READ_ONLY,   HERE,      HELD,    UNFENCE_AT_BOOT",
      "FENCED_BY_BOOT, READ_ONLY,   HERE,      EXPIRED, NONE",
      "FENCED_BY_BOOT, READ_ONLY,   ELSEWHERE, HELD,    NONE",
      "FENCED_BY_BOOT, READ_ONLY,   ELSEWHERE, EXPIRED, NONE",
      // Made writable by someone else while boot-fenced: the steady-state rules apply.
      "FENCED_BY_BOOT, WRITABLE,    NONE,      HELD,    NONE",
      "FENCED_BY_BOOT, WRITABLE,    NONE,      EXPIRED, FENCE_RULE2",
      "FENCED_BY_BOOT, WRITABLE,    HERE,      HELD,    NONE",
      "FENCED_BY_BOOT, WRITABLE,    HERE,      EXPIRED, FENCE_RULE2",
      "FENCED_BY_BOOT, WRITABLE,    ELSEWHERE, HELD,    FENCE_RULE1",
      "FENCED_BY_BOOT, WRITABLE,    ELSEWHERE, EXPIRED, FENCE_RULE1",
      // Steady state, read-only server: never touched.
      "DONE,           READ_ONLY,   NONE,      HELD,    NONE",
      "DONE,           READ_ONLY,   NONE,      EXPIRED, NONE",
      "DONE,           READ_ONLY,   HERE,      HELD,    NONE",
      "DONE,           READ_ONLY,   HERE,      EXPIRED, NONE",
      "DONE,           READ_ONLY,   ELSEWHERE, HELD,    NONE",
      "DONE,           READ_ONLY,   ELSEWHERE, EXPIRED, NONE",
      // Steady state, writable server: rule 1 first, then rule 2.
      "DONE,           WRITABLE,    NONE,      HELD,    NONE",
      "DONE,           WRITABLE,    NONE,      EXPIRED, FENCE_RULE2",
      "DONE,           WRITABLE,    HERE,      HELD,    NONE",
      "DONE,           WRITABLE,    HERE,      EXPIRED, FENCE_RULE2",
      "DONE,           WRITABLE,    ELSEWHERE, HELD,    FENCE_RULE1",
      "DONE,           WRITABLE,    ELSEWHERE, EXPIRED, FENCE_RULE1",
      // A server that started read-only (its configuration's read_only, untouched since, replicating from
      // nobody) is a restarted primary: lifted once a live view names this site, never otherwise.
      "PENDING,        STARTUP_READ_ONLY, NONE,      HELD,    NONE",
      "PENDING,        STARTUP_READ_ONLY, NONE,      EXPIRED, NONE",
      "PENDING,        STARTUP_READ_ONLY, HERE,      HELD,    UNFENCE_STARTUP",
      "PENDING,        STARTUP_READ_ONLY, HERE,      EXPIRED, NONE",
      "PENDING,        STARTUP_READ_ONLY, ELSEWHERE, HELD,    NONE",
      "PENDING,        STARTUP_READ_ONLY, ELSEWHERE, EXPIRED, NONE",
      "FENCED_BY_BOOT, STARTUP_READ_ONLY, NONE,      HELD,    NONE",
      "FENCED_BY_BOOT, STARTUP_READ_ONLY, NONE,      EXPIRED, NONE",
      "FENCED_BY_BOOT, STARTUP_READ_ONLY, HERE,      HELD,    UNFENCE_AT_BOOT",
      "FENCED_BY_BOOT, STARTUP_READ_ONLY, HERE,      EXPIRED, NONE",
      "FENCED_BY_BOOT, STARTUP_READ_ONLY, ELSEWHERE, HELD,    NONE",
      "FENCED_BY_BOOT, STARTUP_READ_ONLY, ELSEWHERE, EXPIRED, NONE",
      "DONE,           STARTUP_READ_ONLY, NONE,      HELD,    NONE",
      "DONE,           STARTUP_READ_ONLY, NONE,      EXPIRED, NONE",
      "DONE,           STARTUP_READ_ONLY, HERE,      HELD,    UNFENCE_STARTUP",
      "DONE,           STARTUP_READ_ONLY, HERE,      EXPIRED, NONE",
      "DONE,           STARTUP_READ_ONLY, ELSEWHERE, HELD,    NONE",
      "DONE,           STARTUP_READ_ONLY, ELSEWHERE, EXPIRED, NONE",
      // A hung server (no answer, its process alive, maybe writable) is stopped where rule 1 or 2 would fence.
      "PENDING,        HUNG,              NONE,      HELD,    NONE",
      "PENDING,        HUNG,              NONE,      EXPIRED, STOP_SERVER",
      "PENDING,        HUNG,              HERE,      HELD,    NONE",
      "PENDING,        HUNG,              HERE,      EXPIRED, STOP_SERVER",
      "PENDING,        HUNG,              ELSEWHERE, HELD,    STOP_SERVER",
      "PENDING,        HUNG,              ELSEWHERE, EXPIRED, STOP_SERVER",
      "FENCED_BY_BOOT, HUNG,              NONE,      HELD,    NONE",
      "FENCED_BY_BOOT, HUNG,              NONE,      EXPIRED, STOP_SERVER",
      "FENCED_BY_BOOT, HUNG,              HERE,      HELD,    NONE",
      "FENCED_BY_BOOT, HUNG,              HERE,      EXPIRED, STOP_SERVER",
      "FENCED_BY_BOOT, HUNG,              ELSEWHERE, HELD,    STOP_SERVER",
      "FENCED_BY_BOOT, HUNG,              ELSEWHERE, EXPIRED, STOP_SERVER",
      "DONE,           HUNG,              NONE,      HELD,    NONE",
      "DONE,           HUNG,              NONE,      EXPIRED, STOP_SERVER",
      "DONE,           HUNG,              HERE,      HELD,    NONE",
      "DONE,           HUNG,              HERE,      EXPIRED, STOP_SERVER",
      "DONE,           HUNG,              ELSEWHERE, HELD,    STOP_SERVER",
      "DONE,           HUNG,              ELSEWHERE, EXPIRED, STOP_SERVER",
      // A dead server takes no writes: nothing to do.
      "PENDING,        STOPPED,           NONE,      HELD,    NONE",
      "PENDING,        STOPPED,           NONE,      EXPIRED, NONE",
      "PENDING,        STOPPED,           HERE,      HELD,    NONE",
      "PENDING,        STOPPED,           HERE,      EXPIRED, NONE",
      "PENDING,        STOPPED,           ELSEWHERE, HELD,    NONE",
      "PENDING,        STOPPED,           ELSEWHERE, EXPIRED, NONE",
      "FENCED_BY_BOOT, STOPPED,           NONE,      HELD,    NONE",
      "FENCED_BY_BOOT, STOPPED,           NONE,      EXPIRED, NONE",
      "FENCED_BY_BOOT, STOPPED,           HERE,      HELD,    NONE",
      "FENCED_BY_BOOT, STOPPED,           HERE,      EXPIRED, NONE",
      "FENCED_BY_BOOT, STOPPED,           ELSEWHERE, HELD,    NONE",
      "FENCED_BY_BOOT, STOPPED,           ELSEWHERE, EXPIRED, NONE",
      "DONE,           STOPPED,           NONE,      HELD,    NONE",
      "DONE,           STOPPED,           NONE,      EXPIRED, NONE",
      "DONE,           STOPPED,           HERE,      HELD,    NONE",
      "DONE,           STOPPED,           HERE,      EXPIRED, NONE",
      "DONE,           STOPPED,           ELSEWHERE, HELD,    NONE",
      "DONE,           STOPPED,           ELSEWHERE, EXPIRED, NONE",
      // A group that has never had an active site (the watcher said so; no view names a site): its
      // writable server is not fenced at boot and a boot fence is lifted, rule 1 has no site to act
      // on, and rule 2 still fences once the lease runs out.
      "PENDING,        WRITABLE,          NEVER_ACTIVE, HELD,    NONE",
      "PENDING,        WRITABLE,          NEVER_ACTIVE, EXPIRED, FENCE_AT_BOOT",
      "FENCED_BY_BOOT, WRITABLE,          NEVER_ACTIVE, HELD,    NONE",
      "FENCED_BY_BOOT, WRITABLE,          NEVER_ACTIVE, EXPIRED, FENCE_RULE2",
      "DONE,           WRITABLE,          NEVER_ACTIVE, HELD,    NONE",
      "DONE,           WRITABLE,          NEVER_ACTIVE, EXPIRED, FENCE_RULE2",
      "PENDING,        READ_ONLY,         NEVER_ACTIVE, HELD,    NONE",
      "PENDING,        READ_ONLY,         NEVER_ACTIVE, EXPIRED, NONE",
      "FENCED_BY_BOOT, READ_ONLY,         NEVER_ACTIVE, HELD,    UNFENCE_AT_BOOT",
      "FENCED_BY_BOOT, READ_ONLY,         NEVER_ACTIVE, EXPIRED, NONE",
      "DONE,           READ_ONLY,         NEVER_ACTIVE, HELD,    NONE",
      "DONE,           READ_ONLY,         NEVER_ACTIVE, EXPIRED, NONE",
      // The server's own start-up read-only is lifted only for a view that names this site.
      "PENDING,        STARTUP_READ_ONLY, NEVER_ACTIVE, HELD,    NONE",
      "PENDING,        STARTUP_READ_ONLY, NEVER_ACTIVE, EXPIRED, NONE",
      "FENCED_BY_BOOT, STARTUP_READ_ONLY, NEVER_ACTIVE, HELD,    NONE",
      "FENCED_BY_BOOT, STARTUP_READ_ONLY, NEVER_ACTIVE, EXPIRED, NONE",
      "DONE,           STARTUP_READ_ONLY, NEVER_ACTIVE, HELD,    NONE",
      "DONE,           STARTUP_READ_ONLY, NEVER_ACTIVE, EXPIRED, NONE",
      "PENDING,        HUNG,              NEVER_ACTIVE, HELD,    NONE",
      "PENDING,        HUNG,              NEVER_ACTIVE, EXPIRED, STOP_SERVER",
      "FENCED_BY_BOOT, HUNG,              NEVER_ACTIVE, HELD,    NONE",
      "FENCED_BY_BOOT, HUNG,              NEVER_ACTIVE, EXPIRED, STOP_SERVER",
      "DONE,           HUNG,              NEVER_ACTIVE, HELD,    NONE",
      "DONE,           HUNG,              NEVER_ACTIVE, EXPIRED, STOP_SERVER",
      "PENDING,        UNREACHABLE,       NEVER_ACTIVE, HELD,    NONE",
      "PENDING,        UNREACHABLE,       NEVER_ACTIVE, EXPIRED, NONE",
      "FENCED_BY_BOOT, UNREACHABLE,       NEVER_ACTIVE, HELD,    NONE",
      "FENCED_BY_BOOT, UNREACHABLE,       NEVER_ACTIVE, EXPIRED, NONE",
      "DONE,           UNREACHABLE,       NEVER_ACTIVE, HELD,    NONE",
      "DONE,           UNREACHABLE,       NEVER_ACTIVE, EXPIRED, NONE",
      "PENDING,        STOPPED,           NEVER_ACTIVE, HELD,    NONE",
      "PENDING,        STOPPED,           NEVER_ACTIVE, EXPIRED, NONE",
      "FENCED_BY_BOOT, STOPPED,           NEVER_ACTIVE, HELD,    NONE",
      "FENCED_BY_BOOT, STOPPED,           NEVER_ACTIVE, EXPIRED, NONE",
      "DONE,           STOPPED,           NEVER_ACTIVE, HELD,    NONE",
      "DONE,           STOPPED,           NEVER_ACTIVE, EXPIRED, NONE",
  })
  void decidesEveryCombination(Boot boot, MysqlState mysql, ViewKind view, Lease lease, Action expected) {
    Instant now = START.plus(Duration.ofMinutes(5));
    Instant lastContact = lease == Lease.HELD ? now.minus(LEASE) : now.minus(LEASE).minusMillis(1);
    Inputs inputs = new Inputs(now, OWN, view.view(), START, Optional.of(lastContact), List.of(), LEASE, mysql, boot,
        Optional.empty(), view == ViewKind.NEVER_ACTIVE);

    assertThat(FencingDecision.decide(inputs)).isEqualTo(expected);
  }

  /**
   * Told the group was deleted (its tombstone), the sidecar touches its server no more, whatever
   * every other input says: in every combination of the table above it does nothing.
   */
  @Test
  void aDeletedGroupsServerIsNeitherFencedNorUnfencedNorStopped() {
    Instant now = START.plus(Duration.ofMinutes(5));
    int combinations = 0;
    for (Boot boot : Boot.values()) {
      for (MysqlState mysql : MysqlState.values()) {
        for (ViewKind view : ViewKind.values()) {
          for (Lease lease : Lease.values()) {
            Instant lastContact = lease == Lease.HELD ? now.minus(LEASE) : now.minus(LEASE).minusMillis(1);
            Inputs deleted = new Inputs(now, OWN, view.view(), START, Optional.of(lastContact), List.of(), LEASE,
                mysql, boot, Optional.of(new FencingDecision.Promotion("pdx", now.minusSeconds(1), true)),
                view == ViewKind.NEVER_ACTIVE, true);
            assertThat(FencingDecision.decide(deleted)).as("%s %s %s %s", boot, mysql, view, lease)
                .isEqualTo(Action.NONE);
            combinations++;
          }
        }
      }
    }
    assertThat(combinations).isGreaterThan(100);
  }

  @Test
  void aViewNamingASiteOverridesAnEarlierNeverActive() {
    Instant now = START.plusSeconds(100);
    Inputs elsewhere = new Inputs(now, OWN, ViewKind.ELSEWHERE.view(), START, Optional.of(now), List.of(), LEASE,
        MysqlState.WRITABLE, Boot.PENDING, Optional.empty(), true);

    assertThat(elsewhere.groupNeverActive()).isFalse();
    assertThat(FencingDecision.decide(elsewhere)).isEqualTo(Action.FENCE_AT_BOOT);
  }

  @Test
  void theTableCoversEveryCombinationExactlyOnce() throws NoSuchMethodException {
    String[] rows = FencingDecisionTest.class
        .getDeclaredMethod("decidesEveryCombination", Boot.class, MysqlState.class, ViewKind.class, Lease.class,
            Action.class)
        .getAnnotation(CsvSource.class)
        .value();
    Set<List<String>> covered = new HashSet<>();
    for (String row : rows) {
      covered.add(Arrays.stream(row.split(",")).map(String::strip).limit(4).toList());
    }
    Set<List<String>> all = new HashSet<>();
    for (Boot boot : Boot.values()) {
      for (MysqlState mysql : MysqlState.values()) {
        for (ViewKind view : ViewKind.values()) {
          for (Lease lease : Lease.values()) {
            all.add(List.of(boot.name(), mysql.name(), view.name(), lease.name()));
          }
        }
      }
    }
    assertThat(rows).hasSize(all.size());
    assertThat(covered).isEqualTo(all);
  }

  @Test
  void aContactExactlyOneLeaseAgoStillHoldsTheLease() {
    Instant now = START.plusSeconds(100);
    assertThat(FencingDecision.decide(steady(now, Optional.of(now.minus(LEASE)), List.of()))).isEqualTo(Action.NONE);
    assertThat(FencingDecision.decide(steady(now, Optional.of(now.minus(LEASE).minusNanos(1)), List.of())))
        .isEqualTo(Action.FENCE_RULE2);
  }

  @Test
  void anyOnePeerHoldsTheLeaseWhileTheWatcherIsSilent() {
    Instant now = START.plusSeconds(100);
    Inputs inputs = steady(now, Optional.of(START), List.of(now.minusSeconds(90), now.minusSeconds(1)));

    assertThat(inputs.lastContact()).isEqualTo(now.minusSeconds(1));
    assertThat(FencingDecision.decide(inputs)).isEqualTo(Action.NONE);
  }

  @Test
  void theWatcherAloneHoldsTheLeaseWhileEveryPeerIsSilent() {
    Instant now = START.plusSeconds(100);
    Inputs inputs = steady(now, Optional.of(now.minusSeconds(2)), List.of(now.minusSeconds(60), now.minusSeconds(90)));

    assertThat(FencingDecision.decide(inputs)).isEqualTo(Action.NONE);
  }

  @Test
  void aSidecarThatNeverHeardFromAnyoneCountsItsLeaseFromItsStart() {
    Inputs fresh = steady(START.plus(LEASE), Optional.empty(), List.of());
    Inputs late = steady(START.plus(LEASE).plusMillis(1), Optional.empty(), List.of());

    assertThat(fresh.lastContact()).isEqualTo(START);
    assertThat(FencingDecision.decide(fresh)).isEqualTo(Action.NONE);
    assertThat(FencingDecision.decide(late)).isEqualTo(Action.FENCE_RULE2);
  }

  @Test
  void rule1DoesNotWaitForTheLease() {
    Instant now = START.plusSeconds(100);
    Inputs inputs = new Inputs(now, OWN, ViewKind.ELSEWHERE.view(), START, Optional.of(now), List.of(now), LEASE,
        MysqlState.WRITABLE, Boot.DONE);

    assertThat(FencingDecision.decide(inputs)).isEqualTo(Action.FENCE_RULE1);
  }

  @Test
  void rule1WaitsForARecordedFailoverWhileAPromotionIsInProgress() {
    Instant now = START.plusSeconds(100);
    FencingDecision.Promotion underDfw = new FencingDecision.Promotion("dfw", now.plusSeconds(1));

    assertThat(FencingDecision.decide(promoted(now, underDfw))).isEqualTo(Action.NONE);
    assertThat(FencingDecision.decide(promoted(now, new FencingDecision.Promotion("dfw", now))))
        .as("the grace includes its last instant").isEqualTo(Action.NONE);
    assertThat(FencingDecision.decide(promoted(now, new FencingDecision.Promotion("dfw", now.minusNanos(1)))))
        .as("the failover was never recorded").isEqualTo(Action.FENCE_RULE1);
    assertThat(FencingDecision.decide(promoted(now, new FencingDecision.Promotion("ord", now.plusSeconds(1)))))
        .as("the view has since named yet another site").isEqualTo(Action.FENCE_RULE1);
  }

  /**
   * {@link FencingDecision#afterFreshView}, row by row: what a view the watcher read from the API
   * server after the server turned writable makes of the promotion, and what rule 1 then does
   * inside the grace.
   */
  @ParameterizedTest(name = "fresh view {0} -> promotion {1}, action {2}")
  @CsvSource({
      // No fresh view (no answer, or an older watcher answering from its cache): the grace stands.
      "NONE,               KEPT,    NONE",
      // It names this site: the promotion is recorded; the view is adopted and names this site.
      "HERE,               GONE,    NONE",
      // It names this site but still fences it: the watcher's unfence, the grace covers it.
      "HERE_FENCED,        KEPT,    NONE",
      // It names another site after the server turned writable: nothing is promoting it.
      "ELSEWHERE,          REFUTED, FENCE_RULE1",
  })
  void aFreshViewConfirmsOrRefutesAPromotionAtOnce(String fresh, String expected, Action action) {
    Instant now = START.plusSeconds(100);
    // The watcher's unfence is noticed under a view that names this site and fences it.
    FencingDecision.Promotion grace = new FencingDecision.Promotion(fresh.equals("HERE_FENCED") ? OWN : "dfw",
        now.plusSeconds(1));
    Optional<ActiveSiteView> view = switch (fresh) {
      case "NONE" -> Optional.empty();
      case "HERE" -> Optional.of(new ActiveSiteView(OWN, now));
      case "HERE_FENCED" -> Optional.of(new ActiveSiteView(OWN, now, List.of(OWN)));
      default -> Optional.of(new ActiveSiteView("dfw", now));
    };

    Optional<FencingDecision.Promotion> after = FencingDecision.afterFreshView(grace, view, OWN);

    switch (expected) {
      case "KEPT" -> assertThat(after).contains(grace);
      case "GONE" -> assertThat(after).isEmpty();
      default -> assertThat(after).contains(new FencingDecision.Promotion(grace.site(), grace.until(), true));
    }
    // The tick decides on the fresh view when there is one (it is the watcher's, so it is adopted).
    Optional<ActiveSiteView> adopted = view.isPresent() ? view : ViewKind.ELSEWHERE.view();
    Inputs inputs = new Inputs(now, OWN, adopted, START, Optional.of(now), List.of(), LEASE, MysqlState.WRITABLE,
        Boot.DONE, after);
    assertThat(FencingDecision.decide(inputs)).isEqualTo(action);
  }

  @Test
  void aRefutedPromotionIsNoPromotionEvenInsideItsGrace() {
    Instant now = START.plusSeconds(100);
    FencingDecision.Promotion refuted = new FencingDecision.Promotion("dfw", now.plusSeconds(1), true);

    assertThat(promoted(now, refuted).promotionInProgress()).isFalse();
    assertThat(FencingDecision.decide(promoted(now, refuted))).isEqualTo(Action.FENCE_RULE1);
    Inputs hung = new Inputs(now, OWN, ViewKind.ELSEWHERE.view(), START, Optional.of(now), List.of(), LEASE,
        MysqlState.HUNG, Boot.DONE, Optional.of(refuted));
    assertThat(FencingDecision.decide(hung)).as("hung meanwhile: stopped, as rule 1 would fence it")
        .isEqualTo(Action.STOP_SERVER);
  }

  @Test
  void aHungServerIsNotStoppedWhileAPromotionOfItIsInProgress() {
    Instant now = START.plusSeconds(100);
    Inputs hung = new Inputs(now, OWN, ViewKind.ELSEWHERE.view(), START, Optional.of(now), List.of(), LEASE,
        MysqlState.HUNG, Boot.DONE, Optional.of(new FencingDecision.Promotion("dfw", now.plusSeconds(1))));

    assertThat(FencingDecision.decide(hung)).isEqualTo(Action.NONE);
  }

  @Test
  void onlyAnAnswerOfReadOnlyOrADeadProcessProvesThatTheServerTakesNoWrites() {
    assertThat(Arrays.stream(MysqlState.values()).filter(MysqlState::takesNoWrites))
        .containsExactlyInAnyOrder(MysqlState.READ_ONLY, MysqlState.STARTUP_READ_ONLY, MysqlState.STOPPED);
  }

  @Test
  void aPromotionInProgressDoesNotHoldOffRule2() {
    Instant now = START.plusSeconds(100);
    Inputs isolated =
        new Inputs(now, OWN, ViewKind.ELSEWHERE.view(), START, Optional.of(now.minus(LEASE).minusMillis(1)),
            List.of(), LEASE, MysqlState.WRITABLE, Boot.DONE, Optional.of(new FencingDecision.Promotion("dfw", now)));

    assertThat(isolated.promotionInProgress()).isTrue();
    assertThat(FencingDecision.decide(isolated)).isEqualTo(Action.FENCE_RULE2);
  }

  private static Inputs promoted(Instant now, FencingDecision.Promotion promotion) {
    return new Inputs(now, OWN, ViewKind.ELSEWHERE.view(), START, Optional.of(now), List.of(), LEASE,
        MysqlState.WRITABLE, Boot.DONE, Optional.of(promotion));
  }

  @ParameterizedTest(name = "{0} {1} {2} -> {3}")
  @CsvSource({
      "PENDING,        UNREACHABLE, NONE,            PENDING",
      "PENDING,        READ_ONLY,   NONE,            DONE",
      "PENDING,        WRITABLE,    NONE,            DONE",
      "PENDING,        WRITABLE,    FENCE_AT_BOOT,   FENCED_BY_BOOT",
      "FENCED_BY_BOOT, UNREACHABLE, NONE,            FENCED_BY_BOOT",
      "FENCED_BY_BOOT, READ_ONLY,   NONE,            FENCED_BY_BOOT",
      "FENCED_BY_BOOT, READ_ONLY,   UNFENCE_AT_BOOT, DONE",
      "FENCED_BY_BOOT, WRITABLE,    NONE,            DONE",
      "FENCED_BY_BOOT, WRITABLE,    FENCE_RULE1,     DONE",
      "DONE,           WRITABLE,    FENCE_RULE2,     DONE",
      "DONE,           READ_ONLY,   NONE,            DONE",
      "DONE,           UNREACHABLE, NONE,            DONE",
      "PENDING,        HUNG,        STOP_SERVER,     PENDING",
      "DONE,           STOPPED,     NONE,            DONE",
      "PENDING,        STARTUP_READ_ONLY, UNFENCE_STARTUP, DONE",
      "DONE,           STARTUP_READ_ONLY, UNFENCE_STARTUP, DONE",
      "FENCED_BY_BOOT, STARTUP_READ_ONLY, UNFENCE_AT_BOOT, DONE",
  })
  void bootStateAfterEachOutcome(Boot boot, MysqlState mysql, Action action, Boot expected) {
    assertThat(FencingDecision.nextBoot(boot, mysql, action)).isEqualTo(expected);
  }

  /**
   * The operator's fence: the view names this site active and fences it (a DBA fenced the active
   * site, which stops the group's writes on purpose). Every combination, as above: a writable
   * server is fenced whatever the boot state, and nothing read-only is ever lifted.
   */
  @ParameterizedTest(name = "fenced active site: {0} {1} lease={2} -> {3}")
  @CsvSource({
      "PENDING,        WRITABLE,          HELD,    FENCE_AT_BOOT",
      "PENDING,        WRITABLE,          EXPIRED, FENCE_AT_BOOT",
      "PENDING,        READ_ONLY,         HELD,    NONE",
      "PENDING,        READ_ONLY,         EXPIRED, NONE",
      "PENDING,        STARTUP_READ_ONLY, HELD,    NONE",
      "PENDING,        STARTUP_READ_ONLY, EXPIRED, NONE",
      "PENDING,        HUNG,              HELD,    NONE",
      "PENDING,        HUNG,              EXPIRED, STOP_SERVER",
      "PENDING,        UNREACHABLE,       HELD,    NONE",
      "PENDING,        UNREACHABLE,       EXPIRED, NONE",
      "PENDING,        STOPPED,           HELD,    NONE",
      "PENDING,        STOPPED,           EXPIRED, NONE",
      "FENCED_BY_BOOT, WRITABLE,          HELD,    FENCE_OPERATOR",
      "FENCED_BY_BOOT, WRITABLE,          EXPIRED, FENCE_OPERATOR",
      "FENCED_BY_BOOT, READ_ONLY,         HELD,    NONE",
      "FENCED_BY_BOOT, READ_ONLY,         EXPIRED, NONE",
      "FENCED_BY_BOOT, STARTUP_READ_ONLY, HELD,    NONE",
      "FENCED_BY_BOOT, STARTUP_READ_ONLY, EXPIRED, NONE",
      "FENCED_BY_BOOT, HUNG,              HELD,    NONE",
      "FENCED_BY_BOOT, HUNG,              EXPIRED, STOP_SERVER",
      "FENCED_BY_BOOT, UNREACHABLE,       HELD,    NONE",
      "FENCED_BY_BOOT, UNREACHABLE,       EXPIRED, NONE",
      "FENCED_BY_BOOT, STOPPED,           HELD,    NONE",
      "FENCED_BY_BOOT, STOPPED,           EXPIRED, NONE",
      "DONE,           WRITABLE,          HELD,    FENCE_OPERATOR",
      "DONE,           WRITABLE,          EXPIRED, FENCE_OPERATOR",
      "DONE,           READ_ONLY,         HELD,    NONE",
      "DONE,           READ_ONLY,         EXPIRED, NONE",
      "DONE,           STARTUP_READ_ONLY, HELD,    NONE",
      "DONE,           STARTUP_READ_ONLY, EXPIRED, NONE",
      "DONE,           HUNG,              HELD,    NONE",
      "DONE,           HUNG,              EXPIRED, STOP_SERVER",
      "DONE,           UNREACHABLE,       HELD,    NONE",
      "DONE,           UNREACHABLE,       EXPIRED, NONE",
      "DONE,           STOPPED,           HELD,    NONE",
      "DONE,           STOPPED,           EXPIRED, NONE",
  })
  void aFencedActiveSiteIsHeldReadOnly(Boot boot, MysqlState mysql, Lease lease, Action expected) {
    Instant now = START.plus(Duration.ofMinutes(5));
    Instant lastContact = lease == Lease.HELD ? now.minus(LEASE) : now.minus(LEASE).minusMillis(1);
    Inputs inputs = new Inputs(now, OWN, Optional.of(new ActiveSiteView(OWN, START, List.of(OWN))), START,
        Optional.of(lastContact), List.of(), LEASE, mysql, boot);

    assertThat(FencingDecision.decide(inputs)).isEqualTo(expected);
  }

  @Test
  void aFencedReplicaMadeWritableByHandGetsNoGrace() {
    Instant now = START.plusSeconds(100);
    Optional<FencingDecision.Promotion> grace = Optional.of(new FencingDecision.Promotion("dfw", now.plusSeconds(1)));
    Inputs fenced = new Inputs(now, OWN, Optional.of(new ActiveSiteView("dfw", START, List.of(OWN))), START,
        Optional.of(now), List.of(), LEASE, MysqlState.WRITABLE, Boot.DONE, grace);
    Inputs notFenced = new Inputs(now, OWN, Optional.of(new ActiveSiteView("dfw", START, List.of("ord"))), START,
        Optional.of(now), List.of(), LEASE, MysqlState.WRITABLE, Boot.DONE, grace);

    assertThat(FencingDecision.decide(fenced)).as("a fenced site is never promoted").isEqualTo(Action.FENCE_RULE1);
    assertThat(FencingDecision.decide(notFenced)).as("another site's fence changes nothing here")
        .isEqualTo(Action.NONE);
  }

  @Test
  void theWatchersUnfenceOfTheActiveSiteGetsThePromotionGraceWhileTheViewStillFencesIt() {
    Instant now = START.plusSeconds(100);
    ActiveSiteView stale = new ActiveSiteView(OWN, START, List.of(OWN));
    Inputs inGrace = new Inputs(now, OWN, Optional.of(stale), START, Optional.of(now), List.of(), LEASE,
        MysqlState.WRITABLE, Boot.DONE, Optional.of(new FencingDecision.Promotion(OWN, now.plusSeconds(1))));
    Inputs graceOver = new Inputs(now, OWN, Optional.of(stale), START, Optional.of(now), List.of(), LEASE,
        MysqlState.WRITABLE, Boot.DONE, Optional.of(new FencingDecision.Promotion(OWN, now.minusNanos(1))));
    Inputs unfenced = new Inputs(now, OWN, Optional.of(new ActiveSiteView(OWN, START.plusSeconds(99))), START,
        Optional.of(now), List.of(), LEASE, MysqlState.WRITABLE, Boot.DONE);

    assertThat(FencingDecision.decide(inGrace)).isEqualTo(Action.NONE);
    assertThat(FencingDecision.decide(graceOver)).as("the status still fences it: the fence stands")
        .isEqualTo(Action.FENCE_OPERATOR);
    assertThat(FencingDecision.decide(unfenced)).isEqualTo(Action.NONE);
  }

  @Test
  void everyFenceHasARuleLabelAndNothingElseHasOne() {
    assertThat(List.of(Action.FENCE_AT_BOOT, Action.FENCE_RULE1, Action.FENCE_RULE2, Action.FENCE_OPERATOR))
        .extracting(Action::rule)
        .containsExactly("boot", "rule1", "rule2", "operator");
    assertThat(Action.NONE.fences()).isFalse();
    assertThat(Action.UNFENCE_AT_BOOT.fences()).isFalse();
    assertThat(Action.UNFENCE_STARTUP.fences()).isFalse();
    assertThat(Action.STOP_SERVER.fences()).as("a stop is no SQL fence").isFalse();
  }

  private static Inputs steady(Instant now, Optional<Instant> watcher, List<Instant> peers) {
    return new Inputs(now, OWN, ViewKind.HERE.view(), START, watcher, peers, LEASE, MysqlState.WRITABLE, Boot.DONE);
  }

  enum Lease { HELD, EXPIRED }

  enum ViewKind {
    NONE, HERE, ELSEWHERE, NEVER_ACTIVE;

    Optional<ActiveSiteView> view() {
      return switch (this) {
        case NONE, NEVER_ACTIVE -> Optional.empty();
        case HERE -> Optional.of(new ActiveSiteView(OWN, START));
        case ELSEWHERE -> Optional.of(new ActiveSiteView("dfw", START));
      };
    }
  }
}
