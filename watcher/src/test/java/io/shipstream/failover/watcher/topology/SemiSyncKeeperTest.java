package io.shipstream.failover.watcher.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SemiSyncStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.GroupConditions;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.model.topology.SemiSyncSettings;
import io.shipstream.failover.model.topology.SemiSyncState;
import io.shipstream.failover.model.topology.SiteObservation;
import io.shipstream.failover.model.topology.SiteState;
import io.shipstream.failover.testsupport.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The reconciler against fake servers that keep what they are given: the primary first, nothing
 * written to a server already right, a pass per poll interval and none while a failover runs, the
 * old primary's source side turned off after a failover, and a fallback told once (Warning Event,
 * Degraded problem, status) and its return once (Normal Event).
 */
class SemiSyncKeeperTest {
  private static final GroupRef G = Fixtures.ORDERS;
  private final MutableClock clock = new MutableClock(Fixtures.NOW);
  private final Fixtures.RecordingEffects effects = new Fixtures.RecordingEffects();
  private final List<SemiSyncStatus> written = new ArrayList<>();
  private final FakeServers servers = new FakeServers();
  /** What the monitor keeps about the group while its polls run: the keeper's slice of it. */
  private final SemiSyncKeeper.Memory memory = new SemiSyncKeeper.Memory();
  private final SemiSyncKeeper keeper = new SemiSyncKeeper(servers, effects, (ref, s) -> written.add(s), null, clock);

  /** Servers that take settings as given; the primary's source side is active unless {@link #fallen}. */
  static final class FakeServers implements SiteConnector {
    final Map<String, SemiSyncSettings> settings = new HashMap<>();
    final List<String> calls = new ArrayList<>();
    final List<String> writes = new ArrayList<>();
    boolean fallen;
    /** Sites whose server refuses every setting. */
    final java.util.Set<String> refusing = new java.util.HashSet<>();
    /**
     * Model how real servers switch on: an acknowledging replica whose replica side was just turned
     * on (its IO thread restarted) is connected to the primary from the next pass on, and a primary
     * without a connected one does not wait (preferred) and reads as fallen back meanwhile.
     */
    boolean connections;
    final java.util.Set<String> connecting = new java.util.HashSet<>();
    final java.util.Set<String> connected = new java.util.HashSet<>();

    @Override
    public Probe probe(GroupRef group, GroupConfig config, SiteSpec site) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void fence(GroupRef group, GroupConfig config, SiteSpec site) {
      throw new UnsupportedOperationException();
    }

    @Override
    public SemiSyncReading semiSync(GroupRef group, GroupConfig config, SiteSpec site, SemiSyncSettings want) {
      calls.add(site.name());
      if (refusing.contains(site.name())) {
        throw new IllegalStateException("access denied");
      }
      if (connections && want.sourceEnabled()) {
        connected.addAll(connecting);
        connecting.clear();
      }
      SemiSyncState before = state(site.name());
      List<String> changes = new ArrayList<>();
      if (!want.equals(settings.get(site.name()))) {
        SemiSyncSettings was = settings.put(site.name(), want);
        writes.add(site.name());
        changes.add("set " + want);
        if (connections && want.replicaEnabled() && !want.sourceEnabled() && (was == null || !was.replicaEnabled())) {
          connecting.add(site.name());
        }
      }
      return new SemiSyncReading(before, state(site.name()), changes);
    }

    private SemiSyncState state(String site) {
      SemiSyncSettings s = settings.get(site);
      if (s == null) {
        return new SemiSyncState(true, false, false, 0, null, null, null, false, false, false);
      }
      if (connections) {
        int clients = s.sourceEnabled() ? connected.size() : 0;
        return new SemiSyncState(true, s.sourceEnabled(), s.sourceEnabled() && clients > 0, clients, s.waitCount(),
            s.timeoutMillis(), "AFTER_SYNC", s.replicaEnabled(), connected.contains(site), s.waitNoReplica());
      }
      return new SemiSyncState(true, s.sourceEnabled(), s.sourceEnabled() && !fallen, fallen ? 0 : 1,
          s.waitCount(), s.timeoutMillis(), "AFTER_SYNC", s.replicaEnabled(), !s.sourceEnabled());
    }
  }

  private static GroupConfig config() {
    MysqlFailoverGroupSpec base = Fixtures.spec("5m", null);
    return GroupConfig.resolve(new MysqlFailoverGroupSpec(base.sites(), base.credentialsSecretRef(), "500ms", 3, 2,
        "5m", null, null, null, null, null, null, null, null,
        new MysqlFailoverGroupSpec.SemiSyncSpec(true, "preferred", "2s", 1,
            null)));
  }

  private static Map<String, SiteObservation> observations(String primary) {
    Map<String, SiteObservation> out = new LinkedHashMap<>();
    for (String site : List.of("dr", "pdx", "iad")) {
      Probe p = site.equals(primary) ? Fixtures.writable(site, "") : Fixtures.replica(site, "");
      out.put(site, new SiteObservation(site.equals(primary) ? SiteState.WRITABLE : SiteState.READ_ONLY, p, p));
    }
    return out;
  }

  private static MysqlFailoverGroupStatus active(String site) {
    return MysqlFailoverGroupStatus.empty().withActiveSite(site);
  }

  private Optional<GroupConditions.Problem> pass(String primary) {
    clock.advance(Duration.ofSeconds(1));
    return keeper.keep(memory, G, config(), active(primary), observations(primary), false);
  }

  @Test
  void appliesThePrimaryFirstThenNothingWhileRight() {
    assertThat(pass("iad")).isEmpty();
    assertThat(servers.calls).containsExactly("iad", "pdx", "dr");
    assertThat(servers.settings.get("iad")).isEqualTo(new SemiSyncSettings(true, true, 1, 2000L, false));
    assertThat(servers.settings.get("pdx")).isEqualTo(new SemiSyncSettings(false, true, null, null));
    assertThat(servers.settings.get("dr")).as("a dr-only site does not acknowledge by default")
        .isEqualTo(new SemiSyncSettings(false, false, null, null));
    assertThat(effects.events()).allMatch(e -> e.startsWith("Normal SemiSyncApplied")).hasSize(3);
    assertThat(written).hasSize(1);
    assertThat(written.get(0).enabled()).isTrue();
    assertThat(written.get(0).primary()).isEqualTo("iad");
    // What each replica's reading said, for the sites' readiness: the primary is no acknowledger.
    assertThat(SemiSyncKeeper.acking(memory)).containsEntry("pdx", true).doesNotContainKey("iad");

    servers.writes.clear();
    pass("iad");
    assertThat(servers.writes).as("nothing written to servers already right").isEmpty();
    assertThat(written).as("an unchanged status is not written again").hasSize(1);
    assertThat(effects.events()).hasSize(3);
  }

  @Test
  void onePassPerPollIntervalAndNoneWhileAFailoverRuns() {
    keeper.keep(memory, G, config(), active("iad"), observations("iad"), false);
    int calls = servers.calls.size();
    keeper.keep(memory, G, config(), active("iad"), observations("iad"), false);
    assertThat(servers.calls).hasSize(calls);
    clock.advance(Duration.ofSeconds(1));
    keeper.keep(memory, G, config(), active("iad"), observations("iad"), true);
    assertThat(servers.calls).as("a failover owns the servers meanwhile").hasSize(calls);
    java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
    keeper.keep(memory, G, config(), active("iad"), observations("iad"), () -> asked.incrementAndGet() < 0);
    assertThat(asked).as("Temporal is not asked between passes").hasValue(0);
  }

  @Test
  void afterAFailoverTheOldPrimaryLosesItsSourceSideAndTheNewOneHasIt() {
    pass("iad");
    servers.writes.clear();
    pass("pdx");
    assertThat(servers.settings.get("pdx")).isEqualTo(new SemiSyncSettings(true, true, 1, 2000L, false));
    assertThat(servers.settings.get("iad")).isEqualTo(new SemiSyncSettings(false, true, null, null));
    assertThat(servers.writes).containsExactlyInAnyOrder("pdx", "iad");
    assertThat(written.get(written.size() - 1).primary()).isEqualTo("pdx");
  }

  @Test
  void aFallbackIsToldOnceAndItsReturnToo() {
    pass("iad");
    servers.fallen = true;
    Optional<GroupConditions.Problem> problem = pass("iad");
    assertThat(problem).isPresent();
    assertThat(problem.get().reason()).isEqualTo("SemiSyncFallenBack");
    assertThat(problem.get().prevails()).isTrue();
    assertThat(written.get(written.size() - 1).fallenBack()).isTrue();
    pass("iad");
    assertThat(effects.events()).filteredOn(e -> e.contains("SemiSyncFallenBack")).hasSize(1)
        .allMatch(e -> e.startsWith("Warning"));

    servers.fallen = false;
    assertThat(pass("iad")).isEmpty();
    assertThat(effects.events()).filteredOn(e -> e.contains("SemiSyncRestored")).hasSize(1)
        .allMatch(e -> e.startsWith("Normal"));
    assertThat(written.get(written.size() - 1).fallenBack()).isFalse();
  }

  /**
   * Switching semi-sync on: the primary's source side is on a pass before its replica's IO thread
   * has reconnected with its replica side, and reads as not waiting for anyone meanwhile. That is
   * the switch-on, not a fall-back: no Warning, no Degraded problem, no Restored after it, and the
   * status says it is switching on.
   */
  @Test
  void switchingOnIsNoFallBack() {
    servers.connections = true;

    Optional<GroupConditions.Problem> first = pass("iad");

    assertThat(first).as("no Degraded problem while switching on").isEmpty();
    SemiSyncStatus switching = written.get(written.size() - 1);
    assertThat(switching.fallenBack()).isFalse();
    assertThat(switching.enabled()).isFalse();
    assertThat(switching.message()).contains("switching on");
    assertThat(pass("iad")).isEmpty();
    assertThat(written.get(written.size() - 1).enabled()).as("on once pdx is connected").isTrue();
    assertThat(effects.events()).noneMatch(e -> e.contains("SemiSyncFallenBack") || e.contains("SemiSyncRestored"));
  }

  /** A replica that never connects after the switch-on is a fall-back once the switch-on had its time. */
  @Test
  void aSwitchOnThatNeverConnectsIsAFallBackAfterItsGrace() {
    servers.connections = true;
    pass("iad");
    servers.connecting.clear();
    pass("iad");
    assertThat(effects.events()).noneMatch(e -> e.contains("SemiSyncFallenBack"));

    clock.advance(Duration.ofSeconds(5));
    Optional<GroupConditions.Problem> late = pass("iad");

    assertThat(late).isPresent();
    assertThat(late.get().reason()).isEqualTo("SemiSyncFallenBack");
    assertThat(effects.events()).filteredOn(e -> e.contains("SemiSyncFallenBack")).hasSize(1);
  }

  /** Once semi-sync was seen on, the first pass that reads it fallen back tells it: no grace. */
  @Test
  void aRealFallBackAfterTheSwitchOnIsToldAtTheFirstPass() {
    servers.connections = true;
    pass("iad");
    pass("iad");
    servers.connected.clear();

    Optional<GroupConditions.Problem> fallen = pass("iad");

    assertThat(fallen).isPresent();
    assertThat(effects.events()).filteredOn(e -> e.contains("SemiSyncFallenBack")).hasSize(1)
        .allMatch(e -> e.startsWith("Warning"));
  }

  /**
   * A fall-back already raised stays raised while another replica is switched on to rescue it (here
   * dr, once every site acknowledges), and its end is told as a return, not swallowed by the switch-on.
   */
  @Test
  void aSwitchOnDoesNotHideAFallBackAlreadyRaised() {
    servers.connections = true;
    pass("iad");
    pass("iad");
    servers.connected.clear();
    assertThat(pass("iad")).isPresent();

    clock.advance(Duration.ofSeconds(1));
    MysqlFailoverGroupSpec base = Fixtures.spec("5m", null);
    GroupConfig everySite = GroupConfig.resolve(new MysqlFailoverGroupSpec(base.sites(), base.credentialsSecretRef(),
        "500ms", 3, 2, "5m", null, null, null, null, null, null, null, null,
        new MysqlFailoverGroupSpec.SemiSyncSpec(true, "preferred", "2s", 1, "all")));
    Optional<GroupConditions.Problem> rescuing =
        keeper.keep(memory, G, everySite, active("iad"), observations("iad"), false);

    assertThat(servers.connecting).as("dr switched on").contains("dr");
    assertThat(rescuing).as("still raised while dr connects").isPresent();
    assertThat(written.get(written.size() - 1).fallenBack()).isTrue();
    clock.advance(Duration.ofSeconds(1));
    assertThat(keeper.keep(memory, G, everySite, active("iad"), observations("iad"), false)).isEmpty();
    assertThat(effects.events()).filteredOn(e -> e.contains("SemiSyncRestored")).hasSize(1);
    assertThat(effects.events()).filteredOn(e -> e.contains("SemiSyncFallenBack")).hasSize(1);
  }

  private static GroupConfig disabled() {
    MysqlFailoverGroupSpec base = Fixtures.spec("5m", null);
    return GroupConfig.resolve(new MysqlFailoverGroupSpec(base.sites(), base.credentialsSecretRef(), "500ms", 3, 2,
        "5m", null, null, null, null, null, null, null, null, null));
  }

  /** A pass with spec.semiSync removed, the group's status showing what was last written. */
  private Optional<GroupConditions.Problem> disabledPass(String primary) {
    clock.advance(Duration.ofSeconds(1));
    return keeper.keep(memory, G, disabled(),
        shown(primary, written.isEmpty() ? null : written.get(written.size() - 1)),
        observations(primary), false);
  }

  private static MysqlFailoverGroupStatus shown(String primary, SemiSyncStatus semiSync) {
    MysqlFailoverGroupStatus s = active(primary);
    return new MysqlFailoverGroupStatus(s.activeSite(), s.lastFailover(), s.lastFailoverTarget(),
        s.promotionGtidExecuted(), s.sites(), s.plannedFailover(), s.workflow(), s.conditions(), s.observedGeneration(),
        s.emergencyFailover(), semiSync, s.fencedSites(), s.lostTransactions(), s.lastPromotion(), s.failoverHistory(),
        s.readySites(), s.dryRun());
  }

  /**
   * A watcher that never saw semi-sync on (restarted, a new leader) goes by status.semiSync: there,
   * it switches every site off; absent, it leaves the servers alone.
   */
  @Test
  void aNewLeaderGoesByTheStatus() {
    pass("pdx");
    SemiSyncStatus on = written.get(written.size() - 1);
    SemiSyncKeeper fresh = new SemiSyncKeeper(servers, effects, (ref, st) -> written.add(st), null, clock);
    servers.calls.clear();

    fresh.keep(new SemiSyncKeeper.Memory(), G, disabled(), shown("pdx", null), observations("pdx"), false);
    assertThat(servers.calls).as("never on as far as the group shows: left alone").isEmpty();

    SemiSyncKeeper another = new SemiSyncKeeper(servers, effects, (ref, st) -> written.add(st), null, clock);
    another.keep(new SemiSyncKeeper.Memory(), G, disabled(), shown("pdx", on), observations("pdx"), false);
    assertThat(servers.calls).startsWith("pdx").hasSize(3);
    assertThat(servers.settings.values()).allMatch(SemiSyncSettings.OFF::equals);
    assertThat(written.get(written.size() - 1)).isNull();
  }

  /**
   * Semi-sync on, a failover to pdx (which the keeper then gives the source side), then
   * spec.semiSync removed: every site ends with both sides off, the new primary's source side
   * first, and status.semiSync is removed; from then on the servers are left alone.
   */
  @Test
  void removedFromTheSpecEverySiteIsSwitchedOffTheNewPrimaryFirst() {
    pass("iad");
    pass("pdx");
    assertThat(servers.settings.get("pdx").sourceEnabled()).isTrue();
    servers.calls.clear();

    assertThat(disabledPass("pdx")).isEmpty();

    assertThat(servers.calls).as("the primary's source side first").startsWith("pdx")
        .containsExactlyInAnyOrder("pdx", "iad", "dr");
    for (String site : List.of("pdx", "iad", "dr")) {
      assertThat(servers.settings.get(site)).as(site).isEqualTo(SemiSyncSettings.OFF);
    }
    assertThat(written.get(written.size() - 1)).as("status.semiSync removed").isNull();
    servers.calls.clear();
    disabledPass("pdx");
    assertThat(servers.calls).as("left alone once off everywhere").isEmpty();
  }

  /**
   * A primary that cannot be switched off keeps its replicas acknowledging (else it would wait out
   * its timeout on every commit), and the status says what is still on; no fall-back is raised.
   */
  @Test
  void aPrimaryThatRefusesKeepsItsReplicasAcknowledging() {
    pass("iad");
    pass("pdx");
    servers.fallen = true;
    assertThat(pass("pdx")).as("fallen back while on").isPresent();
    servers.refusing.add("pdx");
    servers.calls.clear();

    assertThat(disabledPass("pdx")).as("no fall-back raised once the user turned semi-sync off").isEmpty();

    assertThat(servers.calls).containsExactly("pdx");
    assertThat(servers.settings.get("iad").replicaEnabled()).isTrue();
    SemiSyncStatus status = written.get(written.size() - 1);
    assertThat(status.message()).startsWith("switching off").contains("pdx (not read)");
    assertThat(effects.events()).anyMatch(e -> e.startsWith("Warning SemiSyncNotApplied"));

    servers.refusing.clear();
    disabledPass("pdx");
    assertThat(servers.settings.values()).allMatch(SemiSyncSettings.OFF::equals);
    assertThat(written.get(written.size() - 1)).isNull();
  }

  @Test
  void disabledReadsNothing() {
    MysqlFailoverGroupSpec base = Fixtures.spec("5m", null);
    GroupConfig off = GroupConfig.resolve(base);
    assertThat(keeper.keep(memory, G, off, active("iad"), observations("iad"), false)).isEmpty();
    assertThat(servers.calls).isEmpty();
    assertThat(written).isEmpty();
  }
}
