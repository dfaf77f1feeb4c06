package io.shipstream.failover.workflows.planned;

/**
 * The cancel signal's effect on a planned failover. It lives apart from {@link PlannedRun}
 * because the signal may arrive before the runbook has built its run, and the steps that wait
 * (the cooldown, the lag wait) must see it the moment it is set. Written and read only on the
 * workflow thread.
 */
final class CancelRequest {
  boolean requested;
  String reason;

  void request(String why) {
    requested = true;
    reason = why == null || why.isBlank() ? "cancel signal" : why;
  }
}
