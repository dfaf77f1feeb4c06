package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.topology.PrimaryConfirmation.Outcome;

/**
 * Whether the watcher tells a running planned failover that its source is dead, so that the run
 * ends {@code SourceCrashed} at once and the emergency failover takes over, instead of the lag gate
 * waiting out maxLagWait for a target that will never hear from the source again. Pure: the
 * watcher passes the planned run as the status shows it, the source's observation and the
 * replicas' answer about its latest failed poll ({@link PrimaryConfirmation}).
 *
 * <p>First matching row:
 *
 * <pre>
 * | #  | the planned run, its source                                          | tell the run  |
 * |----|----------------------------------------------------------------------|---------------|
 * | h1 | no planned run, or it ended, or it only waits (Scheduled, Deferred:   | no            |
 * |    |   the emergency start pre-empts it)                                  |               |
 * | h2 | it is at PromotingDragonfly or later (the session store is changing  | no            |
 * |    |   masters, or the target may be writable): it only goes forward      |               |
 * | h3 | its source is not the site the watcher fails over from (activeSite)  | no            |
 * | h4 | the source's latest poll answered                                    | no: alive     |
 * | h5 | the replicas say ALIVE: only the watcher (and maybe the worker) is   | no: the run   |
 * |    |   cut off from it                                                    |   goes on     |
 * | h6 | the replicas did not confirm (UNCONFIRMED, RECHECK, not asked about  | no: asked     |
 * |    |   this poll)                                                         |   again later |
 * | h7 | CONFIRMED_DEAD: every replica that received from it lost it          | yes           |
 * </pre>
 *
 * <p>Why the replicas and not the run's own failing reads: the worker's connection to the source
 * can be cut while the application and the replicas still reach it, and a run that rolled back on
 * that would unfence nothing it could reach, or fail over away from a live primary. The replicas'
 * confirmation is the one the emergency failover itself rests on, so the hand-off and the
 * failover that follows stand on the same proof. The debounce alone never tells: a source that is
 * only slow keeps its run.
 */
public final class PlannedSourceDeath {
  private PlannedSourceDeath() {}

  /** The decision: tell the run or not, and why, in one sentence. */
  public record Decision(boolean tell, String why) {}

  /**
   * @param plannedPhase {@code status.plannedFailover.phase}; null when none
   * @param plannedSource {@code status.plannedFailover.sourcePrimary}; null when not yet known
   * @param failedSite the site the watcher fails over from ({@link PrimaryConfirmation#primaryOf})
   * @param source the source's observation; null when never polled
   * @param confirmation the replicas' answer about the source's latest poll; null when none
   */
  public static Decision decide(String plannedPhase, String plannedSource, String failedSite, SiteObservation source,
      PrimaryConfirmation.Result confirmation) {
    Phase phase = plannedPhase == null ? null : Phase.named(plannedPhase).orElse(null);
    if (phase == null || phase.isTerminal() || phase.isWaiting()) {
      return new Decision(false, "h1: no planned failover runs past its waiting");
    }
    if (phase.compareTo(Phase.PromotingDragonfly) >= 0) {
      return new Decision(false, "h2: the planned failover is in " + phase + " and only goes forward");
    }
    if (plannedSource == null || !plannedSource.equals(failedSite)) {
      return new Decision(false, "h3: the planned failover's source '" + plannedSource
          + "' is not the active site '" + failedSite + "'");
    }
    if (source == null || source.latest() == null || source.answeringNow()) {
      return new Decision(false, "h4: its source '" + plannedSource + "' answers");
    }
    Outcome outcome = confirmation == null ? null : confirmation.outcome();
    if (outcome == Outcome.ALIVE) {
      return new Decision(false, "h5: the watcher cannot reach its source '" + plannedSource
          + "' but its replicas still receive from it (" + confirmation.reason() + "): the run goes on");
    }
    if (outcome != Outcome.CONFIRMED_DEAD) {
      return new Decision(false, "h6: the replicas have not confirmed its source '" + plannedSource + "' dead"
          + (confirmation == null ? "" : " (" + confirmation.outcome() + ": " + confirmation.reason() + ")"));
    }
    return new Decision(true,
        "its source '" + plannedSource + "' is dead: every replica that received from it lost it ("
            + confirmation.reason() + ")");
  }
}
