package io.shipstream.failover.dev;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.shipstream.failover.watcher.monitor.TopologyMonitor;
import io.shipstream.failover.watcher.topology.VerdictReactions;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityInput;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityOutput;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;
import org.slf4j.LoggerFactory;

/**
 * Where the time of an emergency failover goes, from the kill on: the monitor's first failed
 * poll of the primary and the replicas' verdict (its log line carries when the poll began), the
 * emergency workflow started (the watcher's line once the start returned), the candidate made
 * writable (the end of the worker's {@code Promote} activity). Listens to the watcher's log inside
 * this JVM and to the worker's activities (a worker interceptor: install it with {@link
 * ControlPlane#addWorkerInterceptor} before the worker starts). Times are wall-clock milliseconds.
 */
final class KillTimeline extends ActivityObserver implements AutoCloseable {
  private static final String MONITOR = TopologyMonitor.class.getName();
  private static final String REACTIONS = VerdictReactions.class.getName();

  /** A failed poll of the primary with the replicas' answer: when the poll began, when they answered, what. */
  record Confirmation(long pollBeganMs, long answeredMs, String outcome) {}

  /** One emergency failover's steps after a kill at {@code killMs}; -1 where a step was not seen. */
  record Steps(long firstFailedPollMs, long confirmedMs, long workflowStartedMs, long writableMs) {}

  private final ConcurrentLinkedQueue<Confirmation> confirmations = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Long> starts = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Long> promotions = new ConcurrentLinkedQueue<>();

  private AppenderBase<ILoggingEvent> appender;

  private KillTimeline() {}

  /** Listens to the watcher's log from now on. */
  static KillTimeline listening() {
    KillTimeline timeline = new KillTimeline();
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext logback) {
      AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent e) {
          timeline.logged(e);
        }
      };
      timeline.appender = appender;
      appender.setName("kill-timeline");
      appender.setContext(logback);
      appender.start();
      for (String name : List.of(MONITOR, REACTIONS)) {
        logback.getLogger(name).addAppender(appender);
      }
    }
    return timeline;
  }

  private void logged(ILoggingEvent e) {
    Object[] args = e.getArgumentArray();
    String format = e.getMessage();
    if (e.getLoggerName().equals(MONITOR) && format.contains("the poll of the primary") && args != null
        && args.length >= 4 && args[2] instanceof Instant began) {
      confirmations.add(new Confirmation(began.toEpochMilli(), e.getTimeStamp(), String.valueOf(args[3])));
    } else if (e.getLoggerName().equals(REACTIONS) && format.contains("emergency failover from")) {
      starts.add(e.getTimeStamp());
    }
  }

  @Override
  protected ActivityOutput observe(ActivityExecutionContext context, ActivityInput input,
      Function<ActivityInput, ActivityOutput> proceed) {
    ActivityOutput out = proceed.apply(input);
    if (context.getInfo().getActivityType().equalsIgnoreCase("promote")) {
      promotions.add(System.currentTimeMillis());
    }
    return out;
  }

  /** Stops listening to the log (the worker keeps the interceptor until it stops). */
  @Override
  public void close() {
    if (appender != null && LoggerFactory.getILoggerFactory() instanceof LoggerContext logback) {
      for (String name : List.of(MONITOR, REACTIONS)) {
        logback.getLogger(name).detachAppender(appender);
      }
      appender.stop();
    }
  }

  /** The steps seen after {@code killMs}, each the first of its kind; the verdict is the first CONFIRMED_DEAD. */
  Steps after(long killMs) {
    long firstFailed = confirmations.stream().filter(c -> c.pollBeganMs() >= killMs)
        .mapToLong(Confirmation::pollBeganMs).min().orElse(-1);
    long confirmed = confirmations.stream().filter(c -> c.pollBeganMs() >= killMs)
        .filter(c -> c.outcome().equals("CONFIRMED_DEAD")).mapToLong(Confirmation::answeredMs).min().orElse(-1);
    long started = starts.stream().filter(t -> t >= killMs).mapToLong(Long::longValue).min().orElse(-1);
    long writable = promotions.stream().filter(t -> t >= killMs).mapToLong(Long::longValue).min().orElse(-1);
    return new Steps(firstFailed, confirmed, started, writable);
  }
}
