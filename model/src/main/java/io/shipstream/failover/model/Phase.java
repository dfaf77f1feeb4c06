package io.shipstream.failover.model;

/**
 * The failover lifecycle, planned and emergency, in the order a successful failover walks it. A
 * planned failover never enters Fencing (its fence is Draining); an emergency failover enters only
 * Pending, Fencing, Promoting, Resuming and the two ends.
 */
public enum Phase {
  Pending,
  Validating,
  Deferred,
  Fencing,
  Draining,
  WaitingForLag,
  WaitingForDragonflySync,
  PromotingDragonfly,
  Promoting,
  Resuming,
  Succeeded,
  Failed;

  public boolean isTerminal() {
    return this == Succeeded || this == Failed;
  }

  /** Past this phase a cancel can no longer roll back: the target may already be writable. */
  public boolean isPastPointOfNoReturn() {
    return compareTo(Promoting) >= 0;
  }
}
