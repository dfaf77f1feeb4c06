package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.model.gtid.GtidUnion;
import io.shipstream.failover.model.topology.GtidHistory;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether an emergency failover's candidate must first catch up from another surviving replica,
 * and from which one. Replication is asynchronous, so when the primary dies one replica's IO
 * thread may have received a transaction another's had not; the watcher chose the freshest
 * primary-candidate, but a dr-only or read-only replica can still hold more. Promoting without
 * those transactions would lose acknowledged writes that a surviving server holds.
 *
 * <p>The rule: a survivor is a donor when it holds transactions the candidate has neither
 * executed nor received, and its history includes everything the candidate holds (executed or
 * received), in the sense of {@link GtidHistory#includes}: then replicating from it only adds to
 * the candidate's history. A survivor that holds more but also lacks some of the candidate's
 * executed transactions has a divergent history; one that lacks some the candidate only received
 * would make the catch-up drop them. Neither is used, and a warning says what it holds. Among
 * donors the one the candidate lacks most transactions of is chosen, then the first in the order
 * given (spec order).
 *
 * <p>Plain code, deterministic: the workflow calls it with what the activities read.
 */
final class CatchUpPlan {
  private CatchUpPlan() {}

  /**
   * A surviving replica as read during the failover: its executed set and, when it replicates, what
   * its IO thread had received. Either may be null (unknown); received transactions count because
   * the donor applies them before it is used.
   */
  record Survivor(String site, String gtidExecuted, String gtidReceived) {}

  /**
   * The outcome. {@code donor} is null when no catch-up is needed or possible; otherwise the
   * candidate lacks {@code missing} ({@code transactions} of them) that the donor holds.
   * {@code warnings} name the survivors that could not be used and why, for Warning Events.
   */
  record Choice(String donor, String missing, long transactions, List<String> warnings) {
    Choice {
      warnings = List.copyOf(warnings);
    }

    boolean needed() {
      return donor != null;
    }
  }

  /**
   * @param candidate the candidate's site name, for the warnings
   * @param candidateExecuted what the candidate executed after its relay-log drain
   * @param candidateReceived what its IO thread had received (null when it was no replica); a donor
   *     must include it too, since catching up replaces the candidate's relay log
   */
  static Choice choose(String candidate, String candidateExecuted, String candidateReceived,
      List<Survivor> survivors) {
    GtidSet executed;
    GtidSet held;
    try {
      executed = GtidUnion.of(candidateExecuted);
      held = GtidUnion.of(candidateExecuted, candidateReceived);
    } catch (IllegalArgumentException e) {
      return new Choice(null, null, 0, List.of("cannot read " + candidate + "'s GTID set, no catch-up: "
          + e.getMessage()));
    }
    List<String> warnings = new ArrayList<>();
    Survivor best = null;
    GtidSet bestMissing = null;
    for (Survivor s : survivors) {
      GtidSet theirs;
      GtidSet missing;
      GtidSet lackingExecuted;
      GtidSet lackingReceived;
      try {
        theirs = GtidUnion.of(s.gtidExecuted(), s.gtidReceived());
        missing = GtidHistory.missing(executed, theirs);
        lackingExecuted = GtidHistory.missing(theirs, executed);
        lackingReceived = GtidHistory.missing(theirs, held);
      } catch (IllegalArgumentException e) {
        warnings.add("cannot compare " + s.site() + "'s GTID set with " + candidate + "'s: " + e.getMessage());
        continue;
      }
      if (missing.isEmpty() || GtidHistory.includes(held, theirs)) {
        // Nothing more, or nothing its own relay log does not hold already: promotion applies that.
        continue;
      }
      if (!lackingExecuted.isEmpty()) {
        warnings.add(s.site() + " holds " + missing + " that " + candidate + " lacks, but lacks " + lackingExecuted
            + " that " + candidate + " holds: divergent, not used to catch " + candidate + " up");
        continue;
      }
      if (!lackingReceived.isEmpty()) {
        // Catching up replaces the relay log: what only the candidate received would be dropped.
        warnings.add(s.site() + " holds " + missing + " that " + candidate + " has not applied, but lacks "
            + lackingReceived + " that " + candidate + " received: not used to catch " + candidate + " up");
        continue;
      }
      if (bestMissing == null || missing.count() > bestMissing.count()) {
        best = s;
        bestMissing = missing;
      }
    }
    if (best == null) {
      return new Choice(null, null, 0, warnings);
    }
    return new Choice(best.site(), bestMissing.toString(), bestMissing.count(), warnings);
  }
}
