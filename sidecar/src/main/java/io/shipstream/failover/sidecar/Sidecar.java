package io.shipstream.failover.sidecar;

import io.shipstream.failover.runtime.DaemonThreads;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
  /** When the next whole tick is due; touched by the scheduler thread only. */
  private Instant nextTick = Instant.MIN;
  /** How often a server that is watched closely is looked at between ticks. */
  static final Duration CLOSE_WATCH = Duration.ofMillis(100);

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
        config.mysqlPassword(), config.spareUsers(), config.mysqlTls()));
  }

  static Sidecar start(SidecarConfig config, Clock clock, LocalMysql mysql) {
    return start(config, clock, mysql, serverProcess(config));
  }

  /**
   * The server's process can be looked up only where it runs on this host (in a pod, beside the
   * sidecar with a shared process namespace); a server elsewhere is never looked for.
   */
  static ServerProcess serverProcess(SidecarConfig config) {
    boolean local;
    try {
      local = InetAddress.getByName(config.mysqlHost()).isLoopbackAddress();
    } catch (UnknownHostException e) {
      local = false;
    }
    return local ? ServerProcess.onThisHost(config.mysqlPort()) : ServerProcess.none();
  }

  static Sidecar start(SidecarConfig config, Clock clock, LocalMysql mysql, ServerProcess process) {
    String name = "sidecar-" + config.site();
    ScheduledExecutorService scheduler =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named(name + "-tick"));
    ExecutorService io = Executors.newCachedThreadPool(DaemonThreads.named(name + "-io"));
    // A few threads serve every caller: a flood of requests queues instead of spawning threads.
    ExecutorService httpThreads = Executors.newFixedThreadPool(4, DaemonThreads.named(name + "-http"));
    ExtraTicks extraTicks = new ExtraTicks(scheduler, clock);
    try {
      SidecarMetrics metrics = new SidecarMetrics(config.namespace() + "/" + config.group(), config.site(),
          config.watcherUrl(), config.peerUrls());
      FencingLoop loop =
          new FencingLoop(config, clock, new TopologyClient(config, clock, io, metrics::tlsError), mysql, process,
              metrics);
      extraTicks.attach(loop);
      SidecarHttpServer http = new SidecarHttpServer(new InetSocketAddress(config.httpHost(), config.httpPort()),
          httpThreads, config.token(), config.site(), loop::view, loop::status, metrics::scrape, extraTicks::run,
          loop::stalled, config.tls(), new InetSocketAddress(config.httpHost(), config.httpsPort()));
      Sidecar sidecar = new Sidecar(config, clock, loop, http, scheduler, io, httpThreads);
      LOG.info("sidecar started on port {}{}: {}", http.port(),
          http.httpsPort() < 0 ? "" : " (HTTPS on " + http.httpsPort() + ")", config);
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
   * at once by a single tick, never a burst of catch-up ticks. While the loop watches its server
   * closely, the server alone is looked at every {@link #CLOSE_WATCH} in between, and a promotion's
   * grace ending before the next tick brings that tick forward. The interval is the one the loop
   * has learned from the group, so a tick after the watcher's answer already runs on the spec's.
   */
  private void tickAndReschedule() {
    Instant started = clock.instant();
    if (!started.isBefore(nextTick)) {
      loop.tick();
      nextTick = started.plus(loop.peerCheckInterval());
    } else {
      loop.watch();
    }
    if (closed) {
      return;
    }
    Instant now = clock.instant();
    Instant graceEnds = loop.promotionGraceEnds().orElse(Instant.MAX);
    if (graceEnds.isBefore(nextTick)) {
      // The first tick after the grace fences a server that no failover named active.
      nextTick = graceEnds.plusMillis(1);
    }
    Instant next = loop.watchingClosely() ? earliest(now.plus(CLOSE_WATCH), nextTick) : nextTick;
    long delay = Math.max(0, Duration.between(now, next).toNanos());
    try {
      scheduler.schedule(this::tickAndReschedule, delay, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      LOG.debug("scheduler stopped; no more ticks");
    }
  }

  private static Instant earliest(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }

  /** The port the HTTP server listens on (useful with HTTP_PORT=0). */
  public int port() {
    return http.port();
  }

  /** The HTTPS port (useful with HTTPS_PORT=0); -1 without a certificate. */
  public int httpsPort() {
    return http.httpsPort();
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
}
