package io.shipstream.failover.activities.dragonfly;

import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.shipstream.failover.activities.mysql.Heartbeat;
import io.shipstream.failover.workflows.activities.DragonflyActivities;
import io.shipstream.failover.workflows.activities.StoreState;
import io.shipstream.failover.workflows.activities.StoreTarget;
import io.shipstream.failover.workflows.contract.FailureTypes;
import io.shipstream.failover.workflows.dragonfly.FreshestStore;
import io.temporal.failure.ApplicationFailure;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The session store's activities on Lettuce, for Dragonfly, Redis and Valkey alike; where the
 * commands differ, the flavor the server reports decides. A server that cannot be reached is a
 * retryable failure; what the workflow must weigh (no sync, no promotion) is a non-retryable one
 * with the seed page's reason as its type.
 */
public final class DragonflyActivitiesImpl implements DragonflyActivities {
  private static final Logger log = LoggerFactory.getLogger(DragonflyActivitiesImpl.class);
  static final String SYNC_TIMEOUT = FailureTypes.DRAGONFLY_SYNC_TIMEOUT;
  static final String PROMOTION_FAILED = FailureTypes.DRAGONFLY_PROMOTION_FAILED;

  private final StoreConnections connections;
  private final Clock clock;
  private final Heartbeat heartbeat;
  private final Takeover takeover;

  public DragonflyActivitiesImpl(StoreConnections connections, Clock clock) {
    this(connections, clock, Heartbeat.temporal());
  }

  public DragonflyActivitiesImpl(StoreConnections connections, Clock clock, Heartbeat heartbeat) {
    this.connections = Objects.requireNonNull(connections, "connections");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.heartbeat = Objects.requireNonNull(heartbeat, "heartbeat");
    this.takeover = new Takeover(connections, heartbeat);
  }

  @Override
  public StoreState inspect(StoreTarget store) {
    try {
      return info(store).toState(store.site());
    } catch (ApplicationFailure e) {
      return StoreState.unreachable(store.site(), e.getOriginalMessage());
    }
  }

  @Override
  public long captureOffset(StoreTarget master) {
    StoreInfo info = info(master);
    if (!info.isMaster()) {
      throw ApplicationFailure.newNonRetryableFailure("the " + master + " is not a master but a " + info.role()
          + " of " + info.masterHost() + ":" + info.masterPort(), FailureTypes.STORE_NOT_MASTER);
    }
    return info.offset();
  }

  @Override
  public SyncResult waitForOffset(StoreTarget replica, long offset, Instant deadline) {
    String last = "not asked yet";
    while (true) {
      try {
        StoreInfo info = info(replica);
        if (info.isReplica() && info.linkUp() && (offset < 0 || info.offset() >= offset)) {
          return new SyncResult(info.offset(), offset);
        }
        last = info.isReplica() ? "at offset " + info.offset() + " of " + offset + ", link "
            + (info.linkUp() ? "up" : "down or syncing") : "a " + info.role() + ", not a replica";
      } catch (ApplicationFailure e) {
        last = e.getOriginalMessage();
      }
      if (!clock.instant().isBefore(deadline)) {
        throw ApplicationFailure.newNonRetryableFailure("the " + replica + " is " + last + " at the deadline",
            SYNC_TIMEOUT);
      }
      heartbeat.beat(last);
      Takeover.sleep(50);
    }
  }

  @Override
  public Promotion promote(StoreTarget target, StoreTarget master, Duration timeout) {
    StoreInfo before = info(target);
    String method = before.flavor().equals(StoreInfo.DRAGONFLY) ? "REPLTAKEOVER" : "FAILOVER";
    if (before.isMaster()) {
      // A retry after the takeover happened: fine as long as the old master gave up its role.
      StoreState old = inspect(master);
      if (old.isMaster()) {
        throw ApplicationFailure.newNonRetryableFailure("both the " + target + " and the " + master
            + " are masters: refusing to pick one", PROMOTION_FAILED);
      }
      return new Promotion(target.site(), before.flavor(), method, "already master");
    }
    if (!before.isReplica()) {
      throw ApplicationFailure.newNonRetryableFailure("the " + target + " reports no role", PROMOTION_FAILED);
    }
    try {
      if (method.equals("REPLTAKEOVER")) {
        takeover.replTakeover(target, timeout);
      } else {
        takeover.failover(target, master, timeout);
      }
    } catch (IllegalStateException | RedisException e) {
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), PROMOTION_FAILED);
    }
    StoreInfo after = info(target);
    if (!after.isMaster()) {
      throw ApplicationFailure.newNonRetryableFailure(method + " did not make the " + target + " master within "
          + timeout.toMillis() + " ms (it is still a " + after.role() + "): the replica did not catch up in time "
          + "or the master refused; the master keeps its role", PROMOTION_FAILED);
    }
    log.info("{} is the session store master after {}", target, method);
    return new Promotion(target.site(), after.flavor(), method, "took over from the " + master);
  }

  @Override
  public Promotion promoteAlone(StoreTarget target) {
    StoreInfo info = info(target);
    if (!info.isMaster()) {
      try {
        call(target, RedisCommands::replicaofNoOne);
      } catch (ApplicationFailure e) {
        throw ApplicationFailure.newNonRetryableFailure("REPLICAOF NO ONE on the " + target + " failed: "
            + e.getOriginalMessage(), PROMOTION_FAILED);
      }
      info = info(target);
      if (!info.isMaster()) {
        throw ApplicationFailure.newNonRetryableFailure("the " + target + " is still a " + info.role()
            + " after REPLICAOF NO ONE", PROMOTION_FAILED);
      }
      log.info("{} promoted on its own (REPLICAOF NO ONE)", target);
    }
    return new Promotion(target.site(), info.flavor(), "REPLICAOF NO ONE", "promoted on its own");
  }

  @Override
  public void replicateFrom(StoreTarget replica, StoreTarget master) {
    StoreInfo info = info(replica);
    if (info.isReplica() && master.host().equals(info.masterHost()) && Integer.valueOf(master.port())
        .equals(info.masterPort())) {
      return;
    }
    call(replica, c -> c.replicaof(master.host(), master.port()));
    log.info("{} now replicates from {}", replica, master);
  }

  @Override
  public long killClients(StoreTarget store) {
    try {
      return call(store, c -> c.clientKill(KillArgs.Builder.typeNormal()));
    } catch (ApplicationFailure e) {
      // A server without CLIENT KILL TYPE: each application client by address instead, sparing
      // this connection and the replication links.
      log.info("CLIENT KILL TYPE normal refused by the {} ({}); killing clients one by one", store,
          e.getOriginalMessage());
      return call(store, c -> {
        String self = c.clientInfo();
        long killed = 0;
        for (String line : c.clientList().split("\r?\n")) {
          String addr = field(line, "addr");
          String flags = field(line, "flags");
          if (addr != null && !self.contains("addr=" + addr + " ") && (flags == null || !flags.matches(".*[MS].*"))) {
            killed += "OK".equalsIgnoreCase(c.clientKill(addr)) ? 1 : 0;
          }
        }
        return killed;
      });
    }
  }

  @Override
  public Promotion promoteFreshestReplica(List<StoreTarget> stores, String preferredSite) {
    List<StoreState> states = new ArrayList<>();
    for (StoreTarget store : stores) {
      states.add(inspect(store));
    }
    var choice = FreshestStore.choose(states, preferredSite).orElseThrow(() -> ApplicationFailure
        .newNonRetryableFailure("no session store answers: " + states, PROMOTION_FAILED));
    StoreTarget chosen = stores.stream().filter(s -> s.site().equals(choice.site())).findFirst().orElseThrow();
    Promotion promotion = choice.keepExistingMaster()
        ? new Promotion(chosen.site(), null, "NONE", "no replica answers; the reachable master is kept")
        : promoteAlone(chosen);
    for (int i = 0; i < stores.size(); i++) {
      StoreTarget other = stores.get(i);
      if (!other.site().equals(chosen.site()) && states.get(i).reachable()) {
        try {
          replicateFrom(other, chosen);
        } catch (ApplicationFailure e) {
          log.warn("{} not re-pointed at {}: {}", other, chosen, e.getOriginalMessage());
        }
      }
    }
    return promotion;
  }

  private StoreInfo info(StoreTarget store) {
    return StoreInfo.parse(call(store, RedisCommands::info));
  }

  /** One command on a fresh connection; any failure is a retryable ApplicationFailure naming the store. */
  private <T> T call(StoreTarget store, Function<RedisCommands<String, String>, T> command) {
    try (StatefulRedisConnection<String, String> c = connections.open(store)) {
      return command.apply(c.sync());
    } catch (RedisException e) {
      String message = e.getCause() == null || e.getCause().getMessage() == null ? e.getMessage()
          : e.getMessage() + ": " + e.getCause().getMessage();
      throw ApplicationFailure.newFailure("the " + store + ": " + message, FailureTypes.STORE_UNAVAILABLE);
    }
  }

  private static String field(String clientLine, String name) {
    for (String part : clientLine.split(" ")) {
      if (part.startsWith(name + "=")) {
        return part.substring(name.length() + 1);
      }
    }
    return null;
  }
}
