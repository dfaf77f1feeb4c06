package io.shipstream.failover.workflows.contract;

/**
 * The workflow types, as the workflow interfaces' {@code @WorkflowMethod} name them: one place for
 * the words the workflows, the worker, the watcher and the status's workflow reference ({@code
 * status.workflow.type}) must agree on. They are on the wire, in every history and in every status
 * written since 0.1.0: a value never changes.
 */
public final class WorkflowTypes {
  private WorkflowTypes() {}

  /** {@code PlannedFailoverWorkflow}: an operator's switchover. */
  public static final String PLANNED_FAILOVER = "PlannedFailover";
  /** {@code EmergencyFailoverWorkflow}: the active site's primary died. */
  public static final String EMERGENCY_FAILOVER = "EmergencyFailover";
  /** {@code DryRunWorkflow}: what a switchover would do now. */
  public static final String DRY_RUN = "DryRun";
}
