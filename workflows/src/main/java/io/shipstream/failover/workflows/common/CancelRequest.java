package io.shipstream.failover.workflows.common;

import io.shipstream.failover.model.Phase;

/**
 * The cancel of a failover, one strategy for both runbooks: the {@code cancel} signal and a cancel
 * request through Temporal (UI, CLI) mean the same, and both only set this. The runbook runs in a
 * detached scope ({@link FailoverRun#runDetached}), so neither can interrupt a step half-way; the
 * steps look here between steps, and a wait that may last ({@link FailoverRun#cancellable}) stops
 * at once. It lives apart from the run because the signal may arrive before the runbook has built
 * it. Written and read only on the workflow thread.
 *
 * <p>The watcher's word that a planned run's source is dead ({@link #sourceDied}) stops the run the
 * same way, at the same points and with the same limits, but ends it {@code SourceCrashed}: its
 * source is left fenced and the emergency failover takes over.
 */
public final class CancelRequest {
  boolean requested;
  String reason;
  // Set by the sourceDied signal: the watcher's replicas confirmed the source dead.
  boolean sourceDead;
  String sourceDeath;

  /**
   * Takes the cancel unless it comes too late: from Promoting on the target may be writable, and
   * while the session store changes masters moving it back would be a second failover of it (the
   * phase is short and MySQL's promotion follows at once). Returns why it was ignored, else null.
   */
  public String request(Phase phase, String why) {
    if (phase.isPastPointOfNoReturn()) {
      return "the target may already be writable";
    }
    if (phase == Phase.PromotingDragonfly) {
      return "the session store is changing masters";
    }
    requested = true;
    reason = why == null || why.isBlank() ? "cancel signal" : why;
    return null;
  }

  /**
   * Takes the watcher's word that the source is dead, with the same limits as a cancel (see
   * {@link #request}). Returns why it was ignored, else null.
   */
  public String sourceDied(Phase phase, String why) {
    if (phase.isPastPointOfNoReturn()) {
      return "the target may already be writable";
    }
    if (phase == Phase.PromotingDragonfly) {
      return "the session store is changing masters";
    }
    sourceDead = true;
    sourceDeath = why == null || why.isBlank() ? "its replicas lost it" : why;
    return null;
  }

  public boolean requested() {
    return requested;
  }

  /** Whether the watcher said the source is dead: a rollback then leaves it fenced. */
  public boolean sourceDead() {
    return sourceDead;
  }

  /** Whether the run must stop at its next check: cancelled, or its source dead. */
  boolean stops() {
    return requested || sourceDead;
  }

  /** Why the run stops, for a {@link FailoverAbort} raised {@code where} ("in WaitingForLag"). */
  FailoverAbort abort(String where) {
    if (sourceDead) {
      return new FailoverAbort(io.shipstream.failover.model.Reason.SourceCrashed, "source died " + where
          + ", as the watcher's confirmation says: " + sourceDeath);
    }
    return new FailoverAbort(io.shipstream.failover.model.Reason.Cancelled, "cancelled " + where + ": " + reason);
  }

  public String reason() {
    return reason;
  }
}
