package io.shipstream.failover.watcher.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.watcher.topology.Fixtures;
import io.shipstream.failover.watcher.topology.SiteConnector;
import io.shipstream.failover.watcher.topology.TopologyMetrics;
import io.shipstream.failover.watcher.topology.VerdictReactions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The monitor's poll threads against polls that block (a region outage: every {@code dr} site
 * black-holed), and what it keeps per group forgotten when the group is no longer watched.
 */
class TopologyMonitorPoolTest {
  /** More than the eight poll threads the monitor had: blocked polls then starved every other site. */
  private static final int GROUPS = 24;

  private final CountDownLatch outageEnds = new CountDownLatch(1);
  private final AtomicInteger blocked = new AtomicInteger();
  private final Map<String, AtomicInteger> polls = new ConcurrentHashMap<>();
  private final Set<GroupRef> forgotten = ConcurrentHashMap.newKeySet();

  private final SiteConnector servers = new SiteConnector() {
    @Override
    public Probe probe(GroupRef group, GroupConfig config, SiteSpec site) {
      polls.computeIfAbsent(group.name() + "/" + site.name(), k -> new AtomicInteger()).incrementAndGet();
      if (site.name().equals("dr")) {
        blocked.incrementAndGet();
        try {
          outageEnds.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } finally {
          blocked.decrementAndGet();
        }
        return Probe.unreachable(site.name(), "Read timed out", Clock.systemUTC().instant());
      }
      boolean primary = site.name().equals("iad");
      return new Probe(site.name(), true, !primary, "0-1-10", site.name(), !primary, primary ? null : 0L, null,
          Clock.systemUTC().instant());
    }

    @Override
    public void fence(GroupRef group, GroupConfig config, SiteSpec site) {}

    @Override
    public void forget(GroupRef group) {
      forgotten.add(group);
    }
  };

  private static MysqlFailoverGroup group(GroupRef ref) {
    return Fixtures.group(ref, "iad");
  }

  @Test
  void pollsBlockedOnADeadRegionDoNotStarveTheHealthySitesAndAStoppedGroupIsForgotten() {
    Map<GroupRef, MysqlFailoverGroup> groups = new ConcurrentHashMap<>();
    for (int i = 0; i < GROUPS; i++) {
      GroupRef ref = new GroupRef("shop", "g" + i);
      groups.put(ref, group(ref));
    }
    TopologyMonitor monitor = new TopologyMonitor(servers, new VerdictReactions(new Fixtures.RecordingEffects()),
        (ref, sites) -> {}, new TopologyMetrics(new SimpleMeterRegistry()),
        ref -> Optional.ofNullable(groups.get(ref)), Clock.systemUTC());
    try {
      groups.values().forEach(monitor::onAdd);
      await(() -> blocked.get() == GROUPS, "every dr poll blocked");
      // While all of them block, every healthy site keeps being polled (500 ms polls).
      Map<String, Integer> seen = new ConcurrentHashMap<>();
      polls.forEach((site, n) -> seen.put(site, n.get()));
      await(
          () -> groups.keySet().stream()
              .allMatch(ref -> List.of("iad", "pdx").stream().allMatch(
                  site ->
          count(ref.name() + "/" + site) >= seen.getOrDefault(ref.name() + "/" + site, 0) + 3)),
          "three more polls of every healthy site while " + GROUPS + " polls block");
      assertThat(blocked.get()).isEqualTo(GROUPS);

      GroupRef stopped = new GroupRef("shop", "g0");
      groups.remove(stopped);
      monitor.deleted(stopped);
      assertThat(forgotten).containsExactly(stopped);
    } finally {
      outageEnds.countDown();
      monitor.close();
    }
    assertThat(forgotten).hasSize(GROUPS);
  }

  private int count(String site) {
    AtomicInteger n = polls.get(site);
    return n == null ? 0 : n.get();
  }

  private static void await(BooleanSupplier condition, String what) {
    Fixtures.await(condition, what, Duration.ofSeconds(30));
  }
}
