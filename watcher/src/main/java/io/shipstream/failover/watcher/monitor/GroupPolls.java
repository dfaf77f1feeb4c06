package io.shipstream.failover.watcher.monitor;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SiteStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.model.topology.SiteDebouncer;
import io.shipstream.failover.model.topology.SiteObservation;
import io.shipstream.failover.watcher.topology.SiteConnector;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The debounced view of one group's sites: one {@link SiteDebouncer} per site, replaced on every
 * poll. Polls of different sites arrive on different threads, hence the synchronization.
 */
final class GroupPolls {
  private final GroupRef group;
  private final GroupConfig config;
  private final Map<String, SiteDebouncer> debouncers = new LinkedHashMap<>();

  GroupPolls(GroupRef group, GroupConfig config) {
    this.group = group;
    this.config = config;
    for (SiteSpec s : config.sites()) {
      debouncers.put(s.name(), SiteDebouncer.start(s.name(), config));
    }
  }

  GroupRef group() {
    return group;
  }

  GroupConfig config() {
    return config;
  }

  /** One poll of {@code site}'s server; a poll that throws is the site unreachable, with why. */
  Probe poll(SiteConnector sites, SiteSpec site, Clock clock) {
    try {
      return sites.probe(group, config, site);
    } catch (RuntimeException e) {
      return Probe.unreachable(site.name(), e.toString(), clock.instant());
    }
  }

  /** Feeds one poll; returns the site's debouncer after it. */
  synchronized SiteDebouncer observe(Probe probe) {
    SiteDebouncer next = debouncers.get(probe.site()).observe(probe);
    debouncers.put(probe.site(), next);
    return next;
  }

  /** Whether every site has been polled at least once: before that, no verdict is worth acting on. */
  synchronized boolean everySitePolled() {
    return debouncers.values().stream().allMatch(d -> d.latest() != null);
  }

  synchronized Map<String, SiteObservation> observations() {
    Map<String, SiteObservation> m = new LinkedHashMap<>();
    debouncers.forEach((site, d) -> m.put(site, d.observation()));
    return m;
  }

  /** What {@code status.sites} shows, in spec order. */
  synchronized List<SiteStatus> siteStatuses() {
    List<SiteStatus> out = new ArrayList<>();
    for (SiteDebouncer d : debouncers.values()) {
      Probe seen = d.lastReachable();
      Probe now = d.latest();
      boolean answering = now != null && now.reachable();
      out.add(new SiteStatus(d.site(), d.state().name(), seen == null ? null : seen.at().toString(),
          answering ? now.replicating() : null, seen == null ? null : seen.gtidExecuted(),
          answering ? now.secondsBehindSource() : null, null));
    }
    return out;
  }
}
