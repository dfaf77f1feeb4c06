package io.shipstream.failover.watcher;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Campaigns for the watcher's Lease with fabric8's {@code LeaderElector} and tells a
 * {@link Listener} when this replica starts and stops leading.
 *
 * <p>A fabric8 elector runs one term: once it loses the Lease (a renewal missed its deadline, say
 * during an API server outage) it is finished. This class then campaigns again with a new one, so
 * a replica that lost the Lease becomes a standby instead of staying idle for the rest of its
 * life. {@link #close} releases the Lease, so a standby takes over within one retry period
 * instead of waiting for the Lease to expire.
 *
 * <p>The listener is called at most once per change, never twice in a row for the same state
 * (fabric8 may report a stop twice), on a thread of the Kubernetes client.
 */
final class LeaderElection implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LeaderElection.class);

  /** Told about leadership changes. */
  interface Listener {
    void startLeading();

    void stopLeading();
  }

  private final KubernetesClient client;
  private final LeaderElectionSettings settings;
  private final String namespace;
  private final Listener listener;
  private final AtomicBoolean leading = new AtomicBoolean();
  private boolean closed;
  private CompletableFuture<?> term;

  private LeaderElection(KubernetesClient client, LeaderElectionSettings settings, String namespace,
      Listener listener) {
    this.client = client;
    this.settings = settings;
    this.namespace = namespace;
    this.listener = listener;
  }

  /** Starts campaigning in the background; returns at once. */
  static LeaderElection start(KubernetesClient client, LeaderElectionSettings settings, String namespace,
      Listener listener) {
    LeaderElection election = new LeaderElection(client, settings, namespace, listener);
    log.info("campaigning for Lease {}/{} as {}", namespace, settings.leaseName(), settings.identity());
    election.campaign();
    return election;
  }

  boolean isLeader() {
    return leading.get();
  }

  private synchronized void campaign() {
    if (closed) {
      return;
    }
    CompletableFuture<?> current = client.leaderElector().withConfig(new LeaderElectionConfigBuilder()
            .withName("failover-watcher")
            .withLock(new LeaseLock(namespace, settings.leaseName(), settings.identity()))
            .withLeaseDuration(settings.leaseDuration())
            .withRenewDeadline(settings.renewDeadline())
            .withRetryPeriod(settings.retryPeriod())
            .withReleaseOnCancel(true)
            .withLeaderCallbacks(new LeaderCallbacks(this::started, this::stopped, this::observed))
            .build())
        .build()
        .start();
    term = current;
    current.whenComplete((ignored, error) -> {
      stopped();
      synchronized (this) {
        if (closed) {
          return;
        }
      }
      if (error != null) {
        log.warn("leader election on Lease {}/{} failed: {}; campaigning again", namespace, settings.leaseName(),
            error.toString());
      } else {
        log.warn("lost the Lease {}/{}; campaigning again", namespace, settings.leaseName());
      }
      campaign();
    });
  }

  private void started() {
    if (leading.compareAndSet(false, true)) {
      log.info("{} leads: handling failover requests", settings.identity());
      listener.startLeading();
    }
  }

  private void stopped() {
    if (leading.compareAndSet(true, false)) {
      log.info("{} no longer leads: failover requests are left to the new leader", settings.identity());
      listener.stopLeading();
    }
  }

  private void observed(String holder) {
    if (holder != null && !holder.equals(settings.identity())) {
      log.info("the Lease {}/{} is held by {}", namespace, settings.leaseName(), holder);
    }
  }

  /** Stops campaigning and, when leading, stops and releases the Lease before returning. */
  @Override
  public void close() {
    CompletableFuture<?> current;
    synchronized (this) {
      closed = true;
      current = term;
    }
    if (current != null) {
      // Cancelling runs fabric8's release of the Lease on this thread, before cancel returns.
      current.cancel(true);
    }
    stopped();
  }
}
