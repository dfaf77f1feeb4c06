package io.shipstream.failover.watcher;

import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.workflows.PlannedFailoverWorkflow;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Stands in for the planned-failover workflow under the same interface (so under the same
 * workflow type, "PlannedFailover"): it records what it was started with and ends at once, or,
 * for an annotation starting with {@value #HOLD}, only when it is cancelled, or, for one starting
 * with {@value #PAST_PROMOTING}, after {@link #PAST_PROMOTING_RUNS_FOR} whatever it is told, as a
 * run past the point of no return does. The watcher's tests are about which requests become
 * workflows and which runs are asked to stop, not about what a failover does.
 */
public class RecordingPlannedFailover implements PlannedFailoverWorkflow {
  static final String HOLD = "hold";
  static final String PAST_PROMOTING = "late";
  static final Duration PAST_PROMOTING_RUNS_FOR = Duration.ofSeconds(1);
  /** Every run, in start order; the tests of one JVM run one after another, and each clears it. */
  static final List<Request> RUNS = new CopyOnWriteArrayList<>();
  /** Every cancel signal's reason, in the order they arrived; cleared with {@link #RUNS}. */
  static final List<String> CANCELS = new CopyOnWriteArrayList<>();

  private boolean cancelled;

  @Override
  public PlannedFailoverStatus run(Request request) {
    RUNS.add(request);
    if (request.annotation().startsWith(HOLD)) {
      Workflow.await(() -> cancelled);
    } else if (request.annotation().startsWith(PAST_PROMOTING)) {
      Workflow.sleep(PAST_PROMOTING_RUNS_FOR);
    }
    return null;
  }

  @Override
  public void cancel(String reason) {
    CANCELS.add(reason);
    cancelled = true;
  }

  @Override
  public void sourceDied(String why) {
    // Not asked of a recorded request: these tests start and cancel runs only.
  }

  @Override
  public PlannedFailoverStatus status() {
    return null;
  }

  static long runsFor(String group) {
    return RUNS.stream().filter(r -> r.group().name().equals(group)).count();
  }

  static void clear() {
    RUNS.clear();
    CANCELS.clear();
  }
}
