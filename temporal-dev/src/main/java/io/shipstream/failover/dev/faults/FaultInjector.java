package io.shipstream.failover.dev.faults;

import io.shipstream.failover.dev.ActivityObserver;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityInput;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityOutput;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * Sits in the worker (a Temporal worker interceptor) and runs a fault at one activity boundary of
 * the planned workflow: as an attempt of that activity starts, or right after it did its work but
 * before Temporal hears of the result. A worker kill runs on its own thread while the activity
 * thread is held until the kill interrupts it, so the attempt's outcome never reaches the server,
 * exactly as when a pod dies at that instant.
 */
public final class FaultInjector extends ActivityObserver {
  /** Where in the attempt the fault fires. */
  public enum When { BEFORE, AFTER }

  /** One armed fault; {@code holdActivity} keeps the attempt from finishing (a dying worker). */
  public record Trigger(Boundary boundary, When when, boolean holdActivity, Runnable action) {}

  private final AtomicReference<Trigger> armed = new AtomicReference<>();
  private final AtomicReference<String> fired = new AtomicReference<>();

  /** Arms one trigger, replacing any that has not fired. */
  public void arm(Trigger trigger) {
    fired.set(null);
    armed.set(trigger);
  }

  public void disarm() {
    armed.set(null);
  }

  /** A description of the attempt the trigger fired on, or null while it has not fired. */
  public String fired() {
    return fired.get();
  }

  @Override
  protected ActivityOutput observe(ActivityExecutionContext context, ActivityInput input,
      Function<ActivityInput, ActivityOutput> proceed) {
    String type = context.getInfo().getActivityType();
    Object[] args = input.getArguments();
    fire(context, When.BEFORE, type, args);
    ActivityOutput output = proceed.apply(input);
    fire(context, When.AFTER, type, args);
    return output;
  }

  private void fire(ActivityExecutionContext context, When when, String type, Object[] args) {
    Trigger t = armed.get();
    if (t == null || t.when() != when || !t.boundary().matches(type, args) || !armed.compareAndSet(t, null)) {
      return;
    }
    fired.set(when.name().toLowerCase() + " " + t.boundary().label() + " (attempt " + context.getInfo().getAttempt()
        + ")");
    if (!t.holdActivity()) {
      // A quick fault (cut a link, stop a server) runs before the attempt goes on, so the
      // attempt meets it; anything timed schedules its own healing.
      t.action().run();
      return;
    }
    CountDownLatch done = new CountDownLatch(1);
    Thread thread = new Thread(() -> {
      try {
        t.action().run();
      } finally {
        done.countDown();
      }
    }, "fault-" + t.boundary().label());
    thread.setDaemon(true);
    thread.start();
    hold(done);
  }

  /**
   * Keeps the attempt from reporting anything while the worker is killed: the kill interrupts
   * this thread (or closes the connection the report would use), and the attempt then fails
   * with nobody left to hear it.
   */
  private static void hold(CountDownLatch done) {
    try {
      if (done.await(Duration.ofSeconds(30).toMillis(), TimeUnit.MILLISECONDS)) {
        // The kill finished without interrupting us: the worker's connection is closed anyway.
        Thread.sleep(Duration.ofSeconds(5).toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    throw new IllegalStateException("worker killed by the fault suite");
  }
}
