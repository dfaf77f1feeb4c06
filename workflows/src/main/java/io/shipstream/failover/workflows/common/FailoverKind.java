package io.shipstream.failover.workflows.common;

import io.shipstream.failover.model.Reason;
import io.shipstream.failover.workflows.contract.WorkflowTypes;

/**
 * What tells the two runbooks apart where they share the {@link FailoverRun} skeleton: the
 * workflow's name, the words of its log lines, its metric names, and the few rules their seed pages
 * state differently. Everything else of a failover is the same for both.
 */
public enum FailoverKind {
  /** An operator's request: fence the source, wait for the target, promote it. */
  PLANNED(WorkflowTypes.PLANNED_FAILOVER, "planned", "bloodraven_planned_failovers",
      "bloodraven_planned_failover_duration"),
  /** The active site's primary died: fence what can be fenced, promote the candidate. */
  EMERGENCY(WorkflowTypes.EMERGENCY_FAILOVER, "emergency", "bloodraven_failovers", "bloodraven_failover_duration");

  private final String workflowType;
  private final String label;
  private final String counter;
  private final String durationTimer;

  FailoverKind(String workflowType, String label, String counter, String durationTimer) {
    this.workflowType = workflowType;
    this.label = label;
    this.counter = counter;
    this.durationTimer = durationTimer;
  }

  /** The workflow type, as its {@code @WorkflowMethod} names it and the status's workflow reference shows it. */
  public String workflowType() {
    return workflowType;
  }

  /** "planned" or "emergency", for log lines. */
  String label() {
    return label;
  }

  /** The counter of finished failovers, before Prometheus adds {@code _total}. */
  String counter() {
    return counter;
  }

  /** The timer of successful failovers, before Prometheus adds {@code _seconds}. */
  String durationTimer() {
    return durationTimer;
  }

  /**
   * The {@code result} label of a failover that ended Failed: the table in {@link Reason}'s
   * Javadoc. The two counters were defined apart and dashboards read them as they are: only the
   * planned one has {@code failed_timeout} (a lag wait), only the emergency one counts a cancel as
   * {@code cancelled}. An emergency failover whose failed primary answered before its fence
   * changed nothing and is no failure to page about: rejected.
   */
  String result(Reason reason) {
    if (this == EMERGENCY) {
      return switch (reason) {
        case InvalidSpec, UnknownSite, TargetUnhealthy, TargetNotCandidate, PrimaryAnswered -> "rejected";
        case Cancelled -> "cancelled";
        default -> "failed_other";
      };
    }
    return switch (reason) {
      case LagTimeout -> "failed_timeout";
      case InvalidAnnotation, UnknownSite, AlreadyActive, TargetUnhealthy, TargetNotCandidate, NoActivePrimary,
          CooldownActive, ConcurrentOperation, InvalidSpec, PreFailoverHookVetoed, InvalidSchedule, TargetFenced ->
        "rejected";
      default -> "failed_other";
    };
  }

  /**
   * Whether the status message of a failover that ended Failed keeps the notes written before the
   * failure (after the failure itself). The emergency status keeps them, since an old primary not
   * fenced still matters after a failure; the planned status states the failure alone, as its seed
   * page's failure rows do.
   */
  boolean keepsNotesOnFailure() {
    return this == EMERGENCY;
  }
}
