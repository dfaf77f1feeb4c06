package io.shipstream.failover.workflows.common;

import io.shipstream.failover.workflows.activities.DragonflyActivities;
import io.shipstream.failover.workflows.activities.DryRunActivities;
import io.shipstream.failover.workflows.activities.HookActivities;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.shipstream.failover.workflows.activities.SidecarActivities;
import io.shipstream.failover.workflows.contract.FailureTypes;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * Timeouts and retries of every activity, in one place. The numbers are chosen for failovers that
 * take seconds: a short start-to-close so a hung call is noticed quickly, a heartbeat timeout on
 * every wait so a dead worker's wait is resumed by another within seconds. Shared by the planned
 * and the emergency failover.
 */
public final class ActivityStubs {
  public static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(3);

  private ActivityStubs() {}

  /**
   * The same stub, with {@code summary} as the UI summary of every call made through it, so the
   * history reads as the runbook ("fence iad", "wait until pdx holds 0-1-237"). A stub is only a
   * proxy: making one per call adds no command, and the summary is metadata on the call's command,
   * not a change of it.
   */
  private static <T> T stub(Class<T> type, ActivityOptions options, String summary) {
    return Workflow.newActivityStub(type, summary == null ? options
        : ActivityOptions.newBuilder(options).setSummary(summary).build());
  }

  /**
   * How long a step sent to a worker's own queue ({@code MysqlActivities#connectionsQueue}) may
   * wait there unstarted: that worker polls it all the time, so a step still waiting means the
   * worker is gone (or starved), and the step is sent to the shared queue instead ({@link
   * OnConnections}).
   */
  public static final Duration OWN_QUEUE_START = Duration.ofSeconds(3);

  /**
   * {@code options} sent to {@code queue}, a worker's own queue, for one attempt, with {@link
   * #OWN_QUEUE_START} to be started there; null: the workflow's task queue, as every other call.
   * One attempt: a retry would wait on the same queue, whose worker may be gone (Temporal's test
   * server does not time a retry out before it starts), so the retries are {@link OnConnections}'s
   * call on the shared queue.
   */
  private static ActivityOptions onQueue(ActivityOptions options, String queue) {
    if (queue == null) {
      return options;
    }
    return ActivityOptions.newBuilder(options).setTaskQueue(queue).setScheduleToStartTimeout(OWN_QUEUE_START)
        .setRetryOptions(RetryOptions.newBuilder(options.getRetryOptions()).setMaximumAttempts(1).build())
        .build();
  }

  /** Kubernetes calls retry until their schedule-to-close; only a missing group is final. */
  private static RetryOptions kubernetesRetries() {
    return RetryOptions.newBuilder()
        .setInitialInterval(Duration.ofMillis(200))
        .setMaximumInterval(Duration.ofSeconds(5))
        .setDoNotRetry(FailureTypes.GROUP_NOT_FOUND)
        .build();
  }

  /** A few quick attempts, then the workflow decides what a failure means. */
  private static RetryOptions quickMysqlRetries() {
    return RetryOptions.newBuilder()
        .setInitialInterval(Duration.ofMillis(200))
        .setMaximumInterval(Duration.ofSeconds(2))
        .setMaximumAttempts(5)
        .setDoNotRetry(FailureTypes.PROMOTE_FAILED, FailureTypes.LAG_TIMEOUT)
        .build();
  }

  public static KubernetesActivities kubernetes() {
    return Workflow.newActivityStub(KubernetesActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(10))
        .setScheduleToCloseTimeout(Duration.ofMinutes(2))
        .setRetryOptions(kubernetesRetries())
        .build());
  }

  /** Short MySQL calls: a few quick attempts, then the workflow decides what a failure means. */
  public static MysqlActivities mysql() {
    return mysql(null);
  }

  /** As {@link #mysql()}, each call shown with {@code summary} in the UI. */
  public static MysqlActivities mysql(String summary) {
    return mysql(summary, null);
  }

  /** As {@link #mysql(String)}, sent to a worker's own {@code queue} (null: the shared one). */
  public static MysqlActivities mysql(String summary, String queue) {
    return stub(MysqlActivities.class, onQueue(ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(15))
        .setRetryOptions(quickMysqlRetries())
        .build(), queue), summary);
  }

  /**
   * A dry run's reads and its own verdict, as local activities: each is a read, or a write of the
   * same verdict, so running one again after a worker died leaves everything as one run would.
   */
  public static DryRunActivities dryRun() {
    return Workflow.newLocalActivityStub(DryRunActivities.class, LocalActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(15))
        .setRetryOptions(quickMysqlRetries())
        .build());
  }

  /**
   * The Kubernetes calls as local activities: the same timeouts and retries as {@link
   * #kubernetes()}, run by the worker inside the workflow task that asks for them, so several cost
   * one server round trip instead of one each. A worker that dies during such a call runs it again
   * from the last completed workflow task, so only idempotent calls may go through this stub
   * (status writes, Events, labels, reads, the failover record with the same arguments).
   */
  public static KubernetesActivities kubernetesLocal() {
    return Workflow.newLocalActivityStub(KubernetesActivities.class, LocalActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(10))
        .setScheduleToCloseTimeout(Duration.ofMinutes(2))
        .setRetryOptions(kubernetesRetries())
        .build());
  }

  /**
   * A Kubernetes call made inside the write window's workflow task beside the steps that task waits
   * for anyway (the source's unlabel beside the lag gate's first look and the failover record), as a
   * local activity whose attempts all end within {@link #WINDOW_LOCAL_AT_MOST}: an API server that
   * refuses or hangs holds the promotion's command back that long at most, and the caller then
   * makes the same call as an ordinary activity, which the promotion does not wait for. Only
   * idempotent calls (a label).
   */
  public static KubernetesActivities kubernetesLocalInTheWindow() {
    return Workflow.newLocalActivityStub(KubernetesActivities.class, LocalActivityOptions.newBuilder()
        .setStartToCloseTimeout(WINDOW_LOCAL_AT_MOST)
        .setScheduleToCloseTimeout(WINDOW_LOCAL_AT_MOST)
        .setRetryOptions(kubernetesRetries())
        .build());
  }

  /** How long {@link #kubernetesLocalInTheWindow} may hold the window's workflow task. */
  public static final Duration WINDOW_LOCAL_AT_MOST = Duration.ofSeconds(1);

  /**
   * Quick MySQL calls as local activities, with the retries of {@link #mysql()}: reads, and calls
   * that check before they change anything, so that running one again after a worker died
   * mid-task leaves the server as one run would. Fencing, promoting, unfencing and every wait stay
   * ordinary activities.
   */
  public static MysqlActivities mysqlLocal() {
    return Workflow.newLocalActivityStub(MysqlActivities.class, LocalActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(15))
        .setRetryOptions(quickMysqlRetries())
        .build());
  }

  /**
   * The lag gate's first look ({@code SourceDrain}): the target's wait for the fenced set as a
   * local activity, run by the worker inside the workflow task that took the fence's result, so a
   * target that is current passes the gate without a server round trip. A read that waits {@code
   * budget} at most (its deadline, which the activity enforces itself); one attempt, no heartbeat:
   * whatever else it ends in (a lag timeout, a lost connection, its own timeout) is the ordinary
   * wait's to decide, with the whole maxLagWait and its retries. Running it again after a worker
   * died changes nothing on the server. {@code summary} shows it in the UI.
   */
  public static MysqlActivities mysqlLagGateLocal(Duration budget, String summary) {
    return Workflow.newLocalActivityStub(MysqlActivities.class, LocalActivityOptions.newBuilder()
        .setSummary(summary)
        .setStartToCloseTimeout(budget.plus(LAG_GATE_LOCAL_SLACK))
        .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
        .build());
  }

  /** How far past its budget the lag gate's first look may run (connecting, the last exchange). */
  static final Duration LAG_GATE_LOCAL_SLACK = Duration.ofSeconds(2);

  /**
   * The promotion, and the fence that undoes a failed one: steps a server briefly refusing
   * connections (a restart, a full connection table) must not fail outright. Backoff from 0.5 s
   * to 4 s over 10 attempts waits about 28 s in all, so a target that refuses connections for
   * that long is still promoted; PromoteFailed stays final. There is no schedule-to-close: the
   * workflow then sees a failure only after the last attempt has returned its own error or timed
   * out, never while an attempt it gave up on may still be running.
   */
  public static MysqlActivities mysqlPersistent() {
    return mysqlPersistent(null);
  }

  /** As {@link #mysqlPersistent()}, each call shown with {@code summary} in the UI. */
  public static MysqlActivities mysqlPersistent(String summary) {
    return mysqlPersistent(summary, null);
  }

  /** As {@link #mysqlPersistent(String)}, sent to a worker's own {@code queue} (null: the shared one). */
  public static MysqlActivities mysqlPersistent(String summary, String queue) {
    return stub(MysqlActivities.class, onQueue(ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(15))
        .setRetryOptions(RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofMillis(500))
            .setBackoffCoefficient(2.0)
            .setMaximumInterval(Duration.ofSeconds(4))
            .setMaximumAttempts(10)
            .setDoNotRetry(FailureTypes.PROMOTE_FAILED, FailureTypes.LAG_TIMEOUT)
            .build())
        .build(), queue), summary);
  }

  /** Waits bounded by a deadline the activity enforces itself; heartbeats detect a dead worker. */
  public static MysqlActivities mysqlWait(Duration budget) {
    return mysqlWait(budget, null);
  }

  /** As {@link #mysqlWait(Duration)}, each call shown with {@code summary} in the UI. */
  public static MysqlActivities mysqlWait(Duration budget, String summary) {
    return mysqlWait(budget, summary, null);
  }

  /**
   * A wait before the fence, where nothing is held yet and the runbook goes on whatever it ends
   * in: the whole call, retries included, ends {@link #AHEAD_SLACK} after {@code budget} at the
   * latest, so a target that stopped answering costs no more than that before the fence.
   */
  public static MysqlActivities mysqlWaitAhead(Duration budget, String summary, String queue) {
    return stub(MysqlActivities.class, onQueue(ActivityOptions.newBuilder()
        .setStartToCloseTimeout(budget.plus(AHEAD_SLACK))
        .setScheduleToCloseTimeout(budget.plus(AHEAD_SLACK))
        .setHeartbeatTimeout(HEARTBEAT_TIMEOUT)
        .setRetryOptions(RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofMillis(200))
            .setMaximumInterval(Duration.ofSeconds(1))
            .setDoNotRetry(FailureTypes.LAG_TIMEOUT)
            .build())
        .build(), queue), summary);
  }

  /** How far past its budget a wait before the fence may run (a slow last exchange, a retry). */
  static final Duration AHEAD_SLACK = Duration.ofSeconds(2);

  /** As {@link #mysqlWait(Duration, String)}, sent to a worker's own {@code queue} (null: the shared one). */
  public static MysqlActivities mysqlWait(Duration budget, String summary, String queue) {
    return stub(MysqlActivities.class, onQueue(ActivityOptions.newBuilder()
        .setStartToCloseTimeout(budget.plusSeconds(30))
        .setScheduleToCloseTimeout(budget.plusSeconds(60))
        .setHeartbeatTimeout(HEARTBEAT_TIMEOUT)
        .setRetryOptions(RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofMillis(200))
            .setMaximumInterval(Duration.ofSeconds(2))
            .setDoNotRetry(FailureTypes.PROMOTE_FAILED, FailureTypes.LAG_TIMEOUT)
            .build())
        .build(), queue), summary);
  }

  /**
   * A call to a server that is probably dead (the failed primary of an emergency failover): two
   * quick attempts and then the workflow moves on, so a host that swallows packets costs seconds,
   * not the minutes of the ordinary retry budget.
   */
  public static MysqlActivities mysqlBestEffort() {
    return mysqlBestEffort(null);
  }

  /** As {@link #mysqlBestEffort()}, each call shown with {@code summary} in the UI. */
  public static MysqlActivities mysqlBestEffort(String summary) {
    // The second attempt comes 100 ms after the first: against a dead server (connection refused)
    // a longer wait only held the emergency runbook up (0.5 s of its 1.5 s, measured), and a frozen
    // one costs its timeout whatever the interval.
    return stub(MysqlActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(8))
        .setScheduleToCloseTimeout(Duration.ofSeconds(16))
        .setRetryOptions(RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofMillis(100))
            .setMaximumInterval(Duration.ofSeconds(1))
            .setMaximumAttempts(2)
            .build())
        .build(), summary);
  }

  /** Short session-store calls; a failure is the workflow's to weigh against onSyncTimeout. */
  public static DragonflyActivities dragonfly() {
    return Workflow.newActivityStub(DragonflyActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(10))
        .setScheduleToCloseTimeout(Duration.ofSeconds(30))
        .setRetryOptions(RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofMillis(200))
            .setMaximumInterval(Duration.ofSeconds(1))
            .setMaximumAttempts(3)
            .setDoNotRetry(FailureTypes.DRAGONFLY_PROMOTION_FAILED, FailureTypes.DRAGONFLY_SYNC_TIMEOUT,
                FailureTypes.STORE_NOT_MASTER)
            .build())
        .build());
  }

  /**
   * The store's sync wait and its promotion, both bounded by maxSyncWait and heartbeating, so a
   * dead worker's call is taken over within seconds; start-to-close leaves room beyond the budget.
   */
  public static DragonflyActivities dragonflyWait(Duration budget) {
    return dragonflyWait(budget, null);
  }

  /** As {@link #dragonflyWait(Duration)}, each call shown with {@code summary} in the UI. */
  public static DragonflyActivities dragonflyWait(Duration budget, String summary) {
    return stub(DragonflyActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(budget.plusSeconds(15))
        .setScheduleToCloseTimeout(budget.plusSeconds(40))
        .setHeartbeatTimeout(HEARTBEAT_TIMEOUT)
        .setRetryOptions(RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofMillis(200))
            .setMaximumInterval(Duration.ofSeconds(1))
            .setMaximumAttempts(2)
            .setDoNotRetry(FailureTypes.DRAGONFLY_PROMOTION_FAILED, FailureTypes.DRAGONFLY_SYNC_TIMEOUT,
                FailureTypes.STORE_NOT_MASTER)
            .build())
        .build(), summary);
  }

  /**
   * Polls a sidecar until its own deadline, heartbeating, so a dead worker's poll is taken over
   * within seconds and continues towards the same absolute deadline; start-to-close leaves room
   * beyond the budget. A failure only means the workflow waits out the lease.
   */
  public static SidecarActivities sidecarWait(Duration budget) {
    return sidecarWait(budget, null);
  }

  /** As {@link #sidecarWait(Duration)}, each call shown with {@code summary} in the UI. */
  public static SidecarActivities sidecarWait(Duration budget, String summary) {
    return stub(SidecarActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(budget.plusSeconds(10))
        .setScheduleToCloseTimeout(budget.plusSeconds(20))
        .setHeartbeatTimeout(HEARTBEAT_TIMEOUT)
        .setRetryOptions(RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofMillis(200))
            .setMaximumInterval(Duration.ofSeconds(1))
            .setMaximumAttempts(3)
            .build())
        .build(), summary);
  }

  /**
   * A webhook of spec.hooks: every attempt and all of them together end within {@code budget} (the
   * hook's timeout), so a hook never holds a failover longer than its user allowed; {@code
   * attempts} 1 means no retry. Backoff from 200 ms to 1 s between attempts.
   */
  public static HookActivities hook(Duration budget, int attempts, String summary) {
    return stub(HookActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(budget)
        .setScheduleToCloseTimeout(budget)
        .setRetryOptions(RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofMillis(200))
            .setBackoffCoefficient(2.0)
            .setMaximumInterval(Duration.ofSeconds(1))
            .setMaximumAttempts(attempts)
            .build())
        .build(), summary);
  }
}
