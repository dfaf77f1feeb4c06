package io.shipstream.failover.watcher;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
 * <p>The renew deadline is enforced here too: fabric8's elector checks it only between renewal
 * attempts, and an attempt against an API server that stopped answering (a partition drops the
 * packets) first waits out the client's request timeouts, about 20 s, long after a standby may
 * have taken the Lease. A watchdog stops acting once no renewal has succeeded for the renew
 * deadline, counted from the moment the last successful one was sent (so never later than the
 * Lease the standby waits out, which starts from the time written in it), and ends that term.
 *
 * <p>The listener is called at most once per change, never twice in a row for the same state
 * (fabric8 may report a stop twice), on a thread of the Kubernetes client or of the watchdog.
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
  /** System.nanoTime at which the last successful write of the Lease (an acquisition, a renewal) was sent. */
  private volatile long lastWrite;
  private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread thread = new Thread(r, "lease-watchdog");
    thread.setDaemon(true);
    return thread;
  });

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
    long tick = Math.max(10, settings.retryPeriod().toMillis() / 2);
    election.watchdog.scheduleWithFixedDelay(election::checkDeadline, tick, tick, TimeUnit.MILLISECONDS);
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
        .withLock(new TimedLeaseLock(namespace, settings.leaseName(), settings.identity()))
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

  /**
   * Stops acting once the last successful write of the Lease is older than the renew deadline,
   * and ends the term (on a thread of its own: ending it releases the Lease, a call that may hang
   * as the renewal does); the term's end campaigns again.
   */
  private void checkDeadline() {
    if (!leading.get()) {
      return;
    }
    Duration since = Duration.ofNanos(System.nanoTime() - lastWrite);
    if (since.compareTo(settings.renewDeadline()) <= 0) {
      return;
    }
    log.warn("{} has not renewed the Lease {}/{} for {} ms (renew deadline {} ms): it stops acting",
        settings.identity(), namespace, settings.leaseName(), since.toMillis(), settings.renewDeadline().toMillis());
    stopped();
    CompletableFuture<?> current;
    synchronized (this) {
      current = term;
    }
    if (current != null) {
      Thread end = new Thread(() -> current.cancel(true), "lease-term-end");
      end.setDaemon(true);
      end.start();
    }
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

  /** The watcher's Lease, noting when each successful write of it (create, update) was sent. */
  private final class TimedLeaseLock extends LeaseLock {
    TimedLeaseLock(String namespace, String name, String identity) {
      super(namespace, name, identity);
    }

    @Override
    public void create(KubernetesClient client, LeaderElectionRecord record) {
      long sent = System.nanoTime();
      super.create(client, record);
      lastWrite = sent;
    }

    @Override
    public void update(KubernetesClient client, LeaderElectionRecord record) {
      long sent = System.nanoTime();
      super.update(client, record);
      lastWrite = sent;
    }
  }

  /** Stops campaigning and, when leading, stops and releases the Lease before returning. */
  @Override
  public void close() {
    watchdog.shutdownNow();
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
