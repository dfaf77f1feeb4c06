package io.shipstream.failover.sidecar;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running sidecar: the fencing loop on one scheduler thread and the HTTP server. {@link #start}
 * wires it by hand, so {@code main}, the tests and the playground run the same code; {@link
 * #close} stops it without touching MySQL.
 */
public final class Sidecar implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Sidecar.class);

  private final SidecarConfig config;
  private final FencingLoop loop;
  private final SidecarHttpServer http;
  private final ScheduledExecutorService scheduler;
  private final ExecutorService io;
  private final ExecutorService httpThreads;
  private final Clock clock;
  private volatile boolean closed;

  private Sidecar(SidecarConfig config, Clock clock, FencingLoop loop, SidecarHttpServer http,
      ScheduledExecutorService scheduler, ExecutorService io, ExecutorService httpThreads) {
    this.config = config;
    this.clock = clock;
    this.loop = loop;
    this.http = http;
    this.scheduler = scheduler;
    this.io = io;
    this.httpThreads = httpThreads;
  }

  public static Sidecar start(SidecarConfig config) {
    return start(config, new MonotonicClock());
  }

  static Sidecar start(SidecarConfig config, Clock clock) {
    return start(config, clock, new JdbcLocalMysql(config.mysqlHost(), config.mysqlPort(), config.mysqlUser(),
        config.mysqlPassword(), config.spareUsers()));
  }

  static Sidecar start(SidecarConfig config, Clock clock, LocalMysql mysql) {
    String name = "sidecar-" + config.site();
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(threads(name + "-tick"));
    ExecutorService io = Executors.newCachedThreadPool(threads(name + "-io"));
    // A few threads serve every caller: a flood of requests queues instead of spawning threads.
    ExecutorService httpThreads = Executors.newFixedThreadPool(4, threads(name + "-http"));
    ExtraTicks extraTicks = new ExtraTicks(scheduler, clock);
    try {
      SidecarMetrics metrics = new SidecarMetrics(config.watcherUrl(), config.peerUrls());
      FencingLoop loop = new FencingLoop(config, clock, new TopologyClient(config, clock, io), mysql, metrics);
      extraTicks.attach(loop);
      SidecarHttpServer http = new SidecarHttpServer(new InetSocketAddress(config.httpHost(), config.httpPort()),
          httpThreads, config.token(), config.site(), loop::view, loop::status, metrics::scrape, extraTicks::run);
      Sidecar sidecar = new Sidecar(config, clock, loop, http, scheduler, io, httpThreads);
      LOG.info("sidecar started on port {}: {}", http.port(), config);
      scheduler.execute(sidecar::tickAndReschedule);
      return sidecar;
    } catch (IOException e) {
      scheduler.shutdownNow();
      io.shutdownNow();
      httpThreads.shutdownNow();
      throw new UncheckedIOException("cannot listen on " + config.httpHost() + ":" + config.httpPort(), e);
    }
  }

  /**
   * Ticks are anchored to their start: a tick that took part of the interval (requests to a cut
   * link wait out their timeout) does not push the next one back, and one that overran is followed
   * at once by a single tick, never a burst of catch-up ticks.
   */
  private void tickAndReschedule() {
    Instant started = clock.instant();
    loop.tick();
    if (closed) {
      return;
    }
    Duration elapsed = Duration.between(started, clock.instant());
    long delay = Math.max(0, config.peerCheckInterval().minus(elapsed).toNanos());
    try {
      scheduler.schedule(this::tickAndReschedule, delay, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      LOG.debug("scheduler stopped; no more ticks");
    }
  }

  /** The port the HTTP server listens on (useful with HTTP_PORT=0). */
  public int port() {
    return http.port();
  }

  public SidecarStatus status() {
    return loop.status();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    scheduler.shutdownNow();
    http.close();
    io.shutdownNow();
    httpThreads.shutdownNow();
    try {
      if (!scheduler.awaitTermination(10, TimeUnit.SECONDS)) {
        LOG.warn("a fencing tick did not end within 10 s of close");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    LOG.info("sidecar for {} stopped", config.site());
  }

  private static ThreadFactory threads(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
