package io.shipstream.failover.workflows.common;

import io.shipstream.failover.model.Phase;

/**
 * The cancel of a failover, one strategy for both runbooks: the {@code cancel} signal and a cancel
 * request through Temporal (UI, CLI) mean the same, and both only set this. The runbook runs in a
 * detached scope ({@link FailoverRun#runDetached}), so neither can interrupt a step half-way; the
 * steps look here between steps, and a wait that may last ({@link FailoverRun#cancellable}) stops
 * at once. It lives apart from the run because the signal may arrive before the runbook has built
 * it. Written and read only on the workflow thread.
 */
public final class CancelRequest {
  boolean requested;
  String reason;

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

  public boolean requested() {
    return requested;
  }

  public String reason() {
    return reason;
  }
}
