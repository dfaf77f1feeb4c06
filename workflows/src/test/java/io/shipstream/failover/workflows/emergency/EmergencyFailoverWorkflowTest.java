package io.shipstream.failover.workflows.emergency;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.workflows.EmergencyFailoverWorkflow;
import io.shipstream.failover.workflows.fakes.EventChecks;
import io.shipstream.failover.workflows.fakes.FakeMysql;
import io.shipstream.failover.workflows.fakes.PhaseChecks;
import io.shipstream.failover.workflows.fakes.PromotionChecks;
import io.temporal.client.WorkflowClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The emergency failover on Temporal's test server with in-memory servers: iad's primary failed
 * and pdx is promoted. What is asserted is what a user would see: the phases the status went
 * through, the final status block, the Events, the metrics, and what was done to which server in
 * which order.
 */
class EmergencyFailoverWorkflowTest extends EmergencyRigTest {

  @Test
  void succeedsWithZeroLossAndMovesEverything() {
    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Succeeded");
    PhaseChecks.assertShown(k8s.emergencyPhases(), List.of("Pending", "Fencing", "Promoting", "Resuming",
        "Succeeded"));
    assertThat(result.failedSite()).isEqualTo("iad");
    assertThat(result.target()).isEqualTo("pdx");
    assertThat(result.trigger()).isEqualTo("iad unreachable for 3 polls from 2 sites");
    assertThat(result.reason()).isNull();
    assertThat(result.oldPrimaryFenced()).isFalse();
    assertThat(result.oldPrimaryLastKnownGtid()).isEqualTo("0-1-100");
    assertThat(result.targetGtidAtPromotion()).isEqualTo("0-1-100");
    assertThat(result.transactionsLost()).isZero();
    assertThat(result.lostGtid()).isNull();
    assertThat(result.startTime()).isNotNull();
    assertThat(result.completionTime()).isNotNull();
    assertThat(result.durationSeconds()).isNotNull().isGreaterThanOrEqualTo(0.0);
    // iad was never read at the fence: the claim names what it was checked against, not "0 lost".
    assertThat(result.message()).startsWith("promoted pdx after iad failed, 0 of the transactions the survivors "
        + "had seen were lost (iad could not be read at the fence").contains("could not fence iad");
    assertThat(result.lossComputedFrom()).startsWith("iad's GTID set as last seen before it failed")
        .endsWith("against pdx's set read right after its promotion");

    PromotionChecks.assertMoved(mysql, k8s, "iad", "pdx", "0-1-100");
    assertThat(k8s.status.emergencyFailover()).isEqualTo(result);
    assertThat(k8s.status.plannedFailover()).as("the planned block is not touched").isNull();
    assertThat(k8s.status.workflow().type()).isEqualTo("EmergencyFailover");
    assertThat(k8s.status.workflow().workflowId()).isEqualTo("mysqlfailovergroup/shop/orders");
    // iad has no sidecar in this spec: nothing could fence it were it alive, which the failover says.
    assertThat(k8s.eventReasons()).containsExactly("FailoverStarted", "OldPrimaryNotFenced", "OldPrimaryNotGuarded",
        "FailoverExecuted", "ReplicationChannelsVerified");
    assertThat(k8s.events.get(3).type()).isEqualTo("Normal");
    // The survivor re-pointed at pdx, read back after Succeeded was written.
    assertThat(result.channels()).extracting(c -> c.site() + "<-" + c.source() + " " + c.asGroupAsks())
        .containsExactly("dr<-pdx true");
    assertThat(k8s.events.get(4).type()).isEqualTo("Normal");
    assertThat(k8s.events.get(4).message()).contains("dr from pdx: plaintext, IO connected");
  }

  /**
   * The watcher decided with the spec it accepted; the resource's was edited meanwhile into one
   * that does not resolve (refused by the watcher): the failover acts on the accepted spec.
   */
  @Test
  void actsOnTheSpecTheWatcherDecidedWithWhenTheResourcesNoLongerResolves() {
    MysqlFailoverGroupSpec accepted = k8s.spec;
    MysqlFailoverGroupSpec s = accepted;
    k8s.spec = new MysqlFailoverGroupSpec(s.sites(), s.credentialsSecretRef(), "soon", s.failureThreshold(),
        s.recoveryThreshold(), s.failoverCooldown(), s.connectionDrainTimeout(), s.plannedFailover(),
        s.splitBrainPolicy(), s.dns(), s.sidecar(), s.dragonfly());
    EmergencyFailoverWorkflow.Request plain = EmergencyRig.request("pdx", "0-1-100");
    EmergencyFailoverWorkflow wf = rig.stub();
    WorkflowClient.start(wf::run, new EmergencyFailoverWorkflow.Request(plain.group(), plain.failedSite(),
        plain.candidate(), plain.oldPrimaryLastKnownGtid(), plain.reason(), plain.siteGtids(), null, accepted));

    EmergencyFailoverStatus result = rig.result(wf);

    assertThat(result.phase()).as(result.message()).isEqualTo("Succeeded");
    PromotionChecks.assertMoved(mysql, k8s, "iad", "pdx", "0-1-100");
  }

  /**
   * Issue 34 item 3: the window runs from the watcher's detection (its request's word) to the
   * instant the promotion reported, and says how long before the detection the primary last answered.
   */
  @Test
  void recordsDetectionToWritableAndTheTimeSinceTheLastPoll() {
    mysql.becameWritableAt = java.time.Instant.parse("2025-03-01T12:00:07.250Z");
    EmergencyFailoverWorkflow.Request plain = EmergencyRig.request("pdx", "0-1-100");
    EmergencyFailoverWorkflow wf = rig.stub();
    WorkflowClient.start(wf::run, new EmergencyFailoverWorkflow.Request(plain.group(), plain.failedSite(),
        plain.candidate(), plain.oldPrimaryLastKnownGtid(), plain.reason(), plain.siteGtids(), null, null,
        "2025-03-01T12:00:06Z", "2025-03-01T12:00:00.500Z"));

    EmergencyFailoverStatus result = rig.result(wf);

    assertThat(result.phase()).as(result.message()).isEqualTo("Succeeded");
    assertThat(result.writeWindow().seconds()).isEqualTo(1.25);
    assertThat(result.writeWindow().from()).isEqualTo("2025-03-01T12:00:06Z");
    assertThat(result.writeWindow().until()).isEqualTo("2025-03-01T12:00:07.250Z");
    assertThat(result.writeWindow().sinceLastPollSeconds()).isEqualTo(5.5);
    assertThat(result.message()).contains("write window 1.25 s (the watcher's detection to the candidate writable; "
        + "the primary last answered a poll 5.5 s before the detection)");
  }

  @Test
  void countsTheFailoverAndItsRoutingInTheMetrics() throws Exception {
    rig.run("pdx", "0-1-100");

    rig.metrics.awaitCounter("bloodraven_failovers", Map.of("target_site", "pdx", "result", "success"));
    assertThat(rig.metrics.counter("bloodraven_dns_flips", Map.of("result", "success"))).isEqualTo(1);
    assertThat(rig.metrics.counter("bloodraven_taint_operations", Map.of("result", "success"))).isEqualTo(1);
    assertThat(rig.metrics.timerRecordings("bloodraven_failover_duration", Map.of("target_site", "pdx")))
        .isEqualTo(1);
  }

  @Test
  void aCandidateBehindTheOldPrimaryLosesTransactionsAndSaysSo() {
    mysql.server("pdx").seqno = 97;

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(result.transactionsLost()).isEqualTo(3);
    assertThat(result.lostGtid()).isEqualTo("0-1-98..100");
    assertThat(result.message()).contains("3 of the transactions").contains("0-1-98..100");
    assertThat(k8s.events).anySatisfy(e -> {
      assertThat(e.type()).isEqualTo("Warning");
      assertThat(e.reason()).isEqualTo("DataLossDetected");
      assertThat(e.message()).contains("3 transactions committed on iad are not on pdx: 0-1-98..100");
    });
    assertThat(k8s.status.emergencyFailover().transactionsLost()).isEqualTo(3);
  }

  @Test
  void everythingAlreadyReceivedIsAppliedEvenWithTheSqlThreadStopped() {
    FakeMysql.Server pdx = mysql.server("pdx");
    pdx.seqno = 95;
    pdx.receivedSeqno = 100;
    pdx.replicating = false;

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(result.targetGtidAtPromotion()).isEqualTo("0-1-100");
    assertThat(result.transactionsLost()).isZero();
  }

  @Test
  void anUnknownOldPrimaryGtidIsReportedAsUnknownNotAsZero() {
    EmergencyFailoverStatus result = rig.run("pdx", null);

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(result.transactionsLost()).isNull();
    assertThat(result.message()).contains("transactions lost unknown");
    assertThat(result.lossComputedFrom()).isNull();
    assertThat(k8s.eventReasons()).contains("DataLossUnknown");
  }

  @Test
  void aReachableWritableOldPrimaryIsFencedBeforeTheCandidateBecomesWritable() {
    FakeMysql.Server iad = rig.iadBackForTheFence();
    iad.seqno = 105;
    var iadReadOnlyAtPromotion = new AtomicReference<Boolean>();
    mysql.beforePromote = () -> iadReadOnlyAtPromotion.set(iad.readOnly);

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Succeeded");
    List<String> calls = mysql.calls;
    assertThat(calls.indexOf("fence iad")).as("fenced first").isNotNegative()
        .isLessThan(calls.indexOf("promote pdx"));
    assertThat(iadReadOnlyAtPromotion.get()).as("iad read-only when pdx was promoted").isTrue();
    assertThat(mysql.callsTo("kill")).containsExactly("kill iad");
    assertThat(result.oldPrimaryFenced()).isTrue();
    // The fence reads iad's final set, which is fresher than what the watcher last saw.
    assertThat(result.oldPrimaryLastKnownGtid()).isEqualTo("0-1-105");
    assertThat(result.transactionsLost()).isEqualTo(5);
    assertThat(result.message()).contains("5 of the transactions iad held at its fence and the survivors had seen "
        + "were lost");
    assertThat(result.lossComputedFrom()).startsWith("iad's GTID set read at its fence");
    assertThat(k8s.eventReasons()).doesNotContain("OldPrimaryNotFenced").contains("DataLossDetected");
  }

  @Test
  void anUnreachableOldPrimaryIsGivenUpOnQuicklyAndThePromotionProceeds() {
    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(mysql.callsTo("fence")).as("a few attempts, not the usual retry budget").hasSize(2);
    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(result.oldPrimaryFenced()).isFalse();
    assertThat(result.durationSeconds()).isLessThan(20.0);
    assertThat(k8s.events).anySatisfy(e -> {
      assertThat(e.type()).isEqualTo("Warning");
      assertThat(e.reason()).isEqualTo("OldPrimaryNotFenced");
    });
  }

  @Test
  void theFailoverIsRecordedAndTheFailedSiteUnlabelledBeforePromotion() {
    var activeAtPromotion = new AtomicReference<MysqlFailoverGroupStatus>();
    var iadRoleAtPromotion = new AtomicReference<String>();
    mysql.beforePromote = () -> {
      activeAtPromotion.set(k8s.status);
      iadRoleAtPromotion.set(k8s.roles.get("iad"));
    };

    assertThat(rig.run("pdx", "0-1-100").phase()).isEqualTo("Succeeded");

    assertThat(activeAtPromotion.get().activeSite()).as("sidecars must not see a writable pdx while iad is active")
        .isEqualTo("pdx");
    assertThat(activeAtPromotion.get().lastFailover()).as("the cooldown starts before promotion").isNotNull();
    assertThat(iadRoleAtPromotion.get()).isEqualTo("replica");
  }

  @Test
  void anUnreachableCandidateIsRefusedWithoutTouchingAnything() {
    mysql.server("pdx").reachable = false;
    assertRefused(rig.run("pdx", "0-1-100"), "TargetUnhealthy", "unreachable");
  }

  @Test
  void aWritableCandidateIsRefusedWithoutTouchingAnything() {
    mysql.server("pdx").readOnly = false;
    assertRefused(rig.run("pdx", "0-1-100"), "TargetUnhealthy", "already writable");
  }

  @Test
  void unknownAndDrOnlyCandidatesAreRefused() {
    assertRefused(rig.run("sfo", "0-1-100"), "UnknownSite", "unknown candidate site 'sfo'");
    assertRefused(rig.run("dr", "0-1-100"), "TargetNotCandidate", "not primary-candidate");
    assertThat(mysql.callsTo("inspect")).as("refused on the spec alone").isEmpty();
  }

  @Test
  void aFailedPromotionIsExecuteFailedAndNotRolledBack() {
    mysql.server("pdx").promoteFails = true;

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).isEqualTo("ExecuteFailed");
    assertThat(result.message()).contains("promotion of pdx failed").contains("manual recovery required");
    PhaseChecks.assertShown(k8s.emergencyPhases(), List.of("Pending", "Fencing", "Promoting", "Failed"));
    assertThat(mysql.callsTo("unfence")).isEmpty();
    assertThat(k8s.roles).containsEntry("iad", "replica").doesNotContainEntry("pdx", "primary");
    assertThat(k8s.status.activeSite()).as("named active before promotion").isEqualTo("pdx");
    assertThat(k8s.dnsTarget).isNull();
    assertThat(k8s.eventReasons()).endsWith("FailoverFailed");
  }

  @Test
  void aDnsFailureStillSucceedsWithAWarning() throws Exception {
    k8s.dnsFails = true;

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(result.message()).contains("DNS flip");
    EventChecks.assertWarned(k8s, "DnsFlipFailed");
    assertThat(k8s.roles).containsEntry("pdx", "primary");
    rig.metrics.awaitCounter("bloodraven_dns_flips", Map.of("result", "failed"));
  }

  @Test
  void aStaleRequestChangesNothing() {
    k8s.status = MysqlFailoverGroupStatus.empty().withActiveSite("pdx");

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).isEqualTo("AlreadyActive");
    assertThat(result.message()).contains("superseded");
    assertThat(k8s.emergencyHistory).isEmpty();
    assertThat(k8s.events).isEmpty();
    assertThat(mysql.calls).isEmpty();
  }

  private void assertRefused(EmergencyFailoverStatus result, String reason, String message) {
    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).isEqualTo(reason);
    assertThat(result.message()).contains(message);
    assertThat(mysql.callsTo("fence")).as("no fence").isEmpty();
    assertThat(mysql.callsTo("promote")).isEmpty();
    assertThat(k8s.roles).isEmpty();
    assertThat(k8s.status.activeSite()).isEqualTo("iad");
    assertThat(k8s.status.emergencyFailover().phase()).isEqualTo("Failed");
    assertThat(k8s.events).last().satisfies(e -> {
      assertThat(e.type()).isEqualTo("Warning");
      assertThat(e.reason()).isEqualTo("FailoverFailed");
    });
  }
}
