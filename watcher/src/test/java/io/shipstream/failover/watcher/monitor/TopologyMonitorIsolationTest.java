package io.shipstream.failover.watcher.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.watcher.topology.Duties;
import io.shipstream.failover.watcher.topology.Fixtures;
import io.shipstream.failover.watcher.topology.GroupUpkeep;
import io.shipstream.failover.watcher.topology.SiteConnector;
import io.shipstream.failover.watcher.topology.TopologyMetrics;
import io.shipstream.failover.watcher.topology.VerdictReactions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One group's failure stays that group's: a poll whose bookkeeping throws is given up and the site
 * polled again, the other group is polled throughout, and a group whose resource cannot be read is
 * an InvalidSpec and nothing more.
 */
class TopologyMonitorIsolationTest {
  private static final GroupRef ORDERS = Fixtures.ORDERS;
  private static final GroupRef CARTS = new GroupRef("shop", "carts");

  private final Map<String, AtomicInteger> polls = new ConcurrentHashMap<>();
  private final Fixtures.RecordingEffects effects = new Fixtures.RecordingEffects();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final TopologyMetrics metrics = new TopologyMetrics(registry);
  private final Map<GroupRef, MysqlFailoverGroup> resources = new ConcurrentHashMap<>();
  private final List<List<Condition>> conditions = new CopyOnWriteArrayList<>();
  /** How many more look-ups of orders in the cache fail, as a cache that throws would. */
  private final AtomicInteger failingLookups = new AtomicInteger();
  private TopologyMonitor monitor;

  private final SiteConnector servers = new SiteConnector() {
    @Override
    public Probe probe(GroupRef group, GroupConfig config, SiteSpec site) {
      polls.computeIfAbsent(group.name() + "/" + site.name(), k -> new AtomicInteger()).incrementAndGet();
      boolean primary = site.name().equals("iad");
      return new Probe(site.name(), true, !primary, "0-1-10", group.name() + site.name(), !primary,
          primary ? null : 0L, null, Clock.systemUTC().instant()).withFlavor("MariaDB");
    }

    @Override
    public void fence(GroupRef group, GroupConfig config, SiteSpec site) {
      effects.fence(group, site.name());
    }
  };

  @AfterEach
  void stop() {
    if (monitor != null) {
      monitor.close();
    }
  }

  private static MysqlFailoverGroup group(GroupRef ref) {
    return Fixtures.group(ref, "iad");
  }

  private void start() {
    GroupUpkeep upkeep = new GroupUpkeep(effects, (ref, c, generation) -> conditions.add(c), Clock.systemUTC(), null,
        metrics);
    monitor = new TopologyMonitor(servers, new VerdictReactions(effects), (ref, sites) -> {}, metrics, ref -> {
      if (ref.equals(ORDERS) && failingLookups.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new IllegalStateException("the cache cannot be read right now");
      }
      return Optional.ofNullable(resources.get(ref));
    }, Clock.systemUTC(), Duties.Recovery.OFF, Duties.Startup.OFF, upkeep);
  }

  private int polls(GroupRef group, String site) {
    AtomicInteger n = polls.get(group.name() + "/" + site);
    return n == null ? 0 : n.get();
  }

  @Test
  void aPollThatFailsIsGivenUpAndTheSiteIsPolledAgain() {
    resources.put(ORDERS, group(ORDERS));
    resources.put(CARTS, group(CARTS));
    start();
    monitor.changed(ORDERS);
    monitor.changed(CARTS);
    await(() -> polls(ORDERS, "iad") >= 2 && polls(CARTS, "iad") >= 2, "two polls of each group's primary");

    // Every poll of orders asks the cache for the group first; the next dozen look-ups fail.
    failingLookups.set(12);
    await(() -> failingLookups.get() == 0, "the failing look-ups used up");
    int orders = polls(ORDERS, "iad");
    int carts = polls(CARTS, "iad");

    await(() -> polls(ORDERS, "iad") >= orders + 3 && polls(CARTS, "iad") >= carts + 3,
        "every site of both groups polled again");
    assertThat(registry.get("bloodraven_topology_pass_failures").tag("stage", "poll").counter().count())
        .isPositive();
    assertThat(effects.starts()).isEmpty();
  }

  @Test
  void aGroupThatCannotBeReadIsAnInvalidSpecAndIsNotPolled() {
    MysqlFailoverGroup bad = group(ORDERS);
    bad.setSpec(null);
    bad.markUnreadable(List.of("spec.failureThreshold: cannot be read (not an Integer)"), false);
    resources.put(ORDERS, bad);
    resources.put(CARTS, group(CARTS));
    start();
    monitor.changed(ORDERS);
    monitor.changed(CARTS);

    await(() -> !conditions.isEmpty() && polls(CARTS, "iad") >= 3, "orders' conditions and carts' polls");
    assertThat(effects.events()).anySatisfy(e -> assertThat(e).startsWith("Warning ").contains("InvalidSpec")
        .contains("spec.failureThreshold: cannot be read"));
    Condition ready = conditions.get(0).stream().filter(c -> c.getType().equals("Ready")).findFirst().orElseThrow();
    assertThat(ready.getReason()).isEqualTo("InvalidSpec");
    assertThat(polls(ORDERS, "iad")).isZero();
    assertThat(monitor.acceptedSpec(ORDERS)).isEmpty();
  }

  @Test
  void aMonitoredGroupWhoseEditCannotBeReadKeepsItsSpecAndOneWhoseStatusCannotBeReadIsLeftAlone() {
    resources.put(ORDERS, group(ORDERS));
    start();
    monitor.changed(ORDERS);
    await(() -> polls(ORDERS, "iad") >= 2, "orders polled");

    MysqlFailoverGroup edited = group(ORDERS);
    edited.setSpec(null);
    edited.markUnreadable(List.of("spec.sites[0].mysql.port: cannot be read (not an Integer)"), false);
    resources.put(ORDERS, edited);
    monitor.changed(ORDERS);
    assertThat(monitor.acceptedSpec(ORDERS)).as("still monitored with the spec accepted before").isPresent();
    int before = polls(ORDERS, "iad");
    await(() -> polls(ORDERS, "iad") >= before + 2, "orders still polled");

    MysqlFailoverGroup statusUnreadable = group(ORDERS);
    statusUnreadable.setStatus(null);
    statusUnreadable.markUnreadable(List.of("status.sites: cannot be read (not a list)"), true);
    resources.put(ORDERS, statusUnreadable);
    monitor.changed(ORDERS);
    assertThat(monitor.acceptedSpec(ORDERS)).as("nothing is decided on a status it cannot read").isEmpty();
    assertThat(effects.events()).anySatisfy(e -> assertThat(e).contains("status.sites: cannot be read"));
    // An evaluation already running when the status turned unreadable may still finish; none follows.
    sleep(500);
    int written = conditions.size();
    int polled = polls(ORDERS, "iad");
    monitor.changed(ORDERS);
    sleep(1_500);
    assertThat(conditions).as("no conditions written over a status it cannot read").hasSize(written);
    assertThat(polls(ORDERS, "iad")).as("not polled").isEqualTo(polled);
    assertThat(effects.starts()).isEmpty();
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static void await(BooleanSupplier condition, String what) {
    Fixtures.await(condition, what, Duration.ofSeconds(15));
  }
}
