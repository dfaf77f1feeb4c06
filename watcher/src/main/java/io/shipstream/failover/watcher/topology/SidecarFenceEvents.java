package io.shipstream.failover.watcher.topology;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.watcher.topology.SidecarStatusReader.Fence;
import io.shipstream.failover.workflows.contract.Events;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a Warning Event ({@code SiteFencedBySidecar}) for each fence a sidecar reports in its
 * {@code /status} ({@code lastFence}): the sidecar has no Kubernetes client, so the leading watcher
 * says it for it. Once per fence: a fence is known by its time, and one no later than the last
 * reported is not reported again. A fence first seen more than {@link #RECENT} ago (this watcher
 * just started leading) is taken as reported by whoever led then and only remembered, so a watcher
 * restart does not repeat old fences; one within it is reported, which repeats at most the fences
 * of the last minute once.
 */
final class SidecarFenceEvents {
  private static final Logger log = LoggerFactory.getLogger(SidecarFenceEvents.class);
  static final Duration RECENT = Duration.ofMinutes(1);

  private record Key(GroupRef group, String site) {}

  private final OldPrimaryRecovery.Events events;
  private final Clock clock;
  private final Map<Key, Instant> reported = new ConcurrentHashMap<>();

  SidecarFenceEvents(OldPrimaryRecovery.Events events, Clock clock) {
    this.events = events;
    this.clock = clock;
  }

  /** What the site's sidecar said its last fence was; writes the Event if it is a new one. */
  void seen(GroupRef group, String site, Optional<Fence> lastFence) {
    if (lastFence.isEmpty()) {
      return;
    }
    Fence fence = lastFence.get();
    Key key = new Key(group, site);
    Instant before;
    // Two checks of one site may run at once (the regular one and one a fresh request asked for).
    synchronized (this) {
      before = reported.get(key);
      if (before != null && !fence.at().isAfter(before)) {
        return;
      }
      // Remembered before the Event is written: one lost Event beats one per check during an API outage.
      reported.put(key, fence.at());
    }
    if (before == null && fence.at().isBefore(clock.instant().minus(RECENT))) {
      return;
    }
    String message = message(site, fence);
    log.warn("{}: {}", group, message);
    try {
      events.event(group, Events.SITE_FENCED_BY_SIDECAR.type().name(), Events.SITE_FENCED_BY_SIDECAR.reason(),
          message);
    } catch (RuntimeException e) {
      log.warn("{}: Event {} for site '{}' not written: {}", group, Events.SITE_FENCED_BY_SIDECAR.reason(), site,
          e.toString());
    }
  }

  static String message(String site, Fence fence) {
    String what = "stop".equals(fence.rule()) ? "stopped the server of site '" + site + "'"
        : "fenced the server of site '" + site + "' (" + fence.rule() + ")";
    return "its sidecar " + what + " at " + fence.at() + ": " + fence.reason();
  }

  void forget(GroupRef group) {
    reported.keySet().removeIf(k -> k.group().equals(group));
  }
}
