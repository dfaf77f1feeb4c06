package io.shipstream.failover.workflows.dryrun;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.DryRunStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.workflows.DryRunWorkflow;
import io.shipstream.failover.workflows.TaskQueues;
import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.shipstream.failover.workflows.contract.WorkflowTypes;
import io.shipstream.failover.workflows.fakes.FailoverRig;
import io.shipstream.failover.workflows.fakes.FakeDryRun;
import io.temporal.client.WorkflowOptions;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The dry-run workflow on Temporal's test server with in-memory servers: what it answers for the
 * cases the end-to-end test does not reach, and that it writes only its verdict and one Event.
 */
class DryRunWorkflowTest {
  private static final GroupRef GROUP = new GroupRef("shop", "orders");

  /** iad the primary, pdx a replica 3 transactions behind, dr a dr-only replica. */
  private static final class Rig extends FailoverRig {
    final FakeDryRun dryRun;

    Rig(FakeDryRun dryRun, String onCooldown) {
      super(new Class<?>[] {DryRunWorkflowImpl.class}, dryRun);
      this.dryRun = dryRun;
      dryRun.mysql = mysql;
      k8s.spec = new MysqlFailoverGroupSpec(List.of(site("iad", "primary-candidate"), site("pdx", "primary-candidate"),
          site("dr", "dr-only")), new MysqlFailoverGroupSpec.SecretRef("orders-mysql"), null, null, null, null, null,
          new MysqlFailoverGroupSpec.PlannedFailoverSpec(null, null, onCooldown), null, null, null, null);
      k8s.status = MysqlFailoverGroupStatus.empty().withActiveSite("iad");
      mysql.add("iad", true, 100);
      // The dry run reads every site at once: dr may be read before iad, and its source must still
      // be iad's address, not an unknown server.
      mysql.addressed(new MysqlTarget(GROUP, "iad", "iad.db", 3306, "orders-mysql"));
      mysql.add("pdx", false, 97).replicatesFrom = "iad";
      // Streaming with no delay: the lag is the 3 transactions alone.
      mysql.server("pdx").secondsBehind = 0;
      mysql.add("dr", false, 95).replicatesFrom = "iad";
    }

    DryRunStatus run(String value, boolean paused, String running) {
      return client.newWorkflowStub(DryRunWorkflow.class, WorkflowOptions.newBuilder()
          .setWorkflowId(DryRunWorkflow.workflowId(GROUP, 1)).setTaskQueue(TaskQueues.FAILOVER).build())
          .run(new DryRunWorkflow.Request(GROUP, value, paused, false, running));
    }
  }

  private Rig rig;

  @AfterEach
  void close() {
    if (rig != null) {
      rig.close();
    }
  }

  @Test
  void aTargetThatDoesNotReplicateIsRefusedWithValidatingsOwnReasonAndNothingIsCalledButReads() {
    rig = new Rig(new FakeDryRun(), null);
    rig.mysql.servers.get("pdx").replicating = false;

    DryRunStatus verdict = rig.run("pdx", false, null);

    assertThat(verdict.verdict()).isEqualTo("Refused");
    assertThat(verdict.reason()).isEqualTo("TargetUnhealthy");
    assertThat(verdict.message()).startsWith("target pdx is not replicating");
    assertThat(rig.dryRun.recorded).containsExactly(verdict);
    assertThat(rig.k8s.eventReasons()).containsExactly("DryRunCompleted");
    assertThat(rig.mysql.calls).allMatch(c -> c.startsWith("inspect"), "only inspections");
    assertThat(rig.k8s.status.plannedFailover()).as("status.plannedFailover untouched").isNull();
  }

  @Test
  void aLaggingTargetIsReadyWithItsLagAndAnEstimate() {
    rig = new Rig(new FakeDryRun(), null);

    DryRunStatus verdict = rig.run("pdx", false, null);

    assertThat(verdict.verdict()).as(String.valueOf(verdict)).isEqualTo("Ready");
    assertThat(verdict.lagTransactions()).isEqualTo(3);
    assertThat(verdict.estimatedWriteWindowSeconds()).isEqualTo(0.003);
    assertThat(verdict.findings()).contains("replicas re-pointed at pdx after the promotion: [dr]; iad rejoins as its "
        + "replica", "pre-failover hook: none", "semi-sync: not enabled in the spec");
  }

  @Test
  void theCooldownWithDeferWouldWaitAndARunningEmergencyFailoverRefuses() {
    rig = new Rig(new FakeDryRun(), "defer");
    rig.k8s.status = rig.k8s.status.withLastPromotion(Instant.now().toString());

    DryRunStatus deferred = rig.run("pdx", false, null);
    assertThat(deferred.verdict()).isEqualTo("WouldWait");
    assertThat(deferred.reason()).isEqualTo("CooldownActive");
    assertThat(deferred.message()).startsWith("failover cooldown active: deferred until ");

    DryRunStatus concurrent = rig.run("pdx", false, WorkflowTypes.EMERGENCY_FAILOVER);
    assertThat(concurrent.verdict()).isEqualTo("Refused");
    assertThat(concurrent.reason()).isEqualTo("ConcurrentOperation");
  }

  @Test
  void theEmergencyPrecheckNamesTheCandidateAndWhatItWouldLose() {
    rig = new Rig(new FakeDryRun(), null);

    DryRunStatus precheck = rig.run("emergency", false, null);

    assertThat(precheck.verdict()).as(String.valueOf(precheck)).isEqualTo("WouldPromote");
    assertThat(precheck.source()).isEqualTo("iad");
    assertThat(precheck.target()).isEqualTo("pdx");
    assertThat(precheck.transactionsLost()).isEqualTo(3);

    DryRunStatus paused = rig.run("emergency", true, null);
    assertThat(paused.verdict()).isEqualTo("Blocked");
    assertThat(paused.reason()).isEqualTo("Paused");
    assertThat(paused.message()).contains("would promote pdx");
  }

  /**
   * An unreachable pre-hook refuses the dry run as the real call would veto the switchover; with
   * semi-sync required, two acknowledgers wanted from all sites and dr's replication stopped, only
   * iad (rejoining) could acknowledge pdx: a warning.
   */
  @Test
  void anUnreachablePreHookRefusesAndTooFewAcknowledgersAreAWarning() {
    rig = new Rig(new FakeDryRun(), null);
    MysqlFailoverGroupSpec s = rig.k8s.spec;
    rig.k8s.spec = new MysqlFailoverGroupSpec(s.sites(), s.credentialsSecretRef(), s.pollInterval(),
        s.failureThreshold(), s.recoveryThreshold(), s.failoverCooldown(), s.connectionDrainTimeout(),
        s.plannedFailover(), s.splitBrainPolicy(), s.dns(), s.sidecar(), s.dragonfly(), s.emergencyFailover(),
        s.minSourceSilence(), new MysqlFailoverGroupSpec.SemiSyncSpec(true, "required", null, 2, "all"),
        new MysqlFailoverGroupSpec.HooksSpec(new MysqlFailoverGroupSpec.HookSpec("http://hooks.example/pre", null,
            null), null));
    rig.dryRun.hookReachable = false;
    rig.mysql.servers.get("dr").replicating = false;

    DryRunStatus verdict = rig.run("pdx", false, null);

    assertThat(verdict.verdict()).as(String.valueOf(verdict)).isEqualTo("Refused");
    assertThat(verdict.reason()).as(verdict.message()).isEqualTo("PreFailoverHookVetoed");
    assertThat(verdict.message()).isEqualTo("pre-failover hook http://hooks.example/pre is unreachable (connection "
        + "refused): a request would be vetoed before the fence");
    assertThat(verdict.findings()).contains("semi-sync: acknowledgers after the switchover [iad] (minSyncReplicas 2)");
    assertThat(verdict.warnings()).anyMatch(w -> w.startsWith("only 1 replica(s) [iad] could acknowledge pdx's "
        + "commits, fewer than minSyncReplicas 2: required durability would stop commits"));
    assertThat(verdict.estimatedWriteWindowSeconds()).as("no estimate for a refused request").isNull();
  }

  @Test
  void anInvalidValueIsRefusedSayingWhy() {
    rig = new Rig(new FakeDryRun(), null);

    DryRunStatus verdict = rig.run("PDX", false, null);

    assertThat(verdict.reason()).isEqualTo("InvalidAnnotation");
    assertThat(verdict.message()).contains("a site name, or 'emergency'");
  }
}
