package io.shipstream.failover.watcher.topology;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.model.topology.Verdict;
import io.shipstream.failover.testsupport.MockCluster;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/** A group of iad, pdx (primary-candidates) and dr (dr-only), and the probes of its servers. */
public final class Fixtures {
  public static final GroupRef ORDERS = new GroupRef("shop", "orders");
  public static final Instant NOW = Instant.parse("2025-06-01T12:00:00Z");

  private Fixtures() {}

  public static MysqlFailoverGroupSpec spec(String cooldown, List<String> priorities) {
    List<SiteSpec> sites = new ArrayList<>();
    for (String name : List.of("iad", "pdx", "dr")) {
      SiteSpec t = MockCluster.site("orders", name, "10.0.0.1");
      sites.add(new SiteSpec(name, name.equals("dr") ? SiteSpec.ROLE_DR_ONLY : t.role(), t.zone(), t.mysql(),
          t.podSelector(), t.taintNodeSelector(), t.lbIP(), null, null));
    }
    return new MysqlFailoverGroupSpec(sites, new MysqlFailoverGroupSpec.SecretRef("mysql-credentials"), "500ms", 3,
        2, cooldown, null, null, new MysqlFailoverGroupSpec.SplitBrainPolicy(priorities), null, null, null);
  }

  /** The group {@code ref} as the API server holds it: {@link #spec} without a cooldown, {@code activeSite} active. */
  public static MysqlFailoverGroup group(GroupRef ref, String activeSite) {
    MysqlFailoverGroup g = new MysqlFailoverGroup();
    g.getMetadata().setNamespace(ref.namespace());
    g.getMetadata().setName(ref.name());
    g.setSpec(spec("0s", List.of()));
    g.setStatus(MysqlFailoverGroupStatus.empty().withActiveSite(activeSite));
    return g;
  }

  /** Polls every 20 ms until {@code condition} holds; fails naming {@code what} after {@code within}. */
  public static void await(BooleanSupplier condition, String what, Duration within) {
    long until = System.nanoTime() + within.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > until) {
        throw new AssertionError("no " + what + " within " + within.toSeconds() + "s");
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  public static GroupConfig config(String cooldown, List<String> priorities) {
    return GroupConfig.resolve(spec(cooldown, priorities));
  }

  public static Probe writable(String site, String gtid) {
    return new Probe(site, true, false, gtid, site.hashCode() + "", false, null, null, NOW);
  }

  public static Probe replica(String site, String gtid) {
    return new Probe(site, true, true, gtid, site.hashCode() + "", true, 0L, null, NOW);
  }

  public static Probe dead(String site) {
    return Probe.unreachable(site, "Connection refused", NOW);
  }

  /** Records what the reactions did; a start is refused once {@link #running} is set. */
  public static class RecordingEffects implements GroupEffects {
    public final List<Verdict.Promote> starts = new ArrayList<>();
    /** The site GTID sets each start passed, in start order. */
    public final List<Map<String, String>> startSiteGtids = new ArrayList<>();
    public final List<String> fenced = new ArrayList<>();
    public final List<String> events = new ArrayList<>();
    public final List<String> activeSites = new ArrayList<>();
    /** "key=value" of every annotation removal asked for. */
    public final List<String> removedAnnotations = new ArrayList<>();
    public boolean running;
    /** What a poll right before a start finds ({@link GroupEffects#pollNow}); null: none taken. */
    public Probe beforeStart;
    /** The sites polled right before a start, in order. */
    public final List<String> polledBeforeStart = new ArrayList<>();

    /** "runId: why" of every planned run told that its source is dead. */
    public final List<String> toldSourceDied = new ArrayList<>();

    @Override
    public synchronized boolean sourceDied(GroupRef group, String runId, String why) {
      toldSourceDied.add(runId + ": " + why);
      return true;
    }

    @Override
    public synchronized Probe pollNow(GroupRef group, String site) {
      polledBeforeStart.add(site);
      return beforeStart;
    }

    @Override
    public synchronized void removeAnnotation(GroupRef group, String key, String value) {
      removedAnnotations.add(key + "=" + value);
    }

    @Override
    public synchronized boolean startEmergency(GroupRef group, Verdict.Promote promote,
        Map<String, String> siteGtids) {
      if (running) {
        return false;
      }
      starts.add(promote);
      startSiteGtids.add(siteGtids);
      running = true;
      return true;
    }

    @Override
    public synchronized boolean failoverRunning(GroupRef group) {
      return running;
    }

    @Override
    public synchronized void fence(GroupRef group, String site) {
      fenced.add(site);
    }

    @Override
    public synchronized void event(GroupRef group, String type, String reason, String message) {
      events.add(type + " " + reason + ": " + message);
    }

    @Override
    public synchronized void recordActiveSite(GroupRef group, String site) {
      activeSites.add(site);
    }

    public synchronized List<String> events() {
      return List.copyOf(events);
    }

    public synchronized List<Verdict.Promote> starts() {
      return List.copyOf(starts);
    }
  }
}
