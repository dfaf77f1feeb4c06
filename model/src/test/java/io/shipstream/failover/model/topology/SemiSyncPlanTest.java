package io.shipstream.failover.model.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.Specs;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.SemiSyncSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SemiSyncStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SemiSyncPlanTest {
  private static final List<SiteSpec> SITES = List.of(Specs.site("iad", null), Specs.site("pdx", null),
      Specs.site("ord", null), Specs.site("dr", SiteSpec.ROLE_DR_ONLY));

  private static GroupConfig config(List<SiteSpec> sites, SemiSyncSpec semi) {
    MysqlFailoverGroupSpec base = Specs.withSites(sites);
    return GroupConfig.resolve(new MysqlFailoverGroupSpec(base.sites(), null, null, null, null, null, null, null, null,
        null, null, null, null, null, semi));
  }

  private static GroupConfig config(SemiSyncSpec semi) {
    return config(SITES, semi);
  }

  /** durability, min, ackFrom, healthy replicas, flavor -> the primary's wait count; each replica's replica side. */
  @ParameterizedTest(name = "{0} min={1} ackFrom={2} healthy=[{3}] {4} -> wait {5}, replica sides {6}")
  @CsvSource(delimiter = '|', value = {
      "preferred | 2 | primaryCandidates | pdx ord    | mysql   | 2    | pdx ord",
      "preferred | 2 | primaryCandidates | pdx        | mysql   | 1    | pdx ord",
      "preferred | 2 | primaryCandidates | ''         | mysql   | 1    | pdx ord",
      "preferred | 2 | primaryCandidates | pdx dr     | mysql   | 1    | pdx ord",
      "preferred | 1 | primaryCandidates | pdx ord    | mysql   | 1    | pdx ord",
      "preferred | 3 | all               | pdx ord dr | mysql   | 3    | pdx ord dr",
      "preferred | 3 | all               | dr         | mysql   | 1    | pdx ord dr",
      "required  | 2 | primaryCandidates | ''         | mysql   | 2    | pdx ord",
      "required  | 2 | primaryCandidates | pdx ord    | mysql   | 2    | pdx ord",
      "preferred | 1 | primaryCandidates | ''         | mariadb | null | pdx ord",
      "required  | 1 | all               | pdx        | mariadb | null | pdx ord dr",
  })
  void thePrimaryWaitsForWhatTheDurabilityAndTheHealthyReplicasSay(String durability, int min, String ackFrom,
      String healthy, String flavor, String waitCount, String replicaSides) {
    GroupConfig config = config(new SemiSyncSpec(true, durability, "3s", min, ackFrom));
    Map<String, SemiSyncSettings> desired =
        SemiSyncPlan.desired(config, "iad", words(healthy), flavor.equals("mariadb"));

    SemiSyncSettings primary = desired.get("iad");
    assertThat(primary.sourceEnabled()).isTrue();
    assertThat(primary.replicaEnabled()).as("the primary acknowledges once demoted").isTrue();
    assertThat(primary.timeoutMillis()).isEqualTo(3000L);
    assertThat(primary.waitNoReplica()).as("waits while no replica is connected")
        .isEqualTo(durability.equals("required"));
    assertThat(primary.waitCount()).isEqualTo(waitCount.equals("null") ? null : Integer.valueOf(waitCount));
    for (String replica : List.of("pdx", "ord", "dr")) {
      SemiSyncSettings s = desired.get(replica);
      assertThat(s.sourceEnabled()).as(replica + " source side").isFalse();
      assertThat(s.replicaEnabled()).as(replica + " replica side").isEqualTo(words(replicaSides).contains(replica));
    }
  }

  @Test
  void disabledTouchesNothing() {
    assertThat(SemiSyncPlan.desired(config(null), "iad", Set.of("pdx"), false)).isEmpty();
    assertThat(SemiSyncPlan.desired(config(new SemiSyncSpec(false, null, null, null, null)), "iad", Set.of(), false))
        .isEmpty();
    assertThat(SemiSyncPlan.atPromotion(config(null), "pdx")).isNull();
    assertThat(SemiSyncPlan.status(config(null), "iad", null)).isNull();
  }

  /**
   * Disabled after the watcher had it on (status.semiSync shown): every site both sides off, the
   * active site first, whatever the watcher remembers setting; never had on: nothing.
   */
  @ParameterizedTest(name = "enabled={0} shown={1} active={2} -> {3}")
  @CsvSource(delimiter = '|', value = {
      "false | true  | pdx  | pdx iad ord dr",
      "false | true  | iad  | iad pdx ord dr",
      "false | true  | null | iad pdx ord dr",
      "false | true  | gone | iad pdx ord dr",
      "false | false | pdx  | ''",
      "true  | true  | null | ''",
  })
  void switchedOffEverySiteGetsBothSidesOffThePrimaryFirst(boolean enabled, boolean shown, String active,
      String order) {
    GroupConfig config = config(enabled ? new SemiSyncSpec(true, null, null, null, null) : null);
    SemiSyncStatus status = shown ? new SemiSyncStatus("iad", "required", true, 1, 1, false, "on") : null;

    Map<String, SemiSyncSettings> desired = SemiSyncPlan.desired(config, active.equals("null") ? null : active,
        Set.of("iad", "pdx", "ord"), false, status);

    assertThat(List.copyOf(desired.keySet())).isEqualTo(order.isEmpty() ? List.of() : List.of(order.split(" ")));
    assertThat(desired.values()).allMatch(SemiSyncSettings.OFF::equals);
  }

  /** The switch-off's status: what is still on or unread; null (removed) once every site reads off. */
  @Test
  void theSwitchOffEndsWhenEverySiteReadsOff() {
    GroupConfig config = config(null);
    SemiSyncState off = new SemiSyncState(true, false, false, 0, 1, 30_000L, "AFTER_SYNC", false, false);
    SemiSyncState source = new SemiSyncState(true, true, true, 1, 1, 30_000L, "AFTER_SYNC", true, false);
    SemiSyncState replica = new SemiSyncState(true, false, false, 0, 1, 30_000L, "AFTER_SYNC", true, true);

    assertThat(SemiSyncPlan.whileSwitchingOff(config, "pdx",
        Map.of("iad", off, "pdx", off, "ord", off, "dr", SemiSyncState.unavailable())))
        .as("a server without semi-sync is off").isNull();
    SemiSyncStatus halfway = SemiSyncPlan.whileSwitchingOff(config, "pdx",
        Map.of("iad", replica, "pdx", source, "ord", off));
    assertThat(halfway.primary()).isEqualTo("pdx");
    assertThat(halfway.enabled()).as("the primary still waits").isTrue();
    assertThat(halfway.fallenBack()).isFalse();
    assertThat(halfway.message()).startsWith("switching off").contains("iad (replica side on)")
        .contains("pdx (source side and replica side on)").contains("dr (not read)").doesNotContain("ord");
    assertThat(SemiSyncPlan.whileSwitchingOff(config, "pdx", Map.of("pdx", off, "iad", off, "ord", off)).enabled())
        .isFalse();
  }

  @Test
  void bothSidesOffAreSatisfiedByAServerWithoutSemiSync() {
    assertThat(SemiSyncSettings.OFF.satisfiedBy(SemiSyncState.unavailable()))
        .as("nothing to install to turn off what is not there").isTrue();
    assertThat(new SemiSyncSettings(false, true, null, null).satisfiedBy(SemiSyncState.unavailable())).isFalse();
  }

  @Test
  void noActiveSiteNoSettings() {
    assertThat(SemiSyncPlan.desired(config(new SemiSyncSpec(true, null, null, null, null)), null, Set.of(), false))
        .isEmpty();
  }

  @Test
  void thePromotionStartsPreferredAtOneAndRequiredPinned() {
    SemiSyncSettings preferred = SemiSyncPlan.atPromotion(config(new SemiSyncSpec(true, "preferred", null, 2, null)),
        "pdx");
    assertThat(preferred).as("preferred does not wait while no replica is connected")
        .isEqualTo(new SemiSyncSettings(true, true, 1, 10_000L, false));
    SemiSyncSettings required = SemiSyncPlan.atPromotion(config(new SemiSyncSpec(true, "required", "2s", 2, null)),
        "pdx");
    assertThat(required).as("required waits even while no replica is connected")
        .isEqualTo(new SemiSyncSettings(true, true, 2, 2_000L, true));
  }

  @Test
  void settingsAreSatisfiedOnlyByAnExactReading() {
    SemiSyncSettings want = new SemiSyncSettings(true, true, 2, 3000L);
    SemiSyncState right = new SemiSyncState(true, true, true, 2, 2, 3000L, "AFTER_SYNC", true, false);
    assertThat(want.satisfiedBy(right)).isTrue();
    assertThat(want.satisfiedBy(new SemiSyncState(true, true, true, 2, 1, 3000L, "AFTER_SYNC", true, false))).isFalse();
    assertThat(want.satisfiedBy(new SemiSyncState(true, true, true, 2, 2, 10000L, "AFTER_SYNC", true, false)))
        .isFalse();
    assertThat(want.satisfiedBy(new SemiSyncState(true, true, true, 2, 2, 3000L, "AFTER_COMMIT", true, false)))
        .isFalse();
    assertThat(want.satisfiedBy(new SemiSyncState(true, false, false, 2, 2, 3000L, "AFTER_SYNC", true, false)))
        .isFalse();
    assertThat(want.satisfiedBy(SemiSyncState.unavailable())).isFalse();
    SemiSyncSettings preferred = new SemiSyncSettings(true, true, 2, 3000L, false);
    assertThat(preferred.satisfiedBy(new SemiSyncState(true, true, true, 2, 2, 3000L, "AFTER_SYNC", true, false,
        false))).isTrue();
    assertThat(preferred.satisfiedBy(new SemiSyncState(true, true, true, 2, 2, 3000L, "AFTER_SYNC", true, false,
        true))).as("still waits while no replica is connected").isFalse();
    SemiSyncSettings replica = new SemiSyncSettings(false, true, null, null);
    assertThat(replica.satisfiedBy(new SemiSyncState(true, false, false, 0, 1, 10000L, "AFTER_COMMIT", true, true)))
        .as("a replica's source-side details do not matter").isTrue();
    assertThat(replica.satisfiedBy(new SemiSyncState(true, false, false, 0, 1, 10000L, "AFTER_SYNC", false, false)))
        .isFalse();
    assertThat(want.satisfiedBy(new SemiSyncState(true, true, true, 2, null, 3000L, "AFTER_SYNC", true, false)))
        .as("MariaDB has no wait count to compare").isTrue();
  }

  @Test
  void thePrimarysReadingSaysWhetherItFellBack() {
    GroupConfig config = config(new SemiSyncSpec(true, "preferred", "2s", 1, null));
    SemiSyncStatus active = SemiSyncPlan.status(config, "iad",
        new SemiSyncState(true, true, true, 1, 1, 2000L, "AFTER_SYNC", true, false));
    assertThat(active.enabled()).isTrue();
    assertThat(active.fallenBack()).isFalse();
    assertThat(active.waitCount()).isEqualTo(1);
    assertThat(active.clients()).isEqualTo(1);

    SemiSyncStatus fallen = SemiSyncPlan.status(config, "iad",
        new SemiSyncState(true, true, false, 0, 1, 2000L, "AFTER_SYNC", true, false));
    assertThat(fallen.enabled()).isFalse();
    assertThat(fallen.fallenBack()).isTrue();
    assertThat(fallen.message()).contains("fallen back to asynchronous");

    SemiSyncStatus mariaDb = SemiSyncPlan.status(config, "iad",
        new SemiSyncState(true, true, true, 1, null, 2000L, "AFTER_SYNC", true, false));
    assertThat(mariaDb.waitCount()).as("MariaDB waits for one").isEqualTo(1);

    SemiSyncStatus off = SemiSyncPlan.status(config, "iad",
        new SemiSyncState(true, false, false, 0, null, 2000L, "AFTER_SYNC", true, false));
    assertThat(off.enabled()).isFalse();
    assertThat(off.fallenBack()).as("off is not fallen back: the reconciler turns it on").isFalse();
    assertThat(SemiSyncPlan.status(config, "iad", SemiSyncState.unavailable()).enabled()).isFalse();

    // MariaDB keeps reporting the source side active when preferred stops waiting with no replica.
    SemiSyncStatus none = SemiSyncPlan.status(config, "iad",
        new SemiSyncState(true, true, true, 0, null, 2000L, "AFTER_SYNC", true, false, false));
    assertThat(none.enabled()).isFalse();
    assertThat(none.fallenBack()).isTrue();
    assertThat(none.message()).startsWith("asynchronous: no semi-synchronous replica is connected");
    SemiSyncStatus waiting = SemiSyncPlan.status(config, "iad",
        new SemiSyncState(true, true, true, 0, null, 2000L, "AFTER_SYNC", true, false, true));
    assertThat(waiting.fallenBack()).as("required waits for one: not fallen back until its timeout").isFalse();
  }

  /** While semi-sync is switched on ({@link SemiSyncFallback} row 3) the status says so, and not fallen back. */
  @Test
  void aPrimaryBeingSwitchedOnIsNotShownFallenBack() {
    GroupConfig config = config(new SemiSyncSpec(true, "preferred", "2s", 1, null));
    SemiSyncState noReplicaYet = new SemiSyncState(true, true, true, 0, null, 2000L, "AFTER_SYNC", true, false, false);

    SemiSyncStatus switching = SemiSyncPlan.status(config, "iad", noReplicaYet, true);

    assertThat(switching.fallenBack()).isFalse();
    assertThat(switching.enabled()).as("its commits do not wait yet").isFalse();
    assertThat(switching.message()).startsWith("switching on:");
    assertThat(SemiSyncPlan.status(config, "iad", noReplicaYet, false).fallenBack()).isTrue();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "min 0                       | true  | preferred | 0 | primaryCandidates | ''      | semiSync.minSyncReplicas must be at least 1, not 0",
      "min above the candidates    | true  | preferred | 3 | primaryCandidates | ''      | only 2 replica(s) can acknowledge",
      "min above every site        | true  | preferred | 4 | all               | ''      | only 3 replica(s) can acknowledge",
      "MariaDB waits for one       | true  | preferred | 2 | primaryCandidates | mariadb | MariaDB waits for exactly one",
      "an unknown durability       | true  | strict    | 1 | primaryCandidates | ''      | semiSync.dataDurability must be",
      "an unknown ackFrom          | true  | preferred | 1 | some              | ''      | semiSync.ackFrom must be",
  })
  void whatTheServersCannotHonourIsAnInvalidSpec(String name, boolean enabled, String durability, int min,
      String ackFrom, String flavor, String problem) {
    List<SiteSpec> sites = flavor.isEmpty() ? SITES : SITES.stream().map(s -> s.withFlavor(flavor)).toList();
    assertThatThrownBy(() -> config(sites, new SemiSyncSpec(enabled, durability, null, min, ackFrom)))
        .isInstanceOf(GroupConfig.InvalidSpecException.class).hasMessageContaining(problem);
  }

  @Test
  void defaultsAndWhatIsAllowed() {
    GroupConfig config = config(new SemiSyncSpec(true, null, null, null, null));
    assertThat(config.semiSync().durability().name()).isEqualTo("preferred");
    assertThat(config.semiSync().timeout().toSeconds()).isEqualTo(10);
    assertThat(config.semiSync().minSyncReplicas()).isEqualTo(1);
    assertThat(config.semiSync().ackFrom().name()).isEqualTo("primaryCandidates");
    assertThat(config(SITES.stream().map(s -> s.withFlavor("mysql")).toList(),
        new SemiSyncSpec(true, "required", null, 2, null)).semiSync().minSyncReplicas()).isEqualTo(2);
    assertThat(config(null).semiSync().enabled()).isFalse();
    assertThat(config.semiSync().flavorProblem("MariaDB")).isNull();
    assertThat(config(new SemiSyncSpec(true, null, null, 2, null)).semiSync().flavorProblem("MariaDB"))
        .contains("set it to 1");
  }

  private static Set<String> words(String text) {
    return text == null || text.isBlank() ? Set.of() : Set.of(text.trim().split("\\s+"));
  }
}
