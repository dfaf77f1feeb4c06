package io.shipstream.failover.watcher.topology;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.watcher.topology.StartsReadOnlyWatch.Notice;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks every site's sidecar, on a thread of its own, whether its server is configured to start
 * read-only, and turns the answers into Events through {@link StartsReadOnlyWatch} and into the
 * {@code bloodraven_server_starts_read_only} gauge. The sidecar has no Kubernetes client, so the
 * leading watcher says it for it. A configuration changes rarely: each site is asked every
 * {@link #INTERVAL} (never more often than its group's pollInterval), so that the checks cost the
 * topology polls nothing; a sidecar that does not answer is skipped, its health being another matter.
 */
public final class StartupChecks implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StartupChecks.class);
  public static final Duration INTERVAL = Duration.ofSeconds(30);

  private record Key(GroupRef group, String site) {}

  private final SidecarStatusReader reader;
  private final OldPrimaryRecovery.Events events;
  private final TopologyMetrics metrics;
  private final Duration interval;
  private final Map<Key, StartsReadOnlyWatch> watches = new ConcurrentHashMap<>();
  private final Map<GroupRef, List<ScheduledFuture<?>>> scheduled = new ConcurrentHashMap<>();
  private final ScheduledExecutorService checks = Executors.newSingleThreadScheduledExecutor(
      TopologyMonitor.daemon("sidecar-status"));

  StartupChecks(SidecarStatusReader reader, OldPrimaryRecovery.Events events, TopologyMetrics metrics,
      Duration interval) {
    this.reader = reader;
    this.events = events;
    this.metrics = metrics;
    this.interval = interval;
  }

  /** The watcher's: checks every {@link #INTERVAL}, presenting {@code token} (when not null) to the sidecars. */
  public static StartupChecks every30s(SharedToken token,
      OldPrimaryRecovery.Events events, TopologyMetrics metrics) {
    return new StartupChecks(new SidecarStatusReader(token), events, metrics, INTERVAL);
  }

  /**
   * The sites of {@code group} whose sidecar last said their server is configured to start
   * writable, for the group's Degraded condition.
   */
  List<String> startingWritable(GroupRef group) {
    return watches.entrySet().stream()
        .filter(e -> e.getKey().group().equals(group) && Boolean.FALSE.equals(e.getValue().last()))
        .map(e -> e.getKey().site()).sorted().toList();
  }

  /**
   * Checks the sites of {@code config} from now on, replacing the group's earlier checks. What was
   * last said of a site that is still named is kept, so that a spec change repeats no Event.
   */
  synchronized void watch(GroupRef group, GroupConfig config) {
    cancel(group);
    Set<String> named = config.sites().stream().map(SiteSpec::name).collect(Collectors.toSet());
    watches.keySet().removeIf(k -> k.group().equals(group) && !named.contains(k.site()));
    Duration every = config.pollInterval().compareTo(interval) > 0 ? config.pollInterval() : interval;
    List<ScheduledFuture<?>> futures = new ArrayList<>();
    for (SiteSpec site : config.sites()) {
      if (site.sidecar() == null || site.sidecar().url() == null || site.sidecar().url().isBlank()) {
        continue;
      }
      Key key = new Key(group, site.name());
      // The monitor removed the group's meters on restarting it; the gauge shows the kept answer again.
      Optional.ofNullable(watches.get(key)).ifPresent(w -> metrics.startsReadOnly(group, site.name(), w.last()));
      try {
        futures.add(checks.scheduleWithFixedDelay(() -> checkOnce(key, site.sidecar().url()), 0, every.toMillis(),
            TimeUnit.MILLISECONDS));
      } catch (RejectedExecutionException e) {
        // Closed on losing leadership: the next leader checks.
        return;
      }
    }
    scheduled.put(group, futures);
  }

  /** Stops checking a group that is no longer watched, and forgets what was said of it. */
  synchronized void forget(GroupRef group) {
    cancel(group);
    watches.keySet().removeIf(k -> k.group().equals(group));
  }

  private void cancel(GroupRef group) {
    List<ScheduledFuture<?>> futures = scheduled.remove(group);
    if (futures != null) {
      futures.forEach(f -> f.cancel(false));
    }
  }

  /**
   * One check that fails alone: a fixed-delay task that throws is never run again, which would end
   * this site's checks for good.
   */
  private void checkOnce(Key key, String url) {
    try {
      check(key, url);
    } catch (RuntimeException e) {
      log.warn("{}: the start-up check of site '{}' failed: {}", key.group(), key.site(), e.toString());
      metrics.passFailed(key.group(), "startup-check");
    }
  }

  private void check(Key key, String url) {
    Boolean reported;
    try {
      reported = reader.startsReadOnly(url).orElse(null);
    } catch (IOException | RuntimeException e) {
      log.debug("{}: sidecar of site '{}' did not say how its server starts: {}", key.group(), key.site(),
          e.toString());
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    Notice notice;
    synchronized (this) {
      if (!scheduled.containsKey(key.group())) {
        return;
      }
      StartsReadOnlyWatch.Step step = watches.getOrDefault(key, StartsReadOnlyWatch.UNKNOWN).next(reported);
      watches.put(key, step.watch());
      metrics.startsReadOnly(key.group(), key.site(), reported);
      notice = step.notice();
    }
    if (notice != Notice.NONE) {
      emit(key, notice);
    }
  }

  private void emit(Key key, Notice notice) {
    if (notice == Notice.WRITABLE) {
      log.warn("{}: {}", key.group(), notice.message(key.site()));
    }
    try {
      events.event(key.group(), notice.type, notice.reason, notice.message(key.site()));
    } catch (RuntimeException e) {
      // The state already moved on: one lost Event is better than one per check during an API outage.
      log.warn("{}: Event {} for site '{}' not written: {}", key.group(), notice.reason, key.site(), e.toString());
    }
  }

  /** Stops every check; one running finishes its HTTP call and says nothing. */
  @Override
  public synchronized void close() {
    List.copyOf(scheduled.keySet()).forEach(this::cancel);
    checks.shutdownNow();
  }
}
