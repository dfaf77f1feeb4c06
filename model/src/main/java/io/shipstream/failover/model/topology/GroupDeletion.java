package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.Annotations;
import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import java.util.List;

/**
 * What the watcher's finalizer does next for one group: the deletion of a group must never cut the
 * application off, nor leave its taints on the nodes. Pure, from what the watcher read (the group,
 * whether a failover workflow runs for it, the phase its status gives that run, whether this
 * watcher already asked it to cancel).
 *
 * <pre>
 * | deleting | our finalizer | failover run | its phase (status)                  | cancel sent | step           |
 * |----------|---------------|--------------|-------------------------------------|-------------|----------------|
 * | no       | absent        | any          | any                                 | any         | ADD_FINALIZER  |
 * | no       | present       | any          | any                                 | any         | NOTHING        |
 * | yes      | absent        | any          | any                                 | any         | NOTHING        |
 * | yes      | present       | unknown      | any                                 | any         | HOLD           |
 * | yes      | present       | emergency    | any                                 | any         | WAIT           |
 * | yes      | present       | running      | Promoting or later, PromotingDragonfly | any      | WAIT           |
 * | yes      | present       | running      | before Promoting, or not known      | no          | CANCEL         |
 * | yes      | present       | running      | before Promoting, or not known      | yes         | WAIT           |
 * | yes      | present       | none         | any                                 | any         | CLEAN          |
 * </pre>
 *
 * <p>Only a planned failover is cancelled (its rollback gives the source its writes back). An
 * emergency failover is never cancelled by a deletion, whatever its phase: its primary is already
 * lost, and cancelling it before Promoting would leave the application with no writable primary at
 * all, the one thing deleting the group must never do; the finalizer waits for it to end.
 *
 * <p>A deleted group without our finalizer was finalized already (or was never managed): nothing is
 * ours to do. The phase is the run's own answer to its status query, else the one the status gives
 * it. A run whose phase neither gives (no worker answers, its first status write not yet made, or
 * the status names another run) is asked to cancel: the workflow itself refuses a cancel from
 * Promoting on ({@code CancelRequest}), so a stale phase can only make the ask useless, never
 * harmful. "Unknown" is Temporal not answering: cleaning then could remove the taints under a
 * failover that is about to re-apply them, so the finalizer holds and says why.
 */
public final class GroupDeletion {
  /** The finalizer the watcher puts on every group it manages. */
  public static final String FINALIZER = Annotations.FINALIZER;

  /** Whether a failover workflow runs for the group: none, one, or Temporal could not say. */
  public enum Run {
    NONE, RUNNING, UNKNOWN
  }

  public enum Step {
    /** A live group without the finalizer: add it (and forget any tombstone of an earlier group of that name). */
    ADD_FINALIZER,
    NOTHING,
    /** Ask the running failover to cancel (it rolls back), then wait for it to end. */
    CANCEL,
    /** A failover runs that is not to be (or was already) cancelled: look again once it may have ended. */
    WAIT,
    /** It cannot be told whether a failover runs: keep the finalizer, say why, look again later. */
    HOLD,
    /** No failover runs: remove the taints, orphan the routing, write the tombstone, remove the finalizer. */
    CLEAN
  }

  private GroupDeletion() {}

  /**
   * @param emergency whether the running failover is an emergency one (never cancelled here)
   */
  public static Step decide(boolean deleting, boolean hasFinalizer, Run run, boolean emergency, Phase phase,
      boolean cancelSent) {
    if (!deleting) {
      return hasFinalizer ? Step.NOTHING : Step.ADD_FINALIZER;
    }
    if (!hasFinalizer) {
      return Step.NOTHING;
    }
    return switch (run) {
      case UNKNOWN -> Step.HOLD;
      case NONE -> Step.CLEAN;
      case RUNNING -> emergency || phase != null && pastCancel(phase) || cancelSent ? Step.WAIT : Step.CANCEL;
    };
  }

  /**
   * Whether a run in {@code phase} no longer takes a cancel: the workflow's own rule
   * ({@code CancelRequest}): from Promoting on the target may be writable, and while the session
   * store changes masters moving it back would be a second failover of it.
   */
  public static boolean pastCancel(Phase phase) {
    return phase.isPastPointOfNoReturn() || phase == Phase.PromotingDragonfly;
  }

  /** Whether the object is being deleted (the API server set its deletionTimestamp). */
  public static boolean deleting(MysqlFailoverGroup group) {
    String at = group.getMetadata().getDeletionTimestamp();
    return at != null && !at.isBlank();
  }

  public static boolean hasFinalizer(MysqlFailoverGroup group) {
    List<String> finalizers = group.getMetadata().getFinalizers();
    return finalizers != null && finalizers.contains(FINALIZER);
  }

  /**
   * The phase the status gives the run {@code runId}: the planned or emergency failover's, as the
   * status's workflow reference names that run's type; null when the status names another run (or
   * none) or no phase.
   */
  public static Phase phaseOf(MysqlFailoverGroupStatus status, String runId) {
    if (status == null || status.workflow() == null || runId == null || !runId.equals(status.workflow().runId())) {
      return null;
    }
    String type = status.workflow().type();
    String phase = null;
    // The workflow types, spelt here because the model cannot see the workflows' WorkflowTypes
    // (WorkflowTypesTest holds the two together).
    if ("PlannedFailover".equals(type) && status.plannedFailover() != null) {
      phase = status.plannedFailover().phase();
    } else if ("EmergencyFailover".equals(type) && status.emergencyFailover() != null) {
      phase = status.emergencyFailover().phase();
    }
    return Phase.named(phase).orElse(null);
  }
}
