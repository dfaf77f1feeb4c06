package io.shipstream.failover.watcher.topology;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.WorkflowRef;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.topology.PlannedSourceDeath;
import io.shipstream.failover.model.topology.PrimaryConfirmation;
import io.shipstream.failover.model.topology.TopologyMatrix;
import io.shipstream.failover.workflows.common.FailoverKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Planned failovers told that their source is dead ({@link PlannedSourceDeath}), once per run: see
 * {@link VerdictReactions#handOff}.
 */
final class PlannedRunHandOffs {
  /** The reactions' log category, as before this was split out of them. */
  private static final Logger log = LoggerFactory.getLogger(VerdictReactions.class);

  private final GroupEffects effects;

  PlannedRunHandOffs(GroupEffects effects) {
    this.effects = effects;
  }

  /** As {@link VerdictReactions#handOff}. */
  boolean handOff(GroupMemory memory, GroupRef group, MysqlFailoverGroupStatus status, TopologyMatrix.Input in,
      PrimaryConfirmation.Result confirmation) {
    PlannedFailoverStatus planned = status == null ? null : status.plannedFailover();
    WorkflowRef run = status == null ? null : status.workflow();
    String failed = PrimaryConfirmation.primaryOf(in);
    PlannedSourceDeath.Decision d = PlannedSourceDeath.decide(planned == null ? null : planned.phase(),
        planned == null ? null : planned.sourcePrimary(), failed, failed == null ? null : in.sites().get(failed),
        confirmation);
    if (!d.tell() || run == null || run.runId() == null || !FailoverKind.PLANNED.workflowType().equals(run.type())) {
      if (!d.tell()) {
        memory.handedOff = null;
      }
      return false;
    }
    if (run.runId().equals(memory.handedOff)) {
      return true;
    }
    String why = d.why();
    boolean told;
    try {
      told = effects.sourceDied(group, run.runId(), why);
    } catch (RuntimeException e) {
      // Told again at the next evaluation.
      log.warn("{}: could not tell the planned failover {} that its source is dead: {}", group, run.runId(),
          e.toString());
      return false;
    }
    if (told) {
      memory.handedOff = run.runId();
      log.warn("{}: told the planned failover {} in {} that {}; the emergency failover follows once it has ended",
          group, run.runId(), planned.phase(), why);
    }
    return told;
  }

  /** Whether a planned run of the group was told, and the matrix's ConcurrentOperation block is that hand-off. */
  boolean told(GroupMemory memory) {
    return memory.handedOff != null;
  }
}
