package io.shipstream.failover.dev;

import io.temporal.activity.ActivityExecutionContext;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityInput;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityOutput;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Each activity attempt one worker began: when (System.nanoTime), and which ({@link #key}), so
 * that a run can tell which worker did a failover's work, that a worker cut off did none, and
 * which attempts no worker ever began (handed to a poll nobody would answer).
 */
final class ActivityAttempts extends ActivityObserver {
  private record Attempt(long nanos, String key) {}

  private final ConcurrentLinkedQueue<Attempt> began = new ConcurrentLinkedQueue<>();

  @Override
  protected ActivityOutput observe(ActivityExecutionContext context, ActivityInput input,
      Function<ActivityInput, ActivityOutput> proceed) {
    began.add(new Attempt(System.nanoTime(), key(context.getInfo().getActivityId(), context.getInfo().getAttempt())));
    return proceed.apply(input);
  }

  /** Names one attempt of one activity of a workflow run. */
  static String key(String activityId, int attempt) {
    return activityId + "#" + attempt;
  }

  /** The attempts begun at or after {@code nanos}. */
  long since(long nanos) {
    return began.stream().filter(a -> a.nanos() >= nanos).count();
  }

  /** The {@link #key}s of the attempts begun. */
  Set<String> keys() {
    return began.stream().map(Attempt::key).collect(Collectors.toSet());
  }
}
