package io.shipstream.failover.workflows.fakes;

import io.shipstream.failover.workflows.activities.DragonflyActivities;
import io.shipstream.failover.workflows.activities.StoreState;
import io.shipstream.failover.workflows.activities.StoreTarget;
import io.shipstream.failover.workflows.dragonfly.FreshestStore;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Session stores as a workflow test needs them: each site's store has a role, a master, an
 * offset and switches that make it lag or refuse promotion; every call is recorded.
 */
public final class FakeDragonfly implements DragonflyActivities {
  public static final class Store {
    public volatile boolean reachable = true;
    public volatile String role;
    public volatile String master;
    public volatile long offset;
    /** The replica never reaches the master's offset: waits end in DragonflySyncTimeout. */
    public volatile boolean lagging;
    /** The lossless takeover (REPLTAKEOVER / FAILOVER) fails. */
    public volatile boolean takeoverFails;
    /** REPLICAOF NO ONE fails too. */
    public volatile boolean promoteAloneFails;
  }

  public final Map<String, Store> stores = new ConcurrentHashMap<>();
  public final List<String> calls = new CopyOnWriteArrayList<>();
  public volatile String flavor = "dragonfly";

  public Store add(String site, String master, long offset) {
    Store s = new Store();
    s.role = master == null ? StoreState.MASTER : StoreState.REPLICA;
    s.master = master;
    s.offset = offset;
    stores.put(site, s);
    return s;
  }

  public Store store(String site) {
    return stores.get(site);
  }

  public List<String> callsTo(String verb) {
    return calls.stream().filter(c -> c.startsWith(verb + " ")).toList();
  }

  private Store reach(StoreTarget t) {
    Store s = stores.get(t.site());
    if (s == null || !s.reachable) {
      throw ApplicationFailure.newFailure(t + " unreachable: connection refused", "Unreachable");
    }
    return s;
  }

  @Override
  public StoreState inspect(StoreTarget t) {
    calls.add("inspect " + t.site());
    Store s = stores.get(t.site());
    if (s == null || !s.reachable) {
      return StoreState.unreachable(t.site(), "connection refused");
    }
    return new StoreState(t.site(), true, null, flavor, s.role, s.master, s.master == null ? null : 6379,
        s.master != null, s.offset);
  }

  @Override
  public long captureOffset(StoreTarget t) {
    calls.add("capture " + t.site());
    Store s = reach(t);
    if (!StoreState.MASTER.equals(s.role)) {
      throw ApplicationFailure.newNonRetryableFailure(t + " is not a master", "StoreNotMaster");
    }
    return s.offset;
  }

  @Override
  public SyncResult waitForOffset(StoreTarget t, long offset, Instant deadline) {
    calls.add("wait " + t.site() + " " + offset);
    Store s = reach(t);
    if (s.lagging) {
      throw ApplicationFailure.newNonRetryableFailure(t + " at offset " + s.offset + " of " + offset
          + " at the deadline", "DragonflySyncTimeout");
    }
    s.offset = Math.max(s.offset, offset);
    return new SyncResult(s.offset, offset);
  }

  @Override
  public Promotion promote(StoreTarget target, StoreTarget master, Duration timeout) {
    calls.add("promote " + target.site() + " from " + master.site());
    Store s = reach(target);
    if (s.takeoverFails) {
      throw ApplicationFailure.newNonRetryableFailure("REPLTAKEOVER: Couldn't execute takeover",
          "DragonflyPromotionFailed");
    }
    Store old = reach(master);
    s.role = StoreState.MASTER;
    s.master = null;
    old.role = StoreState.REPLICA;
    old.master = target.site();
    return new Promotion(target.site(), flavor, "dragonfly".equals(flavor) ? "REPLTAKEOVER" : "FAILOVER", "took over");
  }

  @Override
  public Promotion promoteAlone(StoreTarget target) {
    calls.add("promoteAlone " + target.site());
    Store s = reach(target);
    if (s.promoteAloneFails) {
      throw ApplicationFailure.newNonRetryableFailure("REPLICAOF NO ONE refused", "DragonflyPromotionFailed");
    }
    s.role = StoreState.MASTER;
    s.master = null;
    return new Promotion(target.site(), flavor, "REPLICAOF NO ONE", "promoted on its own");
  }

  @Override
  public void replicateFrom(StoreTarget replica, StoreTarget master) {
    calls.add("replicate " + replica.site() + " from " + master.site());
    Store s = reach(replica);
    s.role = StoreState.REPLICA;
    s.master = master.site();
  }

  @Override
  public long killClients(StoreTarget t) {
    calls.add("kill " + t.site());
    reach(t);
    return 3;
  }

  @Override
  public Promotion promoteFreshestReplica(List<StoreTarget> targets, String preferredSite) {
    calls.add("promoteFreshest " + preferredSite);
    List<StoreState> states = targets.stream().map(this::inspect).toList();
    var choice = FreshestStore.choose(states, preferredSite).orElseThrow(
        () ->
        ApplicationFailure.newNonRetryableFailure("no session store answers", "DragonflyPromotionFailed"));
    StoreTarget chosen = targets.stream().filter(t -> t.site().equals(choice.site())).findFirst().orElseThrow();
    Promotion promotion = choice.keepExistingMaster()
        ? new Promotion(chosen.site(), flavor, "NONE", "kept the reachable master") : promoteAlone(chosen);
    targets.stream().filter(t -> !t.site().equals(chosen.site()) && stores.get(t.site()) != null
        && stores.get(t.site()).reachable).forEach(t -> replicateFrom(t, chosen));
    return promotion;
  }
}
