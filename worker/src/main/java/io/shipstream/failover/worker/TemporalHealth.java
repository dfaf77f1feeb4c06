package io.shipstream.failover.worker;

import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the Temporal frontend's gRPC health service in the background and remembers the answer.
 * {@code /readyz} reads the remembered answer instead of calling out, because a kubelet probe
 * times out after one second by default and a health check against a slow server may take longer.
 * Only changes are logged, so an outage is two lines rather than one every few seconds.
 */
final class TemporalHealth implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TemporalHealth.class);

  private final WorkflowServiceStubs service;
  private final ScheduledExecutorService scheduler;
  private volatile boolean healthy;
  private volatile boolean everChecked;

  private TemporalHealth(WorkflowServiceStubs service) {
    this.service = service;
    this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "temporal-health");
      t.setDaemon(true);
      return t;
    });
  }

  /** Checks at once, then every {@code interval}. */
  static TemporalHealth start(WorkflowServiceStubs service, Duration interval) {
    TemporalHealth health = new TemporalHealth(service);
    health.scheduler.scheduleWithFixedDelay(health::check, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    return health;
  }

  boolean healthy() {
    return healthy;
  }

  private void check() {
    boolean now;
    String problem = null;
    try {
      ServingStatus status = service.healthCheck().getStatus();
      now = status == ServingStatus.SERVING;
      if (!now) {
        problem = "the frontend reports " + status;
      }
    } catch (RuntimeException e) {
      now = false;
      problem = e.getMessage();
    }
    if (now != healthy || !everChecked) {
      if (now) {
        log.info("Temporal connection is healthy");
      } else {
        log.warn("Temporal connection is unhealthy: {}", problem);
      }
    }
    healthy = now;
    everChecked = true;
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    healthy = false;
  }
}
