package io.shipstream.failover.workflows.planned;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.PlannedFailoverAnnotation;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.workflows.PlannedFailoverWorkflow;
import io.shipstream.failover.workflows.TaskQueues;
import io.shipstream.failover.workflows.fakes.FailoverRig;
import io.shipstream.failover.workflows.fakes.FakeDragonfly;
import io.shipstream.failover.workflows.fakes.RealTimeTestServer;
import io.shipstream.failover.workflows.fakes.WorkflowWaits;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.WorkflowReplayer;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * One group on Temporal's test server for the planned-failover tests: iad the active primary,
 * pdx and dr its replicas (a little behind), in-memory MySQL, Kubernetes and session stores, and the
 * metrics the workflow reports, on a {@link RealTimeTestServer} (the cooldown cases use a cooldown
 * that ends two seconds from now, since time does not skip).
 */
final class PlannedRig extends FailoverRig {
  static final GroupRef GROUP = new GroupRef("shop", "orders");

  final FakeDragonfly stores;

  PlannedRig() {
    this(false);
  }

  /** {@code timeSkipping}: for the scheduled switchovers, whose timers are hours long. */
  PlannedRig(boolean timeSkipping) {
    this(timeSkipping, new FakeDragonfly());
  }

  private PlannedRig(boolean timeSkipping, FakeDragonfly stores) {
    super(timeSkipping, new Class<?>[] {PlannedFailoverWorkflowImpl.class}, stores);
    this.stores = stores;
    k8s.spec = spec(null);
    k8s.status = MysqlFailoverGroupStatus.empty().withActiveSite("iad");
    mysql.add("iad", true, 100);
    mysql.add("pdx", false, 97).replicatesFrom = "iad";
    mysql.add("dr", false, 95).replicatesFrom = "iad";
  }

  /** iad and pdx as primary candidates and dr as dr-only, with DNS; {@code onCooldown} as given. */
  static MysqlFailoverGroupSpec spec(String onCooldown) {
    return new MysqlFailoverGroupSpec(List.of(site("iad", "primary-candidate"), site("pdx", "primary-candidate"),
        site("dr", "dr-only")), new MysqlFailoverGroupSpec.SecretRef("orders-mysql"), null, null, null, null, null,
        new MysqlFailoverGroupSpec.PlannedFailoverSpec(null, null, onCooldown), null,
        new MysqlFailoverGroupSpec.DnsSpec("orders-db.example.com", 30), null, null);
  }

  PlannedFailoverWorkflow stub() {
    return stub(null);
  }

  /** The target the watcher names in the summary: none for a malformed annotation, which the workflow rejects. */
  private static String summaryTarget(String annotation) {
    try {
      return PlannedFailoverAnnotation.parse(annotation).targetSite();
    } catch (IllegalArgumentException malformed) {
      return null;
    }
  }

  /** A start as the watcher makes it, with the static summary it gives for {@code target}. */
  PlannedFailoverWorkflow stub(String target) {
    return client.newWorkflowStub(PlannedFailoverWorkflow.class, WorkflowOptions.newBuilder()
        .setStaticSummary(io.shipstream.failover.workflows.FailoverSummaries.planned(GROUP, target))
        .setWorkflowId(GROUP.workflowId())
        .setTaskQueue(TaskQueues.FAILOVER)
        .setWorkflowIdReusePolicy(WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
        .build());
  }

  /** Annotates the group and starts the workflow, as the watcher does; returns its stub. */
  PlannedFailoverWorkflow startAsync(String annotation) {
    k8s.annotation = annotation;
    PlannedFailoverWorkflow wf = stub(summaryTarget(annotation));
    WorkflowClient.start(wf::run, new PlannedFailoverWorkflow.Request(GROUP, annotation));
    return wf;
  }

  PlannedFailoverStatus result(PlannedFailoverWorkflow wf) {
    return WorkflowWaits.result(client, GROUP.workflowId(), WorkflowStub.fromTyped(wf), PlannedFailoverStatus.class);
  }

  PlannedFailoverStatus request(String annotation) {
    return result(startAsync(annotation));
  }

  /**
   * Requests a failover and holds it in WaitingForLag (the target's wait blocks) while
   * {@code meanwhile} changes the world, as a crash would; then lets the wait end and returns the
   * result.
   */
  PlannedFailoverStatus requestActingWhileWaitingForLag(String annotation, Runnable meanwhile) {
    CountDownLatch gate = new CountDownLatch(1);
    String target = PlannedFailoverAnnotation.parse(annotation).targetSite();
    // Caught up when validated (iad's 100): only the lag gate, after the fence, waits.
    mysql.server(target).seqno = 100;
    mysql.server(target).waitGate = gate;
    PlannedFailoverWorkflow wf = startAsync(annotation);
    WorkflowWaits.awaitPhase("WaitingForLag", k8s::lastPhase);
    meanwhile.run();
    gate.countDown();
    return result(wf);
  }

  /**
   * Replays the latest run's history, which catches non-determinism in the code as it is now;
   * {@code -Dhistory.dir=...} also stores it for {@link PlannedFailoverReplayTest}.
   */
  void replayAndMaybeStore(String name) throws Exception {
    WorkflowExecutionHistory history = client.fetchHistory(GROUP.workflowId());
    WorkflowReplayer.replayWorkflowExecution(history, PlannedFailoverWorkflowImpl.class);
    String dir = System.getProperty("history.dir");
    if (dir != null) {
      java.nio.file.Files.writeString(java.nio.file.Path.of(dir, name + ".json"), history.toJson(true));
    }
  }

}
