package io.shipstream.failover.workflows.planned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.workflows.PlannedFailoverWorkflow;
import io.shipstream.failover.workflows.TaskQueues;
import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.shipstream.failover.workflows.common.CancelRequest;
import io.shipstream.failover.workflows.contract.Events;
import io.shipstream.failover.workflows.fakes.EventChecks;
import io.shipstream.failover.workflows.fakes.FakeMysql;
import io.shipstream.failover.workflows.fakes.PhaseChecks;
import io.shipstream.failover.workflows.fakes.PromotionChecks;
import io.shipstream.failover.workflows.fakes.WorkflowWaits;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * Every phase and every rollback row of the planned-failover page, on Temporal's test server (in
 * real time) and in-memory servers. What is asserted is what a user would see: the phases the
 * status went through, the final status block, the Events, and what was done to which server.
 */
class PlannedFailoverWorkflowTest extends PlannedRigTest {
  static final GroupRef GROUP = PlannedRig.GROUP;

  final TestWorkflowEnvironment env = rig.env;
  final WorkflowClient client = rig.client;

  static MysqlFailoverGroupSpec spec(String onCooldown) {
    return PlannedRig.spec(onCooldown);
  }

  PlannedFailoverWorkflow stub() {
    return rig.stub();
  }

  PlannedFailoverStatus request(String annotation) {
    return rig.request(annotation);
  }

  PlannedFailoverStatus result(PlannedFailoverWorkflow wf) {
    return rig.result(wf);
  }

  PlannedFailoverWorkflow startAsync(String annotation) {
    return rig.startAsync(annotation);
  }

  @Test
  void succeedsThroughEveryPhaseAndMovesEverything() {
    // The instants the fence and the promotion report: the window is theirs, not the workflow's clock.
    mysql.fenceAppliedAt = java.time.Instant.parse("2025-03-01T12:00:00.500Z");
    mysql.becameWritableAt = java.time.Instant.parse("2025-03-01T12:00:00.637Z");
    PlannedFailoverStatus result = request("pdx");

    assertThat(result.phase()).isEqualTo("Succeeded");
    PhaseChecks.assertShown(k8s.phases(), List.of("Pending", "Validating", "Draining", "WaitingForLag", "Promoting",
        "Resuming", "Succeeded"));
    assertThat(result.target()).isEqualTo("pdx");
    assertThat(result.sourcePrimary()).isEqualTo("iad");
    assertThat(result.sourceGtidAtFence()).isEqualTo("0-1-100");
    assertThat(result.targetGtidAtPromotion()).isEqualTo("0-1-100");
    assertThat(result.transactionsLost()).isZero();
    assertThat(result.startTime()).isNotNull();
    assertThat(result.completionTime()).isNotNull();
    assertThat(result.durationSeconds()).isNotNull().isGreaterThanOrEqualTo(0.0);
    assertThat(result.message()).startsWith("promoted pdx, 0 transactions lost");
    assertThat(result.message()).contains("write window 0.137 s (fence applied on the source to the target writable, "
        + "the lag gate ");
    assertThat(result.writeWindow().seconds()).isEqualTo(0.137);
    assertThat(result.writeWindow().from()).isEqualTo("2025-03-01T12:00:00.500Z");
    assertThat(result.writeWindow().until()).isEqualTo("2025-03-01T12:00:00.637Z");
    assertThat(result.writeWindow().lagWaitSeconds()).isNotNull().isGreaterThanOrEqualTo(0.0);
    assertThat(k8s.events).filteredOn(e -> e.reason().equals("PlannedFailoverCompleted"))
        .allMatch(e -> e.message().contains("write window 0.137 s"));
    assertThat(result.dragonfly().enabled()).isFalse();

    assertThat(mysql.server("iad").readOnly).as("old primary fenced").isTrue();
    assertThat(mysql.server("iad").replicatesFrom).isEqualTo("pdx");
    PromotionChecks.assertMoved(mysql, k8s, "iad", "pdx", "0-1-100");
    assertThat(k8s.status.plannedFailover()).isEqualTo(result);
    assertThat(k8s.status.workflow().workflowId()).isEqualTo("mysqlfailovergroup/shop/orders");
    assertThat(k8s.annotation).as("annotation cleared").isNull();
    // dr is re-pointed at pdx as well, so a healthy run has nothing to warn about.
    assertThat(mysql.server("dr").replicatesFrom).isEqualTo("pdx");
    // A workflow task refused at completion (the drain's session kill finished meanwhile) runs its
    // local activities again: its Events may be written again as a block, never out of order or missing.
    assertThat(withoutRepeats(k8s.eventReasons())).containsExactly("PlannedFailoverStarted",
        "PlannedFailoverDraining", "PlannedFailoverLagOK", "PlannedFailoverCompleted", "ReplicationChannelsVerified");
    // Both channels the run pointed, the old primary's rejoin first, read back and recorded.
    assertThat(result.channels()).extracting(c -> c.site() + "<-" + c.source() + " " + c.asGroupAsks())
        .containsExactly("iad<-pdx true", "dr<-pdx true");
  }

  @Test
  void aChannelThatReadsBackWrongIsAWarningOfAFailoverThatHappened() {
    mysql.server("dr").channelProblem = "weaker than the group's replication TLS verify-ca: plaintext, IO connected";
    PlannedFailoverStatus result = request("pdx");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(result.channels()).extracting(c -> c.site() + " " + c.asGroupAsks())
        .containsExactly("iad true", "dr false");
    assertThat(k8s.eventReasons()).doesNotContain("ReplicationChannelsVerified");
    assertThat(k8s.events).filteredOn(e -> e.reason().equals("ReplicationChannelsUnverified")).singleElement()
        .satisfies(e -> {
          assertThat(e.type()).isEqualTo("Warning");
          assertThat(e.message()).isEqualTo("site 'dr' replicating from 'pdx': weaker than the group's replication TLS"
              + " verify-ca: plaintext, IO connected");
        });
    assertThat(k8s.status.plannedFailover()).isEqualTo(result);
  }

  @Test
  void aTargetThatCannotBeLabelledPrimaryIsAWarningOfAFailoverThatHappened() {
    // The label starts beside DNS and the taints: its failure must still be said, and the rest done.
    k8s.primaryLabelRefusedFor = "pdx";

    PlannedFailoverStatus result = request("pdx");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(result.message()).contains("could not label pdx primary: pods is forbidden");
    assertThat(k8s.eventReasons()).contains("RoutingUpdateFailed");
    assertThat(mysql.server("iad").replicatesFrom).as("the rejoin still ran").isEqualTo("pdx");
    assertThat(k8s.status.lastPromotion()).as("the promotion point still recorded").isNotNull();
  }

  /**
   * The Events with a batch written again dropped: a workflow task refused at completion runs its
   * local activities again, so the Events it wrote (one, or the window's held batch and the
   * completion) may follow again as a block. What is left must be each Event once, in order.
   */
  private static List<String> withoutRepeats(List<String> reasons) {
    List<String> out = new java.util.ArrayList<>();
    int i = 0;
    while (i < reasons.size()) {
      int repeated = 0;
      for (int n = out.size(); n > 0 && repeated == 0; n--) {
        List<String> tail = out.subList(out.size() - n, out.size());
        if (i + n <= reasons.size() && reasons.subList(i, i + n).equals(tail)) {
          repeated = n;
        }
      }
      if (repeated > 0) {
        i += repeated;
      } else {
        out.add(reasons.get(i++));
      }
    }
    return out;
  }

  @Test
  void theTargetIsNamedActiveBeforeItBecomesWritable() {
    var activeAtPromotion = new java.util.concurrent.atomic.AtomicReference<String>();
    mysql.beforePromote = () -> activeAtPromotion.set(k8s.status.activeSite());
    assertThat(request("pdx").phase()).isEqualTo("Succeeded");
    assertThat(activeAtPromotion.get()).as("sidecars must not see a writable pdx while iad is named active")
        .isEqualTo("pdx");
  }

  @Test
  void theTargetIsGivenTheSemiSyncSourceSideInItsPromotionOnlyWhenTheSpecAsks() {
    assertThat(request("pdx").phase()).isEqualTo("Succeeded");
    assertThat(mysql.promotedWith.get("pdx")).as("semi-sync disabled: left alone").isEmpty();
  }

  /**
   * The promotion may skip its relay-log check (one exchange) only when the target replicates
   * directly from the source the lag gate compared it with, as the spec names its endpoint.
   */
  @Test
  void aTargetReplicatingDirectlyFromTheFencedSourceIsPromotedAsCaughtUp() {
    // The fake reports a source by the endpoint the workflow last addressed it at: iad.db:3306 here,
    // whichever of the validation's parallel inspections answers first.
    GroupConfig config = GroupConfig.resolve(k8s.spec);
    mysql.inspect(MysqlTarget.of(GROUP, config, config.site("iad").orElseThrow()));
    assertThat(request("pdx").phase()).isEqualTo("Succeeded");
    assertThat(mysql.promotedCaughtUp).containsEntry("pdx", true);
  }

  @Test
  void aTargetReplicatingThroughAnotherSiteIsPromotedWithItsRelayLogChecked() {
    mysql.server("pdx").replicatesFrom = "dr";
    assertThat(request("pdx").phase()).isEqualTo("Succeeded");
    assertThat(mysql.promotedCaughtUp).containsEntry("pdx", false);
  }

  @Test
  void withSemiSyncTheTargetsFirstCommitsWaitForAnAcknowledgement() {
    MysqlFailoverGroupSpec s = k8s.spec;
    k8s.spec = new MysqlFailoverGroupSpec(s.sites(), s.credentialsSecretRef(), s.pollInterval(), s.failureThreshold(),
        s.recoveryThreshold(), s.failoverCooldown(), s.connectionDrainTimeout(), s.plannedFailover(),
        s.splitBrainPolicy(), s.dns(), s.sidecar(), s.dragonfly(), s.emergencyFailover(), s.minSourceSilence(),
        new MysqlFailoverGroupSpec.SemiSyncSpec(true, "required", "3s", 1, null));
    assertThat(request("pdx").phase()).isEqualTo("Succeeded");
    assertThat(mysql.promotedWith.get("pdx")).contains(
        new io.shipstream.failover.model.topology.SemiSyncSettings(true, true, 1, 3000L, true));
  }

  @Test
  void maxLagWaitOverrideIsUsedAndHonoured() {
    mysql.server("pdx").lagging = true;
    PlannedFailoverStatus result = request("pdx:maxLagWait=30s");
    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).isEqualTo("LagTimeout");
    assertThat(result.message()).contains("maxLagWait 30s");
  }

  @Test
  void lagTimeoutRollsBackTheSource() {
    mysql.server("pdx").lagging = true;
    PlannedFailoverStatus result = request("pdx");

    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).isEqualTo("LagTimeout");
    assertThat(result.message()).contains("rolled back");
    PhaseChecks.assertShown(k8s.phases(), List.of("Pending", "Validating", "Draining", "WaitingForLag", "Failed"),
        "WaitingForLag");
    assertThat(mysql.server("iad").readOnly).as("source writable again").isFalse();
    assertThat(mysql.callsTo("unfence")).containsExactly("unfence iad");
    assertThat(k8s.roles).containsEntry("iad", "primary").doesNotContainEntry("pdx", "primary");
    assertThat(mysql.callsTo("promote")).isEmpty();
    assertThat(k8s.dnsTarget).as("no DNS flip").isNull();
    assertThat(k8s.status.activeSite()).isEqualTo("iad");
    assertThat(k8s.eventReasons()).contains("PlannedFailoverFailed");
    assertThat(k8s.annotation).isNull();
  }

  @Test
  void unknownSiteIsRejectedWithoutFence() {
    PlannedFailoverStatus result = request("sfo");
    assertRejected(result, "UnknownSite", "PlannedFailoverRejected");
    assertThat(result.message()).contains("unknown site 'sfo'");
  }

  @Test
  void drOnlyTargetIsRejectedForItsRoleNotAsUnhealthy() {
    PlannedFailoverStatus result = request("dr");
    assertRejected(result, "TargetNotCandidate", "PlannedFailoverRejected");
    assertThat(result.message()).contains("role dr-only").contains("can never be primary");
  }

  @Test
  void targetNotReplicatingIsRejected() {
    mysql.server("pdx").replicating = false;
    PlannedFailoverStatus result = request("pdx");
    assertRejected(result, "TargetUnhealthy", "PlannedFailoverRejected");
    assertThat(result.message()).contains("not replicating");
  }

  @Test
  void writableTargetIsRejected() {
    mysql.server("pdx").readOnly = false;
    assertRejected(request("pdx"), "TargetUnhealthy", "PlannedFailoverRejected");
  }

  @Test
  void unreachableTargetIsRejected() {
    mysql.server("pdx").reachable = false;
    assertRejected(request("pdx"), "TargetUnhealthy", "PlannedFailoverRejected");
  }

  @Test
  void aFencedTargetIsRejectedWithNothingFenced() {
    k8s.status = k8s.status.withFencedSites(List.of("pdx"));

    PlannedFailoverStatus result = request("pdx");

    assertRejected(result, "TargetFenced", "PlannedFailoverRejected");
    assertThat(result.message()).contains("site 'pdx' is fenced (bloodraven.shipstream.io/fenced-sites)");
    assertThat(mysql.callsTo("fence")).isEmpty();
  }

  @Test
  void theActiveSiteItselfIsSkipped() {
    PlannedFailoverStatus result = request("iad");
    assertRejected(result, "AlreadyActive", "PlannedFailoverSkipped");
  }

  @Test
  void malformedAnnotationsAreRejected() {
    for (String bad : List.of("pdx:maxLagWait=abc", "", "pdx:maxLagWait=0s", "PDX!", "pdx:speed=fast")) {
      PlannedFailoverStatus result = request(bad);
      assertThat(result.phase()).as(bad).isEqualTo("Failed");
      assertThat(result.reason()).as(bad).isEqualTo("InvalidAnnotation");
      assertThat(result.message()).as(bad).contains("invalid planned-failover annotation");
    }
    assertThat(mysql.callsTo("fence")).isEmpty();
  }

  @Test
  void sourceUnreachableAtValidationIsSourceCrashed() {
    mysql.server("iad").reachable = false;
    assertRejected(request("pdx"), "SourceCrashed", "PlannedFailoverRejected");
  }

  @Test
  void sourceCrashingAtTheFenceFailsWithoutPromotion() {
    mysql.server("iad").crashOnFence = true;
    PlannedFailoverStatus result = request("pdx");
    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).isEqualTo("SourceCrashed");
    assertThat(result.message()).contains("could not fence source iad");
    assertThat(mysql.callsTo("promote")).isEmpty();
    assertThat(k8s.roles).doesNotContainEntry("pdx", "primary");
    assertThat(k8s.status.activeSite()).isEqualTo("iad");
  }

  @Test
  void cooldownRejectSaysWhenToRetry() {
    Instant last = Instant.ofEpochMilli(env.currentTimeMillis()).minus(Duration.ofMinutes(1));
    k8s.status = k8s.status.withFailover("iad", last.toString(), "0-1-50");
    PlannedFailoverStatus result = request("pdx");
    assertRejected(result, "CooldownActive", "PlannedFailoverRejected");
    assertThat(result.message()).contains("retry after " + last.plus(Duration.ofMinutes(5)));
  }

  /** A last failover whose 5 minute cooldown ends two seconds from now. */
  private Instant lastFailoverEndingSoon() {
    return Instant.ofEpochMilli(env.currentTimeMillis()).minus(Duration.ofMinutes(5)).plusSeconds(2);
  }

  @Test
  void cooldownDeferWaitsThenSucceeds() {
    k8s.spec = spec("defer");
    Instant last = lastFailoverEndingSoon();
    k8s.status = k8s.status.withFailover("iad", last.toString(), "0-1-50");

    PlannedFailoverStatus result = request("pdx");

    PhaseChecks.assertShown(k8s.phases(), List.of("Pending", "Validating", "Deferred", "Validating", "Draining",
        "WaitingForLag", "Promoting", "Resuming", "Succeeded"), "Deferred");
    PlannedFailoverStatus deferred = k8s.statusHistory.stream().filter(s -> s.phase().equals("Deferred"))
        .findFirst().orElseThrow();
    assertThat(deferred.reason()).isEqualTo("CooldownActive");
    assertThat(deferred.retryAfter()).isEqualTo(last.plus(Duration.ofMinutes(5)).toString());
    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(result.retryAfter()).isNull();
    assertThat(k8s.eventReasons()).contains("PlannedFailoverDeferred");
  }

  @Test
  void cancelSignalWhileDeferredFailsWithoutFence() {
    k8s.spec = spec("defer");
    k8s.status = k8s.status.withFailover("iad", Instant.ofEpochMilli(env.currentTimeMillis()).toString(), "0-1-50");
    PlannedFailoverWorkflow wf = startAsync("pdx");
    waitForPhase(wf, "Deferred");
    wf.cancel("operator changed their mind");
    PlannedFailoverStatus result = result(wf);
    assertRejected(result, "Cancelled", "PlannedFailoverRejected");
    assertThat(result.message()).contains("operator changed their mind");
  }

  @Test
  void annotationRemovedWhileDeferredCancels() {
    k8s.spec = spec("defer");
    k8s.status = k8s.status.withFailover("iad", lastFailoverEndingSoon().toString(), "0-1-50");
    PlannedFailoverWorkflow wf = startAsync("pdx");
    waitForPhase(wf, "Deferred");
    k8s.annotation = null;
    // The watcher would also signal; the re-validation at retryAfter must catch it on its own.
    PlannedFailoverStatus result = result(wf);
    assertRejected(result, "Cancelled", "PlannedFailoverRejected");
  }

  @Test
  void cancelDuringWaitingForLagRollsBack() throws Exception {
    CountDownLatch gate = new CountDownLatch(1);
    mysql.server("pdx").seqno = 100; // caught up when validated: only the lag gate, after the fence, waits
    mysql.server("pdx").waitGate = gate;
    PlannedFailoverWorkflow wf = startAsync("pdx");
    // The write window holds its status writes and Events back for 3 s at most: a wait
    // longer than that shows its phase and the fence's Event while it waits.
    waitForPhase(wf, "WaitingForLag");
    WorkflowWaits.await(k8s::eventReasons, reasons -> reasons.contains("PlannedFailoverDraining"),
        "the Draining Event while the lag gate waits");
    assertThat(wf.status().phase()).as("the status query").isEqualTo("WaitingForLag");
    assertThat(wf.status().sourceGtidAtFence()).isEqualTo("0-1-100");
    wf.cancel("maintenance postponed");
    PlannedFailoverStatus result = result(wf);
    gate.countDown();
    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).isEqualTo("Cancelled");
    assertThat(mysql.server("iad").readOnly).isFalse();
    assertThat(k8s.roles).containsEntry("iad", "primary");
    assertThat(mysql.callsTo("promote")).isEmpty();
  }

  /**
   * The watcher's replicas confirmed the fenced source dead while the lag gate waits (issue 31,
   * item 1): the run ends SourceCrashed at once, without trying to unfence the dead source or
   * giving it its label back, and says it handed off; the lag gate's activity is cancelled.
   */
  @Test
  void aSourceConfirmedDeadDuringWaitingForLagEndsSourceCrashedAndStaysFenced() {
    CountDownLatch gate = new CountDownLatch(1);
    mysql.server("pdx").seqno = 100;
    mysql.server("pdx").waitGate = gate;
    PlannedFailoverWorkflow wf = startAsync("pdx");
    waitForPhase(wf, "WaitingForLag");
    wf.sourceDied("its source 'iad' is dead: every replica that received from it lost it ('pdx' lost it)");
    PlannedFailoverStatus result = result(wf);
    gate.countDown();
    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).isEqualTo("SourceCrashed");
    assertThat(result.message()).startsWith("source died in WaitingForLag, as the watcher's confirmation says: its "
        + "source 'iad' is dead").contains("it stays fenced").contains("handed off to the emergency failover")
        .doesNotContain(Events.MANUAL_RECOVERY_REQUIRED);
    assertThat(mysql.callsTo("unfence")).isEmpty();
    assertThat(mysql.server("iad").readOnly).isTrue();
    assertThat(k8s.roles).as("left out of the primary Service").containsEntry("iad", "replica");
    assertThat(mysql.callsTo("promote")).isEmpty();
    EventChecks.assertWarned(k8s, "PlannedFailoverFailed");
  }

  /** Past the point of no return the source's death changes nothing: the run goes forward. */
  @Test
  void aSourceDeathSaidAfterThePromotionIsIgnored() {
    CancelRequest late = new CancelRequest();
    assertThat(late.sourceDied(io.shipstream.failover.model.Phase.Promoting, "too late")).isNotNull();
    assertThat(late.sourceDied(io.shipstream.failover.model.Phase.PromotingDragonfly, "too late")).isNotNull();
    assertThat(late.sourceDead()).isFalse();
    assertThat(late.sourceDied(io.shipstream.failover.model.Phase.WaitingForLag, "dead")).isNull();
    assertThat(late.sourceDead()).isTrue();
  }

  @Test
  void dnsFailureStillSucceedsWithAWarning() {
    k8s.dnsFails = true;
    PlannedFailoverStatus result = request("pdx");
    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(result.message()).contains("DNS flip");
    EventChecks.assertWarned(k8s, "DnsFlipFailed");
    assertThat(k8s.roles).containsEntry("pdx", "primary");
  }

  @Test
  void aSecondStartWhileOneRunsIsRefused() {
    mysql.server("pdx").seqno = 100; // caught up when validated: only the lag gate, after the fence, waits
    mysql.server("pdx").waitGate = new CountDownLatch(1);
    PlannedFailoverWorkflow wf = startAsync("pdx");
    waitForPhase(wf, "WaitingForLag");
    assertThatThrownBy(() -> WorkflowClient.start(stub()::run, new PlannedFailoverWorkflow.Request(GROUP, "pdx")))
        .isInstanceOf(WorkflowExecutionAlreadyStarted.class);
    mysql.server("pdx").waitGate.countDown();
    assertThat(result(wf).phase()).isEqualTo("Succeeded");
  }

  @Test
  void aStaleRequestChangesNothing() {
    k8s.annotation = null;
    PlannedFailoverStatus result = stub().run(new PlannedFailoverWorkflow.Request(GROUP, "pdx"));
    assertThat(result.message()).contains("superseded");
    assertThat(k8s.statusHistory).isEmpty();
    assertThat(mysql.calls).isEmpty();
  }

  @Test
  void withoutActiveSiteTheSingleWritableServerIsTheSource() {
    k8s.status = MysqlFailoverGroupStatus.empty();
    PlannedFailoverStatus result = request("pdx");
    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(result.sourcePrimary()).isEqualTo("iad");
  }

  @Test
  void twoWritableServersAndNoActiveSiteIsRefused() {
    k8s.status = MysqlFailoverGroupStatus.empty();
    mysql.server("dr").readOnly = false;
    assertRejected(request("pdx"), "NoActivePrimary", "PlannedFailoverRejected");
  }

  /**
   * pdx lacks 3 of iad's 100 transactions when validated: it is waited for before the fence, while
   * iad still takes writes, for iad's set as validated; the lag gate after the fence then has only
   * what iad committed meanwhile to wait for.
   */
  @Test
  void aTargetBehindWhenValidatedCatchesUpBeforeTheFence() {
    assertThat(request("pdx").phase()).isEqualTo("Succeeded");
    assertThat(mysql.calls).containsSubsequence("inspect pdx", "catch-up pdx 0-1-100", "fence iad", "wait pdx 0-1-100",
        "promote pdx");
    assertThat(mysql.stepQueues.get("catch-up pdx")).as("on the worker that opened the connections")
        .isEqualTo(FakeMysql.OWN_QUEUE);
    assertThat(activitiesScheduled(client.fetchHistory(GROUP.workflowId()).getEvents()))
        .containsSubsequence("CatchUpBeforeFence", "Fence", "Promote");
  }

  @Test
  void aTargetCaughtUpWhenValidatedIsNotWaitedForBeforeTheFence() {
    mysql.server("pdx").seqno = 100;
    assertThat(request("pdx").phase()).isEqualTo("Succeeded");
    assertThat(mysql.callsTo("catch-up")).isEmpty();
    assertThat(mysql.calls).containsSubsequence("fence iad", "wait pdx 0-1-100", "promote pdx");
  }

  @Test
  void aStreamingTargetAFewTransactionsShortIsLeftToTheLagGate() {
    mysql.server("pdx").seqno = 95;
    mysql.server("pdx").secondsBehind = 0;
    assertThat(request("pdx").phase()).isEqualTo("Succeeded");
    assertThat(mysql.callsTo("catch-up")).isEmpty();
    assertThat(mysql.calls).containsSubsequence("fence iad", "wait pdx 0-1-100", "promote pdx");
  }

  /** The catch-up before the fence ran out of time: the lag gate after the fence decides, and here it succeeds. */
  @Test
  void aTargetStillBehindAfterItsCatchUpIsLeftToTheLagGate() {
    mysql.server("pdx").lagTimeouts.set(1);
    PlannedFailoverStatus result = request("pdx");
    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(result.message()).contains("pdx had not caught up with iad before the fence");
    assertThat(mysql.calls).containsSubsequence("catch-up pdx 0-1-100", "fence iad", "wait pdx 0-1-100", "promote pdx");
  }

  /** The drain's note, written once the lag gate is through, comes after the catch-up's instead of replacing it. */
  @Test
  void theDrainsNoteKeepsTheNotesBeforeIt() {
    CountDownLatch drain = new CountDownLatch(1);
    mysql.server("iad").drainGate = drain;
    mysql.server("pdx").lagTimeouts.set(1);
    PlannedFailoverStatus result = request("pdx");
    drain.countDown();
    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(result.message()).contains("pdx had not caught up with iad before the fence")
        .contains("sessions still reconnecting to iad when the target caught up");
  }

  /** A cancel while the target catches up before the fence ends the run with nothing fenced. */
  @Test
  void aCancelWhileTheTargetCatchesUpBeforeTheFenceFencesNothing() {
    CountDownLatch gate = new CountDownLatch(1);
    mysql.server("pdx").waitGate = gate;
    PlannedFailoverWorkflow wf = startAsync("pdx");
    WorkflowWaits.await(() -> mysql.callsTo("catch-up"), waits -> !waits.isEmpty(), "the catch-up before the fence");
    wf.cancel("not tonight");
    PlannedFailoverStatus result = result(wf);
    gate.countDown();
    assertRejected(result, "Cancelled", "PlannedFailoverRejected");
    assertThat(result.message()).contains("not tonight");
    assertThat(mysql.callsTo("fence")).isEmpty();
    assertThat(mysql.server("iad").readOnly).isFalse();
  }

  /**
   * The write window in the history (issue 31, item 14a): a target that is current passes the lag
   * gate in the workflow task that took the fence's result, its first look a local activity, and
   * the failover record follows in the same task; the promotion's command leaves with that task.
   * One workflow task from the fence's completion to the promotion's command, no lag-gate activity
   * scheduled: before, the lag gate was an ordinary activity with a round trip and a task of its
   * own (two or three tasks in all). The source's unlabel runs in that task beside them, so that it
   * has settled before the target is labelled; no status or Event write does.
   */
  @Test
  void insideTheWriteWindowOnlyTheLagGateAndTheFailoverRecordStandBetweenTheFenceAndThePromotion() {
    mysql.server("pdx").seqno = 100;
    assertThat(request("pdx").phase()).isEqualTo("Succeeded");
    List<HistoryEvent> events = client.fetchHistory(GROUP.workflowId()).getEvents();
    assertThat(localActivitiesBetween(events, "Fence", "Promote"))
        .containsExactlyInAnyOrder("SetSiteRole", "WaitForGtidSet", "RecordFailover");
    assertThat(workflowTasksBetween(events, "Fence", "Promote")).isEqualTo(1);
    assertThat(activitiesScheduled(events)).doesNotContain("WaitForGtidSet");
    assertThat(mysql.calls).containsSubsequence("fence iad", "wait pdx 0-1-100", "promote pdx");
  }

  /**
   * An API server that does not answer the source's unlabel holds the promotion back a second at
   * most: the unlabel in the window's task gives up after that and goes on as an ordinary activity,
   * which the promotion does not wait for (here it is released only as the target is promoted).
   */
  @Test
  void anUnlabelThatHangsHoldsThePromotionBackASecondAtMost() {
    CountDownLatch apiServer = new CountDownLatch(1);
    k8s.replicaLabelGate = apiServer;
    mysql.beforePromote = apiServer::countDown;
    assertThat(request("pdx").phase()).isEqualTo("Succeeded");
    assertThat(k8s.replicaLabelAttempts.get()).as("the local attempt, then the ordinary one").isGreaterThanOrEqualTo(2);
    assertThat(k8s.roles).containsEntry("iad", "replica").containsEntry("pdx", "primary");
    assertThat(activitiesScheduled(client.fetchHistory(GROUP.workflowId()).getEvents()))
        .as("the ordinary unlabel").containsSubsequence("Fence", "SetSiteRole");
  }

  /**
   * The session drain ends while the run's last workflow task runs (released as the old primary
   * rejoins, in that task): the task is recorded before the run completes, so nothing in it runs
   * twice. Before, the task's completion was refused for the drain's completion that came meanwhile
   * and the task ran again: the rejoin twice, the success counted twice.
   */
  @Test
  void aDrainEndingDuringTheLastWorkflowTaskRunsNothingTwice() {
    CountDownLatch drain = new CountDownLatch(1);
    mysql.server("iad").drainGate = drain;
    mysql.beforeReplicate = () -> {
      drain.countDown();
      // The drain's completion reaches the server while the rejoin, a local activity, still runs.
      sleep(300);
    };
    assertThat(request("pdx").phase()).isEqualTo("Succeeded");
    assertThat(mysql.callsTo("replicate")).containsExactlyInAnyOrder("replicate iad from pdx", "replicate dr from pdx");
    assertThat(mysql.callsTo("kill")).hasSize(1);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * A target that does not hold the fenced set within the first look's second is left to the
   * ordinary lag gate, an activity on the worker that holds the connections with the whole
   * maxLagWait, which decides: here it succeeds.
   */
  @Test
  void aTargetNotCurrentAtTheFirstLookIsLeftToTheOrdinaryLagGate() {
    mysql.server("pdx").seqno = 100;
    mysql.server("pdx").lagTimeouts.set(1);
    assertThat(request("pdx").phase()).isEqualTo("Succeeded");
    assertThat(mysql.callsTo("wait")).hasSize(2);
    assertThat(mysql.stepQueues.get("wait pdx")).as("the ordinary wait").isEqualTo(FakeMysql.OWN_QUEUE);
    List<HistoryEvent> events = client.fetchHistory(GROUP.workflowId()).getEvents();
    assertThat(activitiesScheduled(events)).containsSubsequence("Fence", "WaitForGtidSet", "Promote");
    assertThat(localActivitiesBetween(events, "WaitForGtidSet", "Promote")).containsExactly("RecordFailover");
  }

  /**
   * The catch-up before the fence, the fence and the promotion run on the worker whose kept
   * connections the validation's inspection opened (its own queue), not on whichever worker polls
   * the shared one; the lag gate's first look is a local activity, in the worker that runs the
   * workflow task (with sticky execution the one that ran the inspection).
   */
  @Test
  void theWindowsStepsRunWhereTheValidationOpenedTheConnections() {
    assertThat(request("pdx").phase()).isEqualTo("Succeeded");
    assertThat(mysql.stepQueues).containsOnlyKeys("catch-up pdx", "fence iad", "wait pdx", "promote pdx");
    assertThat(mysql.stepQueues).allSatisfy((step, queue) -> assertThat(queue).as(step)
        .isEqualTo(step.equals("wait pdx") ? FakeMysql.LOCAL : FakeMysql.OWN_QUEUE));
  }

  /**
   * That worker is gone (nobody polls its queue): the catch-up before the fence is never started
   * there, and after a few seconds the run goes on without it, its steps on the shared queue from
   * the fence on (found out before the fence, not inside the write window); the failover succeeds.
   */
  @Test
  void whenThatWorkerIsGoneTheStepsGoToTheSharedQueue() {
    mysql.connectionsQueue = "mysql-failover-worker-gone";
    PlannedFailoverStatus result = request("pdx");
    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(result.message()).contains("pdx had not caught up with iad before the fence (the wait failed");
    assertThat(mysql.callsTo("catch-up")).isEmpty();
    assertThat(mysql.stepQueues).containsOnlyKeys("fence iad", "wait pdx", "promote pdx")
        .allSatisfy((step, queue) -> assertThat(queue).as(step)
            .isEqualTo(step.equals("wait pdx") ? FakeMysql.LOCAL : TaskQueues.FAILOVER));
    assertThat(mysql.callsTo("fence")).as("fenced once").hasSize(1);
    assertThat(mysql.server("pdx").readOnly).isFalse();
  }

  /**
   * A step gets one attempt on that worker's queue: a promotion refused there (the target briefly
   * refusing connections) is retried on the shared queue, with the stub's retries, and succeeds.
   */
  @Test
  void aStepThatFailedOnThatWorkerIsRetriedOnTheSharedQueue() {
    mysql.server("pdx").promoteRefusals.set(1);
    assertThat(request("pdx").phase()).isEqualTo("Succeeded");
    assertThat(mysql.stepQueues.get("fence iad")).isEqualTo(FakeMysql.OWN_QUEUE);
    assertThat(mysql.stepQueues.get("promote pdx")).as("the successful attempt").isEqualTo(TaskQueues.FAILOVER);
    assertThat(mysql.server("pdx").readOnly).isFalse();
  }

  /** The activities the workflow scheduled, by type, in order. */
  private static List<String> activitiesScheduled(List<HistoryEvent> events) {
    return events.stream().filter(HistoryEvent::hasActivityTaskScheduledEventAttributes)
        .map(e -> e.getActivityTaskScheduledEventAttributes().getActivityType().getName()).toList();
  }

  /** The workflow tasks completed after {@code completed} completed and before {@code scheduled} was scheduled. */
  private static int workflowTasksBetween(List<HistoryEvent> events, String completed, String scheduled) {
    return (int) eventsBetween(events, completed, scheduled).stream()
        .filter(HistoryEvent::hasWorkflowTaskCompletedEventAttributes).count();
  }

  /** The local activities recorded after {@code completed} completed and before {@code scheduled} was scheduled. */
  private static List<String> localActivitiesBetween(List<HistoryEvent> events, String completed, String scheduled) {
    return eventsBetween(events, completed, scheduled).stream().filter(HistoryEvent::hasMarkerRecordedEventAttributes)
        .map(e -> DefaultDataConverter.STANDARD_INSTANCE.fromPayloads(0,
            java.util.Optional.ofNullable(e.getMarkerRecordedEventAttributes().getDetailsMap().get("type")),
            String.class, String.class))
        .toList();
  }

  /** The events after the first activity {@code completed} completed and before {@code scheduled} was then scheduled. */
  private static List<HistoryEvent> eventsBetween(List<HistoryEvent> events, String completed, String scheduled) {
    java.util.Map<Long, String> types = new java.util.HashMap<>();
    List<HistoryEvent> between = new java.util.ArrayList<>();
    boolean inside = false;
    for (HistoryEvent e : events) {
      if (e.hasActivityTaskScheduledEventAttributes()) {
        String type = e.getActivityTaskScheduledEventAttributes().getActivityType().getName();
        types.put(e.getEventId(), type);
        if (inside && type.equals(scheduled)) {
          return between;
        }
      } else if (!inside && e.hasActivityTaskCompletedEventAttributes()
          && completed.equals(types.get(e.getActivityTaskCompletedEventAttributes().getScheduledEventId()))) {
        inside = true;
        continue;
      }
      if (inside) {
        between.add(e);
      }
    }
    throw new AssertionError(completed + " completed and then " + scheduled + " scheduled: not found in the history");
  }

  /**
   * Replays the history each scenario just produced, which catches non-determinism in the code as
   * it is now; {@code -Dhistory.dir=...} also stores them for {@link PlannedFailoverReplayTest}.
   */
  @Test
  void historiesReplayDeterministically() throws Exception {
    request("pdx");
    replayAndMaybeStore("planned-succeeded");
    mysql.server("iad").lagging = true;
    // Past the cooldown the first run started, so that this one reaches its lag gate and rolls back.
    k8s.status = k8s.status.withFailover("pdx", "2020-01-01T00:00:00Z", "0-1-100");
    assertThat(request("iad").reason()).isEqualTo("LagTimeout");
    replayAndMaybeStore("planned-lag-timeout");
    k8s.spec = spec("defer");
    k8s.status = k8s.status.withFailover("pdx", lastFailoverEndingSoon().toString(), "0-1-100");
    mysql.server("iad").lagging = false;
    request("iad");
    replayAndMaybeStore("planned-deferred-succeeded");
  }

  private void replayAndMaybeStore(String name) throws Exception {
    rig.replayAndMaybeStore(name);
  }

  private void assertRejected(PlannedFailoverStatus result, String reason, String event) {
    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).isEqualTo(reason);
    assertThat(mysql.callsTo("fence")).as("no fence applied").isEmpty();
    assertThat(mysql.callsTo("promote")).isEmpty();
    assertThat(mysql.server("iad").readOnly).isFalse();
    assertThat(k8s.eventReasons()).contains(event);
    assertThat(k8s.status.plannedFailover().phase()).isEqualTo("Failed");
    assertThat(k8s.annotation).as("annotation cleared").isNull();
  }

  private void waitForPhase(PlannedFailoverWorkflow wf, String phase) {
    WorkflowWaits.awaitPhase(phase, k8s::lastPhase);
  }
}
