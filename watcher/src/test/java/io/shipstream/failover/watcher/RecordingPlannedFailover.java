package io.shipstream.failover.watcher;

import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.workflows.PlannedFailoverWorkflow;
import io.temporal.workflow.Workflow;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Stands in for the planned-failover workflow under the same interface (so under the same
 * workflow type, "PlannedFailover"): it records what it was started with and ends at once, or,
 * for an annotation starting with {@value #HOLD}, only when it is cancelled. The watcher's tests
 * are about which requests become workflows, not about what a failover does.
 */
public class RecordingPlannedFailover implements PlannedFailoverWorkflow {
  static final String HOLD = "hold";
  /** Every run, in start order; the tests of one JVM run one after another, and each clears it. */
  static final List<Request> RUNS = new CopyOnWriteArrayList<>();

  private boolean cancelled;

  @Override
  public PlannedFailoverStatus run(Request request) {
    RUNS.add(request);
    if (request.annotation().startsWith(HOLD)) {
      Workflow.await(() -> cancelled);
    }
    return null;
  }

  @Override
  public void cancel(String reason) {
    cancelled = true;
  }

  @Override
  public PlannedFailoverStatus status() {
    return null;
  }

  static long runsFor(String group) {
    return RUNS.stream().filter(r -> r.group().name().equals(group)).count();
  }
}
