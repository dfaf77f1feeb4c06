package io.shipstream.failover.watcher.monitor;

import static io.shipstream.failover.watcher.topology.Fixtures.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.watcher.topology.Fixtures;
import io.shipstream.failover.watcher.topology.GroupMemory;
import io.shipstream.failover.watcher.topology.SiteConnector;
import io.shipstream.failover.watcher.topology.TopologyMetrics;
import io.shipstream.failover.watcher.topology.VerdictReactions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the pass's steps keep about a group lives in its one {@link GroupMemory}: made when the
 * group's polls start, the same one pass after pass, a new one when a spec change restarts the
 * polls, and gone with the group once it is no longer watched.
 */
class GroupMemoryLifecycleTest {
  private final Map<GroupRef, MysqlFailoverGroup> resources = new ConcurrentHashMap<>();
  private final AtomicInteger polls = new AtomicInteger();
  private final SiteConnector servers = new SiteConnector() {
    @Override
    public Probe probe(GroupRef group, GroupConfig config, SiteSpec site) {
      polls.incrementAndGet();
      boolean primary = site.name().equals("iad");
      return new Probe(site.name(), true, !primary, "0-1-10", site.name(), !primary, primary ? null : 0L, null,
          Clock.systemUTC().instant());
    }

    @Override
    public void fence(GroupRef group, GroupConfig config, SiteSpec site) {}
  };
  private final TopologyMonitor monitor = new TopologyMonitor(servers,
      new VerdictReactions(new Fixtures.RecordingEffects()), (ref, sites) -> {},
      new TopologyMetrics(new SimpleMeterRegistry()), ref -> Optional.ofNullable(resources.get(ref)),
      Clock.systemUTC());

  @AfterEach
  void close() {
    monitor.close();
  }

  private GroupMemory memory() {
    return monitor.watched(ORDERS).map(w -> w.memory).orElse(null);
  }

  @Test
  void aGroupsMemoryIsMadeWithItsPollsKeptAcrossPassesAndDroppedWithThem() {
    MysqlFailoverGroup g = Fixtures.group(ORDERS, "iad");
    resources.put(ORDERS, g);
    assertThat(memory()).as("not watched yet").isNull();

    monitor.onAdd(g);
    GroupMemory first = memory();
    assertThat(first).as("made when the polls start").isNotNull();
    int seen = polls.get();
    Fixtures.await(() -> polls.get() >= seen + 6, "two more polls of every site", Duration.ofSeconds(10));
    monitor.changed(ORDERS);
    assertThat(memory()).as("the same across passes and unchanged specs").isSameAs(first);

    g.setSpec(Fixtures.spec("30s", List.of()));
    monitor.changed(ORDERS);
    GroupMemory restarted = memory();
    assertThat(restarted).as("a spec change restarts the polls with a new memory").isNotNull().isNotSameAs(first);

    resources.remove(ORDERS);
    monitor.deleted(ORDERS);
    assertThat(memory()).as("dropped with the group").isNull();
  }
}
