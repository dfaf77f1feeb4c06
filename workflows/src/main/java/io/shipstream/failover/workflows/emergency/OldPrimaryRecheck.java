package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.model.Reason;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.common.FailoverAbort;
import io.shipstream.failover.workflows.common.Failures;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.Optional;

/**
 * The emergency runbook's last look at the failed primary before it fences it: the watcher decided
 * on polls that may be older than the primary's return (a {@code kill -9} and a restart at once
 * answered within half a second), and fencing a primary that answers would fail a live group over.
 * The failed primary is inspected beside the candidate ({@link MysqlActivities#inspect}), and
 * {@link #decide} applies this table (first matching row):
 *
 * <pre>
 * | #  | the failed primary's inspection, the status as the run read it     | the failover                  |
 * |----|---------------------------------------------------------------------|-------------------------------|
 * | f1 | it answered, writable or read-only (a server configured to start    | ends Failed, PrimaryAnswered: |
 * |    |   read-only comes back so), and the status names it active          |   nothing fenced or promoted, |
 * |    |                                                                     |   no cooldown; counted as     |
 * |    |                                                                     |   rejected                    |
 * | f2 | it answered, and the status names no site active (never adopted)    | goes on to the fence          |
 * | f3 | it did not answer, or not within {@link #ANSWER_WAIT}               | goes on to the fence          |
 * </pre>
 *
 * <p>Row f3's bound: a server that takes longer to answer would have failed the watcher's poll as
 * well (its timeout is {@code min(pollInterval, 2 s)}), and a black-holed or frozen one would
 * otherwise hold the failover for the inspection's whole connect timeout. Workflow code: the
 * inspection is an activity, the bound a durable timer.
 */
final class OldPrimaryRecheck {
  /** The longest the fence waits for the failed primary's answer: the watcher's longest poll timeout. */
  static final Duration ANSWER_WAIT = Duration.ofSeconds(2);

  private final EmergencyPlan plan;
  private final Promise<ServerState> answer;

  private OldPrimaryRecheck(EmergencyPlan plan, Promise<ServerState> answer) {
    this.plan = plan;
    this.answer = answer;
  }

  /** Starts inspecting the failed primary, so that it overlaps the candidate's check. */
  static OldPrimaryRecheck start(EmergencyPlan plan, MysqlActivities mysql) {
    return new OldPrimaryRecheck(plan, Async.function(mysql::inspect, plan.failedServer()));
  }

  /**
   * Waits up to {@link #ANSWER_WAIT} for the inspection and throws a {@link FailoverAbort} with
   * {@link Reason#PrimaryAnswered} in row f1; returns otherwise.
   */
  void refuseIfAnswering(String activeSite, String trigger) {
    if (!answer.isCompleted()) {
      Workflow.await(ANSWER_WAIT, answer::isCompleted);
    }
    ServerState state = null;
    if (answer.isCompleted()) {
      try {
        state = answer.get();
      } catch (ActivityFailure e) {
        state = ServerState.unreachable(plan.failed().name(), Failures.rootMessage(e));
      }
    }
    decide(state, plan.failed().name(), activeSite, trigger).ifPresent(why -> {
      throw new FailoverAbort(Reason.PrimaryAnswered, why);
    });
  }

  /**
   * Rows f1-f3: why the failover must not go on, or empty. {@code state} is null when the
   * inspection did not end within {@link #ANSWER_WAIT}; {@code trigger} is why the watcher started it.
   */
  static Optional<String> decide(ServerState state, String failedSite, String activeSite, String trigger) {
    if (state == null || !state.reachable() || !failedSite.equals(activeSite)) {
      return Optional.empty();
    }
    return Optional.of(failedSite + " answered (" + (state.readOnly() ? "read-only" : "writable")
        + (state.gtidExecuted() == null ? "" : ", executed " + state.gtidExecuted()) + ") right before its fence while "
        + "the status names it active: it is not dead, so nothing was fenced or promoted and no cooldown starts"
        + (trigger == null ? "" : "; the watcher had decided: " + trigger));
  }
}
