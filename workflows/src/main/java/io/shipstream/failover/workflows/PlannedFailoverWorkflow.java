package io.shipstream.failover.workflows;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.workflows.contract.WorkflowTypes;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Moves the primary of one group to the site an operator named, with zero transactions lost or
 * no change at all. Runs under {@link GroupRef#workflowId()}.
 */
@WorkflowInterface
public interface PlannedFailoverWorkflow {

  /** What the watcher saw: the group and the raw annotation value, parsed by the workflow itself. */
  record Request(GroupRef group, String annotation) {}

  @WorkflowMethod(name = WorkflowTypes.PLANNED_FAILOVER)
  PlannedFailoverStatus run(Request request);

  /** Cancels while Deferred or before Promoting; ignored once the target may be writable. */
  @SignalMethod
  void cancel(String reason);

  /**
   * The watcher's replicas confirmed the source dead ({@code model.topology.PlannedSourceDeath}):
   * before PromotingDragonfly the run ends {@code SourceCrashed} at once, leaving the source fenced,
   * so that the emergency failover can take the group's workflow id; ignored after, as a cancel is.
   */
  @SignalMethod
  void sourceDied(String why);

  @QueryMethod
  PlannedFailoverStatus status();
}
