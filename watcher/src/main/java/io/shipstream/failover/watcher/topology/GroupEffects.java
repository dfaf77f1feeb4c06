package io.shipstream.failover.watcher.topology;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.topology.PrimaryConfirmation;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.model.topology.Verdict;
import io.shipstream.failover.workflows.contract.Events;
import java.util.List;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * What the watcher's steps do to a group's world: start and tell failover workflows (Temporal),
 * fence and unfence servers, write Events, status fields and annotations (the API server). The
 * process wires the real one ({@code KubeEffects}), tests a recording fake.
 */
public interface GroupEffects {
  /**
   * Starts the emergency failover; false when a workflow already holds the group's id.
   * {@code siteGtids} is every site's executed GTID set as the monitor knows it, for the
   * transactions-lost count.
   */
  boolean startEmergency(GroupRef group, Verdict.Promote promote, Map<String, String> siteGtids);

  /** As above, with when the loss was detected, for the run's write window. */
  default boolean startEmergency(GroupRef group, Verdict.Promote promote, Map<String, String> siteGtids,
      VerdictReactions.Detection detection) {
    return startEmergency(group, promote, siteGtids);
  }

  boolean failoverRunning(GroupRef group);

  /**
   * A poll of {@code site}'s server taken now: the failed primary, right before its emergency
   * failover would start (rows s1-s2 of {@link PrimaryConfirmation}). Null when these effects
   * cannot poll (the unit tests' fakes): the start then goes ahead as decided.
   */
  default Probe pollNow(GroupRef group, String site) {
    return null;
  }

  void fence(GroupRef group, String site) throws Exception;

  void event(GroupRef group, String type, String reason, String message);

  /**
   * Writes an Event of the contract; a write the API server refused is logged, not thrown: an
   * Event notes what was done and is never a reason to stop doing it.
   */
  default void eventOrLog(GroupRef group, Events event, String message) {
    try {
      event(group, event.type().name(), event.reason(), message);
    } catch (RuntimeException e) {
      // Under the reactions' log category, as when this interface was nested in VerdictReactions.
      LoggerFactory.getLogger(VerdictReactions.class).warn("{}: cannot write the {} Event: {}", group, event.reason(),
          e.toString());
    }
  }

  /** Records {@code status.activeSite}: the sidecars fence every site but that one. */
  void recordActiveSite(GroupRef group, String site);

  /** Removes the annotation {@code key} from the group if it still has {@code value}. */
  void removeAnnotation(GroupRef group, String key, String value);

  /** Records {@code status.fencedSites}: the sites a DBA fenced, as the watcher accepted them ({@link SiteFences}). */
  default void recordFencedSites(GroupRef group, List<String> sites) {
    throw new UnsupportedOperationException("fenced sites are not recorded by these effects");
  }

  /**
   * Tells the planned failover run {@code runId} of the group that its source is dead ({@link
   * PlannedSourceDeath}); false when that run no longer runs.
   */
  default boolean sourceDied(GroupRef group, String runId, String why) {
    throw new UnsupportedOperationException("no planned failover is told anything by these effects");
  }

  /** Makes the site's server writable again: the active site a DBA unfenced ({@link SiteFences}). */
  default void unfence(GroupRef group, String site) throws Exception {
    throw new UnsupportedOperationException("nothing is unfenced by these effects");
  }
}
