package io.shipstream.failover.worker;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.shipstream.failover.model.Durations;
import io.shipstream.failover.runtime.Closeables;
import io.shipstream.failover.runtime.Logging;
import io.shipstream.failover.runtime.ProbeServer;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.temporal.TemporalStubs;
import io.shipstream.failover.workflows.PayloadConverter;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker process: polls the failover task queue and runs the workflows and activities of
 * {@link Registrations}, with health, readiness and metrics on {@link WorkerConfig#httpPort()}.
 *
 * <p>{@link #main} builds the real clients from the environment; {@link #start} takes clients
 * already built (a test's mock API server and in-process Temporal, the playground's) and does
 * not close them: whoever built a client closes it.
 */
public final class WorkerApp implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WorkerApp.class);
  static final Duration HEALTH_CHECK_INTERVAL = Duration.ofSeconds(5);
  private static final Duration STUBS_SHUTDOWN_TIMEOUT = Duration.ofSeconds(5);

  private final WorkerConfig config;
  private final WorkerMetrics metrics;
  private final WorkflowServiceStubs service;
  private final WorkerFactory factory;
  private final TemporalHealth health;
  private final ProbeServer http;
  private final AtomicBoolean closed = new AtomicBoolean();

  private WorkerApp(WorkerConfig config, WorkerMetrics metrics, WorkflowServiceStubs service, WorkerFactory factory,
      TemporalHealth health, ProbeServer http) {
    this.config = config;
    this.metrics = metrics;
    this.service = service;
    this.factory = factory;
    this.health = health;
    this.http = http;
  }

  /**
   * Starts polling {@code config.taskQueue()} through {@code service}'s connection, with the
   * activities working on {@code kubernetes}. Returns once the worker polls and the HTTP port is
   * open; {@link #close} stops it.
   */
  public static WorkerApp start(WorkerConfig config, KubernetesClient kubernetes, WorkflowServiceStubs service) {
    return start(config, kubernetes, service, HEALTH_CHECK_INTERVAL);
  }

  /** As above, with the Temporal health check every {@code healthCheckInterval} (tests shorten it). */
  static WorkerApp start(WorkerConfig config, KubernetesClient kubernetes, WorkflowServiceStubs service,
      Duration healthCheckInterval) {
    log.info("starting worker: {}", config);
    List<AutoCloseable> started = new ArrayList<>();
    try {
      WorkerMetrics metrics = WorkerMetrics.start(config.metricsReportInterval());
      started.add(metrics);
      WorkflowServiceStubs stubs = TemporalStubs.withMetrics(service, metrics.scope());
      started.add(() -> shutdown(stubs));
      WorkflowClient client = WorkflowClient.newInstance(stubs,
          PayloadConverter.clientOptions(config.namespace()).build());
      SearchAttributeRegistration.register(stubs, config.namespace());
      WorkerFactory factory = WorkerFactory.newInstance(client);
      Registrations.register(factory, config.taskQueue(), WorkerOptions.getDefaultInstance(), kubernetes,
          Clock.systemUTC(), config.sidecarToken(), config.sidecarTls(),
          Registrations.watcherReplicas(config, kubernetes));
      started.add(() -> {
        // A factory that never started has nothing to stop, and stopping it would call Temporal.
        if (factory.isStarted()) {
          factory.shutdownNow();
        }
      });
      TemporalHealth health = TemporalHealth.start(stubs, healthCheckInterval);
      started.add(health);
      ProbeServer http = HttpEndpoints.start(config.httpPort(),
          () -> polling(factory, health), metrics::scrape);
      started.add(http);
      factory.start();
      String target = service.getOptions().getTarget();
      log.info("worker polling task queue {} in namespace {} at {}; HTTP on port {}", config.taskQueue(),
          config.namespace(), target != null ? target : "the channel it was given", http.port());
      return new WorkerApp(config, metrics, stubs, factory, health, http);
    } catch (RuntimeException e) {
      Collections.reverse(started);
      Closeables.closeAll(started);
      throw e;
    }
  }

  /** The port of {@code /healthz}, {@code /readyz} and {@code /metrics}; the real one when configured as 0. */
  public int httpPort() {
    return http.port();
  }

  /** What {@code /readyz} answers. */
  public boolean isReady() {
    return !closed.get() && polling(factory, health);
  }

  private static boolean polling(WorkerFactory factory, TemporalHealth health) {
    return factory.isStarted() && !factory.isShutdown() && health.healthy();
  }

  /**
   * Stops polling at once, lets the activities and workflow tasks in flight finish for up to
   * {@link WorkerConfig#shutdownTimeout()}, then interrupts what is left and releases everything
   * this worker created. An activity cut off here is retried by another worker: every activity
   * is idempotent. Safe to call twice.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    log.info("stopping worker: no new tasks; waiting up to {} for those in flight",
        Durations.format(config.shutdownTimeout()));
    factory.shutdown();
    factory.awaitTermination(config.shutdownTimeout().toMillis(), TimeUnit.MILLISECONDS);
    if (!factory.isTerminated()) {
      log.warn("tasks still running after {}; interrupting them", Durations.format(config.shutdownTimeout()));
      factory.shutdownNow();
      factory.awaitTermination(STUBS_SHUTDOWN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }
    Closeables.closeAll(List.of(health, () -> shutdown(service), http, metrics));
    log.info("worker stopped");
  }

  private static void shutdown(WorkflowServiceStubs stubs) throws InterruptedException {
    stubs.shutdown();
    stubs.awaitTermination(STUBS_SHUTDOWN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Runs the worker until SIGTERM. Exit status 2 is a configuration error (the message says
   * which setting); 1 is a failure to start.
   */
  public static void main(String[] args) throws InterruptedException {
    Logging.routeJulToSlf4j();
    if (Arrays.asList(args).contains("--help")) {
      System.out.print("usage: worker [--flag=value ...]\n" + WorkerConfig.usage());
      return;
    }
    WorkerConfig config;
    try {
      config = WorkerConfig.from(System.getenv(), args);
      if (config.sidecarToken() == null) {
        // Without it every sidecar answers 401, and an emergency failover could never learn that
        // the old primary is fenced: it would wait out the whole lease every time.
        throw new IllegalArgumentException("invalid worker configuration:\n  - " + SharedToken.required(
            "the worker asks the sidecars (POST /tick, GET /status) with the group's shared token"));
      }
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.print(WorkerConfig.usage());
      System.exit(2);
      return;
    }
    KubernetesClient kubernetes = new KubernetesClientBuilder().build();
    WorkflowServiceStubs service;
    WorkerApp app;
    try {
      service = WorkflowServiceStubs.newServiceStubs(TemporalConnection.options(config));
    } catch (RuntimeException e) {
      log.error("cannot connect to Temporal at {}: {}", config.temporalAddress(), e.getMessage());
      kubernetes.close();
      System.exit(1);
      return;
    }
    try {
      app = start(config, kubernetes, service);
    } catch (RuntimeException e) {
      log.error("worker failed to start", e);
      service.shutdownNow();
      kubernetes.close();
      System.exit(1);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      app.close();
      Closeables.closeAll(List.of(() -> shutdown(service), kubernetes));
      stopped.countDown();
    }, "worker-shutdown"));
    stopped.await();
  }
}
