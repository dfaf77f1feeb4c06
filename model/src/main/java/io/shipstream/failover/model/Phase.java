package io.shipstream.failover.model;

/**
 * The failover lifecycle, planned and emergency, in the order a successful failover walks it. A
 * planned failover never enters Fencing (its fence is Draining); an emergency failover enters only
 * Pending, Fencing, Promoting, Resuming and the two ends.
 */
public enum Phase {
  Pending,
  /** A planned request with a time ({@code at=}) waits for it, having touched nothing; validated then. */
  Scheduled,
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

  /**
   * A planned failover that only waits (Scheduled: for its time; Deferred: for the cooldown to end) has changed nothing yet:
   * an emergency failover may take the group's workflow id from it, cancelling it, since a wait must
   * never keep a dead primary from being replaced.
   */
  public boolean isWaiting() {
    return this == Scheduled || this == Deferred;
  }

  /** The phase the status spells {@code name}; empty for null or a name that is no phase. */
  public static java.util.Optional<Phase> named(String name) {
    for (Phase p : values()) {
      if (p.name().equals(name)) {
        return java.util.Optional.of(p);
      }
    }
    return java.util.Optional.empty();
  }

  /** Whether {@code name}, a phase as the status spells it, is one a run ends in ({@link #isTerminal}). */
  public static boolean isTerminal(String name) {
    return named(name).map(Phase::isTerminal).orElse(false);
  }

  /** Whether {@code name}, a phase as the status spells it, is one that only waits ({@link #isWaiting}). */
  public static boolean isWaiting(String name) {
    return named(name).map(Phase::isWaiting).orElse(false);
  }

  /** Past this phase a cancel can no longer roll back: the target may already be writable. */
  public boolean isPastPointOfNoReturn() {
    return compareTo(Promoting) >= 0;
  }
}
