package io.shipstream.failover.workflows.planned;

import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * Timeouts and retries of every activity, in one place. The numbers are chosen for failovers that
 * take seconds: a short start-to-close so a hung call is noticed quickly, a heartbeat timeout on
 * every wait so a dead worker's wait is resumed by another within seconds.
 */
final class ActivityStubs {
  static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(3);

  private ActivityStubs() {}

  static KubernetesActivities kubernetes() {
    return Workflow.newActivityStub(KubernetesActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(10))
        .setScheduleToCloseTimeout(Duration.ofMinutes(2))
        .setRetryOptions(RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofMillis(200))
            .setMaximumInterval(Duration.ofSeconds(5))
            .setDoNotRetry("GroupNotFound")
            .build())
        .build());
  }

  /** Short MySQL calls: a few quick attempts, then the workflow decides what a failure means. */
  static MysqlActivities mysql() {
    return Workflow.newActivityStub(MysqlActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(15))
        .setRetryOptions(RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofMillis(200))
            .setMaximumInterval(Duration.ofSeconds(2))
            .setMaximumAttempts(5)
            .setDoNotRetry("PromoteFailed", "LagTimeout")
            .build())
        .build());
  }

  /** Waits bounded by a deadline the activity enforces itself; heartbeats detect a dead worker. */
  static MysqlActivities mysqlWait(Duration budget) {
    return Workflow.newActivityStub(MysqlActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(budget.plusSeconds(30))
        .setScheduleToCloseTimeout(budget.plusSeconds(60))
        .setHeartbeatTimeout(HEARTBEAT_TIMEOUT)
        .setRetryOptions(RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofMillis(200))
            .setMaximumInterval(Duration.ofSeconds(2))
            .setDoNotRetry("PromoteFailed", "LagTimeout")
            .build())
        .build());
  }
}
