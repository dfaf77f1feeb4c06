package io.shipstream.failover.watcher.topology;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.DrainSwitchover;
import io.shipstream.failover.model.topology.PauseAnnotation;
import io.shipstream.failover.model.topology.SiteObservation;
import io.shipstream.failover.workflows.contract.Events;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code spec.plannedFailover.onActiveNodeDrain: switchover}, on the leading watcher: at each
 * evaluation of a group that opted in, the nodes under the active site's MySQL pods are read, and
 * {@link DrainSwitchover} decides. A request sets the group's planned-failover annotation (only
 * where none is present), which the planned path then validates and runs like any other, cooldown
 * included, with a {@code DrainSwitchoverRequested} Event; no site able to take over is one
 * {@code DrainSwitchoverImpossible} Warning; a paused group one {@code ActionHeld} Warning.
 *
 * <p>Each is done once per cordon episode: the active site and its cordoned nodes, remembered per
 * group and forgotten when they change (uncordoned, or the switchover made another site active).
 * A request refused (the cooldown) is therefore not repeated while the node stays cordoned: the
 * drain stays held by the primary pod's PodDisruptionBudget until a person acts.
 */
public final class DrainWatch implements Duties.Drains {
  private static final Logger log = LoggerFactory.getLogger(DrainWatch.class);
  private static final String REQUESTED = "Request";
  private static final String IMPOSSIBLE = "Impossible";
  private static final String HELD = "Held";

  /** The Kubernetes side; {@link KubeDrainView} is the real one. */
  public interface Kube {
    /** The cordoned ({@code spec.unschedulable}) nodes the site's pods run on, by name; empty when none. */
    List<String> cordonedNodes(GroupRef group, SiteSpec site);

    /**
     * Sets the planned-failover annotation of {@code group} (as last cached: {@code seen}) to
     * {@code value} unless it has one; whether it was set. False also when the group changed since
     * {@code seen}: the next evaluation tries again.
     */
    boolean requestPlanned(GroupRef group, MysqlFailoverGroup seen, String value);
  }

  private record Episode(String key, Set<String> done) {}

  private final Kube kube;
  private final GroupEffects events;
  private final Map<GroupRef, Episode> episodes = new ConcurrentHashMap<>();

  /** {@code events}: where its Events go (only those of the watcher's effects are used). */
  public DrainWatch(Kube kube, GroupEffects events) {
    this.kube = kube;
    this.events = events;
  }

  /**
   * One look at the group; reads Kubernetes only for a group that opted in and has an active
   * site. Returns what was decided (Nothing when not looked at).
   */
  public DrainSwitchover.Outcome check(GroupRef group, GroupConfig config, MysqlFailoverGroup resource,
      Map<String, SiteObservation> sites, boolean paused) {
    MysqlFailoverGroupStatus status = resource.getStatus();
    String active = status == null ? null : status.activeSite();
    Optional<SiteSpec> site = config.site(active);
    if (config.onActiveNodeDrain() != GroupConfig.OnActiveNodeDrain.switchover || site.isEmpty()) {
      episodes.remove(group);
      return new DrainSwitchover.Nothing("not looked at");
    }
    List<String> cordoned;
    try {
      cordoned = kube.cordonedNodes(group, site.get()).stream().sorted().toList();
    } catch (RuntimeException e) {
      // The next evaluation reads again; the API server may be briefly away.
      log.warn("{}: cannot read the nodes of the active site '{}': {}", group, active, e.toString());
      return new DrainSwitchover.Nothing("nodes unknown");
    }
    if (cordoned.isEmpty()) {
      Episode ended = episodes.remove(group);
      if (ended != null) {
        log.info("{}: cordon episode {} over: no node of the active site '{}' is cordoned", group, ended.key(), active);
      }
      return new DrainSwitchover.Nothing("no node of the active site is cordoned");
    }
    String key = active + ":" + cordoned;
    Episode episode = episodes.compute(group, (g, e) -> e != null && e.key().equals(key) ? e
        : new Episode(key, ConcurrentHashMap.newKeySet()));
    boolean requestPresent = resource.annotation(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION) != null;
    DrainSwitchover.Outcome outcome = DrainSwitchover.decide(new DrainSwitchover.Input(config, active, cordoned, sites,
        requestPresent, GroupUpkeep.failoverRunning(status), paused, status == null ? null : status.fencedSites()));
    if (outcome instanceof DrainSwitchover.Request r && !episode.done().contains(REQUESTED)) {
      boolean requested;
      try {
        requested = kube.requestPlanned(group, resource, r.target());
      } catch (RuntimeException e) {
        log.warn("{}: cannot request the switchover to '{}': {}", group, r.target(), e.toString());
        requested = false;
      }
      if (requested) {
        episode.done().add(REQUESTED);
        log.info("{}: {}", group, r.why());
        event(group, Events.DRAIN_SWITCHOVER_REQUESTED, r.why() + "; requested as "
            + MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION + "=" + r.target());
      }
    } else if (outcome instanceof DrainSwitchover.Impossible i && episode.done().add(IMPOSSIBLE)) {
      log.warn("{}: {}", group, i.why());
      event(group, Events.DRAIN_SWITCHOVER_IMPOSSIBLE, i.why());
    } else if (outcome instanceof DrainSwitchover.Held h && episode.done().add(HELD)) {
      String message = "paused: would switch over to " + h.target() + " (" + h.why() + "); nothing was done (remove "
          + PauseAnnotation.ANNOTATION + " to let the watcher act)";
      log.warn("{}: {}", group, message);
      event(group, Events.ACTION_HELD, message);
    }
    return outcome;
  }

  private void event(GroupRef group, Events event, String message) {
    events.eventOrLog(group, event, message);
  }

  /** Forgets a group that is no longer watched. */
  public void forget(GroupRef group) {
    episodes.remove(group);
  }
}
