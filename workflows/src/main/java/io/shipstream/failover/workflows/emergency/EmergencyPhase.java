package io.shipstream.failover.workflows.emergency;

/** The emergency-failover lifecycle, in the order a successful failover walks it. */
enum EmergencyPhase {
  Pending,
  Fencing,
  Promoting,
  Resuming,
  Succeeded,
  Failed;

  /** From Promoting on, the candidate may be writable: a cancel could only leave the group without a primary. */
  boolean isPastPointOfNoReturn() {
    return compareTo(Promoting) >= 0;
  }
}
