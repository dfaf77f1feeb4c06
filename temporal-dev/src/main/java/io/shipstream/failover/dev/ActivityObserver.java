package io.shipstream.failover.dev;

import io.temporal.activity.ActivityExecutionContext;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityInput;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityOutput;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import java.util.function.Function;

/**
 * A worker interceptor that sees every activity attempt the worker runs, local or not, with its
 * context, around the call itself: the dev stack's hook for timing the steps and for injecting
 * faults at their boundaries.
 */
public abstract class ActivityObserver extends WorkerInterceptorBase {
  /** Runs the attempt by calling {@code proceed}, doing whatever the observer does around it. */
  protected abstract ActivityOutput observe(ActivityExecutionContext context, ActivityInput input,
      Function<ActivityInput, ActivityOutput> proceed);

  @Override
  public final ActivityInboundCallsInterceptor interceptActivity(ActivityInboundCallsInterceptor next) {
    return new ActivityInboundCallsInterceptorBase(next) {
      private ActivityExecutionContext context;

      @Override
      public void init(ActivityExecutionContext context) {
        this.context = context;
        super.init(context);
      }

      @Override
      public ActivityOutput execute(ActivityInput input) {
        return observe(context, input, super::execute);
      }
    };
  }
}
