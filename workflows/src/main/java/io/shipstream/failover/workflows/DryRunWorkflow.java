package io.shipstream.failover.workflows;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.DryRunStatus;
import io.shipstream.failover.workflows.contract.WorkflowTypes;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Answers, by reading only, what a switchover to a site would do now, or which site an emergency
 * failover would promote if the active site died now. Runs under an id of its own ({@link
 * #workflowId}), never the group's: an emergency failover is never held back by it, and it counts
 * in no cooldown.
 */
@WorkflowInterface
public interface DryRunWorkflow {

  /**
   * What the watcher saw when it started the run: the annotation's value, and the watcher's own
   * checks of a real request (the group paused or being deleted, the type of a failover workflow
   * holding the group's id; null when none), which a workflow cannot see.
   */
  record Request(GroupRef group, String annotation, boolean paused, boolean deleting, String runningWorkflowType) {}

  @WorkflowMethod(name = WorkflowTypes.DRY_RUN)
  DryRunStatus run(Request request);

  /** The run's own id: the group's workflow id with a suffix, so the group's id stays free. */
  static String workflowId(GroupRef group, long sequence) {
    return group.workflowId() + "-dry-run-" + sequence;
  }
}
