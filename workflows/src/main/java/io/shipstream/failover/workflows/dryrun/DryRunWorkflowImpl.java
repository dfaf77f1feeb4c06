package io.shipstream.failover.workflows.dryrun;

import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.DryRunStatus;
import io.shipstream.failover.model.topology.DryRunAnnotation;
import io.shipstream.failover.workflows.DryRunWorkflow;
import io.shipstream.failover.workflows.activities.DryRunActivities;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.shipstream.failover.workflows.activities.KubernetesActivities.EventNote;
import io.shipstream.failover.workflows.activities.KubernetesActivities.GroupSnapshot;
import io.shipstream.failover.workflows.common.ActivityStubs;
import io.shipstream.failover.workflows.common.FailoverRun;
import io.shipstream.failover.workflows.contract.Events;
import io.temporal.workflow.Workflow;
import java.util.List;

/**
 * The dry run's runbook: read the group, answer the question the annotation asks ({@link
 * SwitchoverDryRun} or {@link EmergencyDryRun}), record the verdict. Nothing but {@code
 * status.dryRun}, one Event and the removal of its own annotation is written: no server is
 * fenced, no pod labelled, no cooldown started, and the group's workflow id stays free.
 */
public class DryRunWorkflowImpl implements DryRunWorkflow {
  private final KubernetesActivities k8s = ActivityStubs.kubernetesLocal();
  private final DryRunActivities reads = ActivityStubs.dryRun();

  @Override
  public DryRunStatus run(Request request) {
    String started = FailoverRun.now().toString();
    GroupSnapshot snapshot = k8s.loadGroup(request.group());
    DryRunReport report = answer(request, snapshot);
    DryRunStatus verdict = report.toStatus(request.annotation(), started, FailoverRun.now().toString(),
        Workflow.getInfo().getWorkflowId());
    reads.record(request.group(), verdict, request.annotation());
    Events event = Events.DRY_RUN_COMPLETED;
    k8s.emitEvents(request.group(), List.of(new EventNote(event.type().name(), event.reason(),
        report.summary(request.annotation()))));
    return verdict;
  }

  private DryRunReport answer(Request request, GroupSnapshot snapshot) {
    DryRunAnnotation asked = DryRunAnnotation.parse(request.annotation());
    DryRunSites sites = new DryRunSites(request.group(), ActivityStubs.mysqlLocal(), reads);
    if (!asked.valid()) {
      DryRunReport report = new DryRunReport(DryRunStatus.SWITCHOVER, DryRunReport.READY);
      report.refuse(Reason.InvalidAnnotation, asked.problem());
      return report;
    }
    if (asked.emergency()) {
      return new EmergencyDryRun(request, sites).run(snapshot);
    }
    return new SwitchoverDryRun(request, sites).run(snapshot, asked.site());
  }
}
