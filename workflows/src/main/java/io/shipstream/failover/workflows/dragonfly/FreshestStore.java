package io.shipstream.failover.workflows.dragonfly;

import io.shipstream.failover.workflows.activities.StoreState;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Which session store becomes master when the old one may be dead, as a pure function of what
 * the stores said. Redis and Valkey replicas of one master count their offsets in that master's
 * numbering, so the highest offset holds the most sessions. A replica whose offset is unknown
 * (-1, Dragonfly) ranks below every known one; between equals the preferred site (the new MySQL
 * primary's) wins, then the site name, so the choice never depends on the order of the list.
 */
public final class FreshestStore {
  private FreshestStore() {}

  /** What to do: promote {@code site}, or keep it because it already is a reachable master. */
  public record Choice(String site, boolean keepExistingMaster) {}

  public static Optional<Choice> choose(List<StoreState> stores, String preferredSite) {
    Comparator<StoreState> freshestFirst = Comparator.comparingLong(StoreState::offset).reversed()
        .thenComparing(s -> !s.site().equals(preferredSite))
        .thenComparing(StoreState::site);
    Optional<StoreState> replica = stores.stream().filter(StoreState::isReplica).sorted(freshestFirst).findFirst();
    if (replica.isPresent()) {
      return Optional.of(new Choice(replica.get().site(), false));
    }
    return stores.stream().filter(StoreState::isMaster)
        .sorted(Comparator.comparing((StoreState s) -> !s.site().equals(preferredSite)).thenComparing(StoreState::site))
        .findFirst()
        .map(s -> new Choice(s.site(), true));
  }
}
