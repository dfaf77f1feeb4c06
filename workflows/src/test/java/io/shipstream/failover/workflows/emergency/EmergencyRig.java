package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.workflows.EmergencyFailoverWorkflow;
import io.shipstream.failover.workflows.TaskQueues;
import io.shipstream.failover.workflows.fakes.FailoverRig;
import io.shipstream.failover.workflows.fakes.FakeMysql;
import io.shipstream.failover.workflows.fakes.FakeSidecar;
import io.shipstream.failover.workflows.fakes.WorkflowWaits;
import io.shipstream.failover.workflows.planned.PlannedFailoverWorkflowImpl;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import java.util.List;

/**
 * One group of three sites on Temporal's test server: iad is the active site whose primary
 * failed, pdx the candidate, dr a dr-only site. The planned workflow is registered too, because
 * both run under the group's one workflow id. The server runs in real time, as the planned tests
 * do: time skipping jumps over the timeouts of activities a busy machine has not picked up yet,
 * and the emergency failover has no long timer to skip anyway.
 */
final class EmergencyRig extends FailoverRig {
  static final GroupRef GROUP = new GroupRef("shop", "orders");

  final FakeSidecar sidecar;

  EmergencyRig() {
    this(new FakeSidecar());
  }

  private EmergencyRig(FakeSidecar sidecar) {
    super(new Class<?>[] {EmergencyFailoverWorkflowImpl.class, PlannedFailoverWorkflowImpl.class}, sidecar);
    this.sidecar = sidecar;
    k8s.spec = spec();
    k8s.status = MysqlFailoverGroupStatus.empty().withActiveSite("iad");
    mysql.add("iad", true, 100).reachable = false;
    mysql.add("pdx", false, 100);
    mysql.add("dr", false, 95);
  }

  static MysqlFailoverGroupSpec spec() {
    return new MysqlFailoverGroupSpec(List.of(site("iad", "primary-candidate"), site("pdx", "primary-candidate"),
        site("dr", "dr-only")), new MysqlFailoverGroupSpec.SecretRef("orders-mysql"), null, null, null, null, null,
        null, null, new MysqlFailoverGroupSpec.DnsSpec("orders-db.example.com", 30), null, null);
  }

  /**
   * The same group with a sidecar at every site and short sidecar knobs (lease 2 s, tick 500 ms),
   * so that waiting out iad's lease takes 3.5 s.
   */
  static MysqlFailoverGroupSpec specWithSidecars() {
    MysqlFailoverGroupSpec spec = spec();
    List<SiteSpec> sites = spec.sites().stream().map(s -> new SiteSpec(s.name(), s.role(), s.zone(), s.mysql(),
        s.podSelector(), s.taintNodeSelector(), s.lbIP(), new SiteSpec.Sidecar("http://" + s.name() + ".sidecar:8080"),
        s.dragonfly())).toList();
    return new MysqlFailoverGroupSpec(sites, spec.credentialsSecretRef(), spec.pollInterval(), spec.failureThreshold(),
        spec.recoveryThreshold(), spec.failoverCooldown(), spec.connectionDrainTimeout(), spec.plannedFailover(),
        spec.splitBrainPolicy(), spec.dns(), new MysqlFailoverGroupSpec.SidecarSpec("2s", "500ms"), spec.dragonfly());
  }

  /**
   * iad's primary alive after all, reachable and writable: back just after the check before the
   * fence found it dead, so the failover goes on and its fence reaches it.
   */
  FakeMysql.Server iadBackForTheFence() {
    FakeMysql.Server iad = mysql.server("iad");
    iad.reachable = true;
    iad.readOnly = false;
    iad.missedInspections.set(1);
    return iad;
  }

  static EmergencyFailoverWorkflow.Request request(String candidate, String lastKnownGtid) {
    return new EmergencyFailoverWorkflow.Request(GROUP, "iad", candidate, lastKnownGtid,
        "iad unreachable for 3 polls from 2 sites");
  }

  EmergencyFailoverWorkflow stub() {
    return client.newWorkflowStub(EmergencyFailoverWorkflow.class, options());
  }

  static WorkflowOptions options() {
    return WorkflowOptions.newBuilder()
        // What the watcher gives a start; the candidate varies by test, so the summary names the failed site.
        .setStaticSummary(io.shipstream.failover.workflows.FailoverSummaries.emergency(GROUP, "iad", "the candidate"))
        .setWorkflowId(GROUP.workflowId())
        .setTaskQueue(TaskQueues.FAILOVER)
        .setWorkflowIdReusePolicy(WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
        .build();
  }

  EmergencyFailoverStatus run(String candidate, String lastKnownGtid) {
    return result(start(candidate, lastKnownGtid));
  }

  EmergencyFailoverWorkflow start(String candidate, String lastKnownGtid) {
    EmergencyFailoverWorkflow wf = stub();
    WorkflowClient.start(wf::run, request(candidate, lastKnownGtid));
    return wf;
  }

  EmergencyFailoverStatus result(EmergencyFailoverWorkflow wf) {
    return result(WorkflowStub.fromTyped(wf));
  }

  EmergencyFailoverStatus result(WorkflowStub stub) {
    return WorkflowWaits.result(client, GROUP.workflowId(), stub, EmergencyFailoverStatus.class);
  }

  void waitForPhase(String phase) {
    WorkflowWaits.awaitPhase(phase, k8s::lastEmergencyPhase);
  }
}
