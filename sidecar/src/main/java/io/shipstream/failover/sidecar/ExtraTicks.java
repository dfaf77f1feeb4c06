package io.shipstream.failover.sidecar;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ticks asked for over HTTP ({@code POST /tick}). They run on the scheduler thread like the
 * scheduled ones, so two ticks never overlap, and at most one per {@link #MIN_INTERVAL} and one
 * queued at a time: a caller that asks more often, or while an extra tick is still running (ticks
 * wait out the timeouts of cut links), gets the last snapshot at once. So an open endpoint can
 * neither make the sidecar hammer its MySQL, the watcher or its peers, nor tie up its few HTTP
 * threads.
 */
final class ExtraTicks {
  static final Duration MIN_INTERVAL = Duration.ofMillis(200);
  /** A tick waits out its links' timeouts when they are cut; the caller gets the snapshot then. */
  static final Duration MAX_WAIT = Duration.ofSeconds(3);
  private static final Logger LOG = LoggerFactory.getLogger(ExtraTicks.class);

  private final ScheduledExecutorService scheduler;
  private final Clock clock;
  private FencingLoop loop;
  private Instant last = Instant.MIN;
  private Future<?> pending;

  ExtraTicks(ScheduledExecutorService scheduler, Clock clock) {
    this.scheduler = scheduler;
    this.clock = clock;
  }

  void attach(FencingLoop loop) {
    this.loop = loop;
  }

  /** Runs a tick now unless one was asked for less than {@link #MIN_INTERVAL} ago; the status after it. */
  SidecarStatus run() {
    Future<?> tick = claim();
    if (tick == null) {
      return loop.status();
    }
    try {
      tick.get(MAX_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      LOG.debug("extra tick not finished: {}", e.toString());
    }
    return loop.status();
  }

  /** The extra tick this caller waits for, submitted now; null when none may run. */
  private synchronized Future<?> claim() {
    Instant now = clock.instant();
    if (last != Instant.MIN && Duration.between(last, now).compareTo(MIN_INTERVAL) < 0
        || pending != null && !pending.isDone()) {
      return null;
    }
    last = now;
    try {
      pending = scheduler.submit(loop::tick);
    } catch (RejectedExecutionException e) {
      LOG.debug("scheduler stopped; no extra tick");
      return null;
    }
    return pending;
  }
}
