package io.shipstream.failover.model.topology;

import java.util.Objects;

/**
 * What the watcher knows about one site at evaluation time: the debounced state and the probes
 * behind it. This is the per-site input of {@link TopologyMatrix}; {@link SiteDebouncer#observation()}
 * produces it.
 *
 * @param state the debounced state
 * @param latest the most recent probe, reachable or not; null before the first poll
 * @param lastReachable the most recent probe that got an answer; null if the site never answered. For a
 *     dead primary this holds its last known GTID set, from which the transactions lost are computed.
 */
public record SiteObservation(SiteState state, Probe latest, Probe lastReachable) {

  public SiteObservation {
    Objects.requireNonNull(state, "state");
  }

  /** A site the watcher has not polled yet. */
  public static SiteObservation unknown() {
    return new SiteObservation(SiteState.UNKNOWN, null, null);
  }

  /** Whether the most recent poll got an answer. */
  public boolean answeringNow() {
    return latest != null && latest.reachable();
  }
}
