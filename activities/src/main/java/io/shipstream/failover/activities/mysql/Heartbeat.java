package io.shipstream.failover.activities.mysql;

import io.temporal.activity.Activity;

/**
 * How a long-running activity says it is alive, with details Temporal keeps for a retry and shows
 * in the UI. Inside a worker this is Temporal's heartbeat, which also throws when the workflow has
 * cancelled the activity; {@link #NONE} lets the code run outside Temporal.
 */
@FunctionalInterface
public interface Heartbeat {
  Heartbeat NONE = details -> {};

  void beat(Object details);

  /** Temporal's heartbeat for the activity running on the calling thread. */
  static Heartbeat temporal() {
    return details -> Activity.getExecutionContext().heartbeat(details);
  }
}
