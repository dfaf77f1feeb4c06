package io.shipstream.failover.watcher.topology;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.topology.PromoteAnywayAnnotation;
import io.shipstream.failover.model.topology.Verdict;
import io.shipstream.failover.workflows.contract.Events;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group's promote-anyway annotation after the matrix's reaction ({@link VerdictReactions}): what
 * becomes of each value is {@link PromoteAnywayAnnotation#judge}'s table.
 */
final class PromoteAnywayRequests {
  /** The reactions' log category, as before this was split out of them. */
  private static final Logger log = LoggerFactory.getLogger(VerdictReactions.class);

  private final GroupEffects effects;

  PromoteAnywayRequests(GroupEffects effects) {
    this.effects = effects;
  }

  /**
   * Handles the promote-anyway request once per value: a forced promotion that started consumes
   * it, an invalid one is reported and left for a human, one with nothing to override is removed.
   */
  void handle(GroupMemory memory, GroupRef group, PromoteAnywayAnnotation request, Verdict verdict,
      boolean started) {
    if (request == null) {
      memory.promoteAnywayHandled = null;
      return;
    }
    if (request.value().equals(memory.promoteAnywayHandled)) {
      return;
    }
    var outcome = request.judge(verdict);
    if (outcome instanceof PromoteAnywayAnnotation.Invalid invalid) {
      memory.promoteAnywayHandled = request.value();
      log.warn("{}: {}", group, invalid.why());
      effects.event(group, Events.PROMOTE_ANYWAY_REJECTED.type().name(), Events.PROMOTE_ANYWAY_REJECTED.reason(),
          invalid.why());
    } else if (outcome instanceof PromoteAnywayAnnotation.Moot moot) {
      memory.promoteAnywayHandled = request.value();
      log.warn("{}: {}", group, moot.why());
      effects.event(group, Events.PROMOTE_ANYWAY_REJECTED.type().name(), Events.PROMOTE_ANYWAY_REJECTED.reason(),
          moot.why());
      removeRequest(group, request);
    } else if (outcome instanceof PromoteAnywayAnnotation.Forced && started && verdict instanceof Verdict.Promote p) {
      // Started above: the request is spent, so it can never force a later failover.
      memory.promoteAnywayHandled = request.value();
      Verdict.LagOverride o = p.lagOverride();
      String message = "promoting " + p.candidate() + " over the lag limit as " + PromoteAnywayAnnotation.ANNOTATION
          + "=" + p.candidate() + " requests: " + (o.notReceived() == null
              ? "how many transactions of " + p.failedSite() + " it had not received is unknown"
              : "it had not received " + o.notReceived() + " transaction(s) of " + p.failedSite() + " ("
                  + o.notReceivedGtid() + ")")
          + ", limit " + o.limit() + "; they are lost unless another survivor holds them; request removed";
      effects.event(group, Events.PROMOTED_OVER_LAG_LIMIT.type().name(), Events.PROMOTED_OVER_LAG_LIMIT.reason(),
          message);
      removeRequest(group, request);
    }
  }

  private void removeRequest(GroupRef group, PromoteAnywayAnnotation request) {
    try {
      effects.removeAnnotation(group, PromoteAnywayAnnotation.ANNOTATION, request.value());
    } catch (RuntimeException e) {
      // It can force nothing any more (handled once per value); a later evaluation judges it again
      // only if it is set anew.
      log.warn("{}: could not remove {}: {}", group, PromoteAnywayAnnotation.ANNOTATION, e.toString());
    }
  }
}
