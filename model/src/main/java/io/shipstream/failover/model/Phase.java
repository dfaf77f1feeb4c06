package io.shipstream.failover.model;

/** The planned-failover lifecycle, in the order a successful failover walks it. */
public enum Phase {
  Pending,
  Validating,
  Deferred,
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
