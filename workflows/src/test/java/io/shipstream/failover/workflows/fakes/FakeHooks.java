package io.shipstream.failover.workflows.fakes;

import io.shipstream.failover.workflows.activities.HookActivities;
import io.shipstream.failover.workflows.contract.FailureTypes;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * The webhooks as the workflow sees them through their activity: each phase ({@code pre},
 * {@code post}) answers the status set for it (200 by default), after {@link #delay}, failing a
 * non-2xx as the real activity does. Every call is recorded, with what {@link #observe} said at
 * the time (the servers' state when the hook was asked, say).
 */
public final class FakeHooks implements HookActivities {
  public final Map<String, Integer> statusByPhase = new ConcurrentHashMap<>();
  public volatile Duration delay = Duration.ZERO;
  public volatile Supplier<String> observe = () -> "";
  public final List<Call> calls = new CopyOnWriteArrayList<>();
  public final List<String> observed = new CopyOnWriteArrayList<>();

  @Override
  public Answer post(Call call) {
    calls.add(call);
    observed.add(call.body().phase() + ": " + observe.get());
    if (!delay.isZero()) {
      try {
        Thread.sleep(delay.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    int status = statusByPhase.getOrDefault(call.body().phase(), 200);
    if (status / 100 != 2) {
      throw ApplicationFailure.newFailure("answered " + status + ": not now", FailureTypes.HOOK_REFUSED);
    }
    return new Answer(status, "ok");
  }

  public List<Call> callsIn(String phase) {
    return calls.stream().filter(c -> c.body().phase().equals(phase)).toList();
  }
}
