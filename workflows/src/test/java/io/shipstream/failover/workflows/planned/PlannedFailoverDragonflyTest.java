package io.shipstream.failover.workflows.planned;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.DragonflyPlannedFailoverSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.DragonflySpec;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.workflows.activities.StoreState;
import io.shipstream.failover.workflows.fakes.PhaseChecks;
import io.temporal.client.WorkflowClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The session store's part of a planned failover: the two phases, and every Dragonfly row of the
 * planned-failover page's rollback table (sync timeout and promotion failure, each under
 * onSyncTimeout=proceed and =fail), asserted as a user sees them: phases, the status block, Events,
 * the store pods' labels, the metric, and what was done to which store and which MySQL server.
 */
class PlannedFailoverDragonflyTest extends PlannedRigTest {
  static final GroupRef GROUP = PlannedRig.GROUP;

  final WorkflowClient client = rig.client;

  @BeforeEach
  void setUp() {
    k8s.spec = spec("proceed");
    stores.add("iad", null, 5000);
    stores.add("pdx", "iad", 4800);
    k8s.setStoreRole(GROUP, site("iad"), StoreState.MASTER, true);
    k8s.setStoreRole(GROUP, site("pdx"), StoreState.REPLICA, false);
  }

  static MysqlFailoverGroupSpec spec(String onSyncTimeout) {
    return new MysqlFailoverGroupSpec(List.of(site("iad"), site("pdx")),
        new MysqlFailoverGroupSpec.SecretRef("orders-mysql"), null, null, null, null, null, null, null,
        new MysqlFailoverGroupSpec.DnsSpec("orders-db.example.com", 30), null,
        new DragonflySpec(true, "dragonfly", new DragonflyPlannedFailoverSpec("5s", onSyncTimeout)));
  }

  static SiteSpec site(String name) {
    return new SiteSpec(name, "primary-candidate", name + "-a", new SiteSpec.Endpoint(name + ".db", 3306),
        Map.of("site", name), Map.of("topology.kubernetes.io/zone", name), "10.0.0." + name.length(), null,
        new SiteSpec.Endpoint("orders-dragonfly-" + name + ".shop.svc", 6379));
  }

  PlannedFailoverStatus request(String annotation) {
    return rig.request(annotation);
  }

  @Test
  void movesTheStoreLosslesslyBeforeMysqlIsPromoted() {
    var storeMasterAtMysqlPromotion = new AtomicReference<String>();
    mysql.beforePromote = () -> storeMasterAtMysqlPromotion.set(stores.store("pdx").role);

    PlannedFailoverStatus result = request("pdx");

    assertThat(result.phase()).isEqualTo("Succeeded");
    PhaseChecks.assertShown(k8s.phases(), List.of("Pending", "Validating", "Draining", "WaitingForLag",
        "WaitingForDragonflySync", "PromotingDragonfly", "Promoting", "Resuming", "Succeeded"));
    assertThat(result.reason()).isNull();
    assertThat(result.dragonfly().enabled()).isTrue();
    assertThat(result.dragonfly().sessionsPreserved()).isTrue();
    assertThat(result.dragonfly().promotionMethod()).isEqualTo("REPLTAKEOVER");
    assertThat(result.dragonfly().syncWaitSeconds()).isNotNull().isGreaterThanOrEqualTo(0.0);
    assertThat(storeMasterAtMysqlPromotion.get()).as("the store moved before MySQL").isEqualTo("master");
    assertThat(stores.calls).containsSubsequence("capture iad", "wait pdx 5000", "promote pdx from iad",
        "kill iad");
    assertThat(stores.store("iad").role).isEqualTo("replica");
    assertThat(stores.store("iad").master).isEqualTo("pdx");
    assertThat(k8s.storeRoles).containsEntry("pdx", "master").containsEntry("iad", "replica");
    assertThat(k8s.activeStores()).containsExactly("pdx");
    assertThat(mysql.server("pdx").readOnly).isFalse();
    assertThat(k8s.status.activeSite()).isEqualTo("pdx");
    assertThat(k8s.eventReasons()).containsSubsequence("PlannedFailoverLagOK", "DragonflyPromotionStarted",
        "DragonflyPromotionCompleted", "PlannedFailoverCompleted");
    awaitCounter(Map.of("result", "success", "target_site", "pdx", "group", "shop/orders"));
  }

  @Test
  void syncTimeoutWithProceedPromotesTheStoreAnywayAndMysqlGoesOn() {
    stores.store("pdx").lagging = true;

    PlannedFailoverStatus result = request("pdx");

    assertThat(result.phase()).isEqualTo("Succeeded");
    // The fake's sync wait fails at once, inside the write window, whose status writes wait for
    // its end (3 s at most): the phase may be superseded before it is written.
    PhaseChecks.assertShown(k8s.phases(), List.of("Pending", "Validating", "Draining", "WaitingForLag",
        "WaitingForDragonflySync", "PromotingDragonfly", "Promoting", "Resuming", "Succeeded"));
    assertThat(result.reason()).isEqualTo("DragonflySyncTimeout");
    assertThat(result.dragonfly().sessionsPreserved()).isFalse();
    assertThat(result.dragonfly().promotionMethod()).isEqualTo("REPLICAOF NO ONE");
    assertThat(result.message()).startsWith("promoted pdx, 0 transactions lost").contains("onSyncTimeout=proceed");
    assertThat(stores.callsTo("promote")).as("no lossless takeover without sync").isEmpty();
    assertThat(stores.calls).containsSubsequence("promoteAlone pdx", "replicate iad from pdx", "kill iad");
    assertThat(k8s.activeStores()).containsExactly("pdx");
    assertThat(mysql.server("pdx").readOnly).as("MySQL promoted").isFalse();
    assertThat(k8s.eventReasons()).containsSubsequence("DragonflySyncTimeout", "DragonflyPromotionStarted",
        "DragonflyPromotionCompleted", "PlannedFailoverCompleted");
  }

  @Test
  void syncTimeoutWithFailRollsEverythingBack() {
    requestRolledBackUnderFail(() -> stores.store("pdx").lagging = true, "DragonflySyncTimeout",
        List.of("Pending", "Validating", "Draining", "WaitingForLag", "WaitingForDragonflySync", "Failed"),
        "WaitingForDragonflySync");
    assertThat(stores.calls).noneMatch(c -> c.startsWith("promote"));
    assertThat(k8s.eventReasons()).contains("DragonflySyncTimeout").doesNotContain("DragonflyPromotionStarted");
    awaitCounter(Map.of("result", "skipped", "target_site", "pdx"));
  }

  @Test
  void takeoverFailureWithProceedForcesTheStoreAndMysqlGoesOn() {
    stores.store("pdx").takeoverFails = true;

    PlannedFailoverStatus result = request("pdx");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(result.reason()).isEqualTo("DragonflyPromotionFailed");
    assertThat(result.dragonfly().sessionsPreserved()).isFalse();
    assertThat(result.dragonfly().promotionMethod()).isEqualTo("REPLICAOF NO ONE");
    assertThat(result.message()).contains("REPLTAKEOVER: Couldn't execute takeover");
    assertThat(stores.calls).containsSubsequence("promote pdx from iad", "promoteAlone pdx", "replicate iad from pdx");
    assertThat(k8s.activeStores()).containsExactly("pdx");
    assertThat(mysql.server("pdx").readOnly).isFalse();
    assertThat(k8s.status.activeSite()).isEqualTo("pdx");
    assertThat(k8s.eventReasons()).contains("DragonflyPromotionFailed", "PlannedFailoverCompleted");
    awaitCounter(Map.of("result", "failed", "target_site", "pdx"));
  }

  @Test
  void promotionImpossibleWithProceedLeavesTheStoreOnTheSourceAndMysqlGoesOn() {
    stores.store("pdx").takeoverFails = true;
    stores.store("pdx").promoteAloneFails = true;

    PlannedFailoverStatus result = request("pdx");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(result.reason()).isEqualTo("DragonflyPromotionFailed");
    assertThat(result.dragonfly().sessionsPreserved()).isFalse();
    assertThat(result.dragonfly().promotionMethod()).isNull();
    assertThat(result.message()).contains("the session store stays on iad");
    assertThat(stores.store("iad").role).isEqualTo("master");
    assertThat(k8s.activeStores()).as("the old master is routed again").containsExactly("iad");
    assertThat(mysql.server("pdx").readOnly).isFalse();
  }

  @Test
  void takeoverFailureWithFailRollsEverythingBack() {
    requestRolledBackUnderFail(() -> stores.store("pdx").takeoverFails = true, "DragonflyPromotionFailed",
        List.of("Pending", "Validating", "Draining", "WaitingForLag", "WaitingForDragonflySync",
            "PromotingDragonfly", "Failed"));
    assertThat(k8s.phases()).doesNotContain("Promoting");
    assertThat(stores.callsTo("promoteAlone")).isEmpty();
    assertThat(stores.store("iad").role).isEqualTo("master");
    assertThat(k8s.storeRoles).containsEntry("iad", "master");
    assertThat(k8s.activeStores()).as("the source store routed again").containsExactly("iad");
    assertThat(k8s.eventReasons()).contains("DragonflyPromotionStarted", "DragonflyPromotionFailed",
        "PlannedFailoverFailed");
    awaitCounter(Map.of("result", "failed", "target_site", "pdx"));
  }

  @Test
  void disabledStoreIsNotTouched() {
    k8s.spec = new MysqlFailoverGroupSpec(k8s.spec.sites(), k8s.spec.credentialsSecretRef(), null, null, null, null,
        null, null, null, k8s.spec.dns(), null, null);
    PlannedFailoverStatus result = request("pdx");
    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(k8s.phases()).doesNotContain("WaitingForDragonflySync", "PromotingDragonfly");
    assertThat(result.dragonfly().enabled()).isFalse();
    assertThat(result.dragonfly().sessionsPreserved()).isNull();
    assertThat(stores.calls).isEmpty();
  }

  /**
   * Replays the histories of a lossless move and of a rollback; with {@code -Dhistory.dir=...} it
   * also stores them for {@link PlannedFailoverReplayTest}.
   */
  @Test
  void historiesReplayDeterministically() throws Exception {
    request("pdx");
    replayAndMaybeStore("planned-dragonfly-succeeded");
    k8s.spec = spec("fail");
    stores.store("iad").lagging = true;
    request("iad");
    replayAndMaybeStore("planned-dragonfly-sync-timeout-fail");
  }

  private void replayAndMaybeStore(String name) throws Exception {
    rig.replayAndMaybeStore(name);
  }

  /**
   * With onSyncTimeout=fail, requests a failover to pdx after {@code fault}, and checks it was
   * rolled back for {@code reason} with the status showing {@code runbook} (and {@code held}).
   */
  private void requestRolledBackUnderFail(Runnable fault, String reason, List<String> runbook, String... held) {
    k8s.spec = spec("fail");
    fault.run();

    PlannedFailoverStatus result = request("pdx");

    assertRolledBack(result, reason);
    PhaseChecks.assertShown(k8s.phases(), runbook, held);
  }

  private void assertRolledBack(PlannedFailoverStatus result, String reason) {
    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).isEqualTo(reason);
    assertThat(result.message()).contains("onSyncTimeout=fail").contains("rolled back");
    assertThat(result.dragonfly().sessionsPreserved()).isFalse();
    assertThat(mysql.callsTo("promote")).as("MySQL never promoted").isEmpty();
    assertThat(mysql.server("iad").readOnly).as("source unfenced").isFalse();
    assertThat(mysql.server("pdx").readOnly).isTrue();
    assertThat(k8s.roles).containsEntry("iad", "primary");
    assertThat(k8s.dnsTarget).as("no DNS flip").isNull();
    assertThat(k8s.status.activeSite()).isEqualTo("iad");
    assertThat(stores.store("pdx").role).isEqualTo("replica");
    assertThat(k8s.annotation).isNull();
  }

  private void awaitCounter(Map<String, String> tags) {
    rig.metrics.awaitCounter("bloodraven_dragonfly_promotions", tags);
  }
}
