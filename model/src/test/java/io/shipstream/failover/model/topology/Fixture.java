package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.Specs;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.SiteSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Groups, probes and observations for the topology tests, built the way the watcher builds them. */
final class Fixture {
  static final Instant T0 = Instant.parse("2025-03-01T12:00:00Z");

  static final String UUID_A = "aaaaaaaa-0000-0000-0000-000000000001";
  static final String UUID_B = "bbbbbbbb-0000-0000-0000-000000000002";
  static final String UUID_C = "cccccccc-0000-0000-0000-000000000003";

  private Fixture() {}

  static SiteSpec candidate(String name) {
    return Specs.site(name, SiteSpec.ROLE_PRIMARY_CANDIDATE);
  }

  static SiteSpec drOnly(String name) {
    return Specs.site(name, SiteSpec.ROLE_DR_ONLY);
  }

  static SiteSpec readOnlyRole(String name) {
    return Specs.site(name, SiteSpec.ROLE_READ_ONLY);
  }

  /** A group of primary-candidates with default knobs (cooldown 5m, no sitePriorities). */
  static GroupConfig group(String... candidates) {
    return group(List.of(candidates).stream().map(Fixture::candidate).toList(), List.of(), null);
  }

  /** A group of these sites, in this order, with default knobs (cooldown 5m, no sitePriorities). */
  static GroupConfig group(SiteSpec... sites) {
    return group(List.of(sites), List.of(), null);
  }

  static GroupConfig group(List<SiteSpec> sites, List<String> sitePriorities, String cooldown) {
    MysqlFailoverGroupSpec spec = new MysqlFailoverGroupSpec(sites, null, null, null, null, cooldown, null, null,
        sitePriorities.isEmpty() ? null : new MysqlFailoverGroupSpec.SplitBrainPolicy(sitePriorities), null, null,
        null);
    return GroupConfig.resolve(spec);
  }

  static Probe writableProbe(String site, String gtid) {
    return new Probe(site, true, false, gtid, null, false, null, null, T0);
  }

  static Probe readOnlyProbe(String site, String gtid, String serverId, boolean replicating) {
    return new Probe(site, true, true, gtid, serverId, replicating, replicating ? 0L : null, null, T0);
  }

  static SiteObservation writable(String site) {
    return writable(site, "");
  }

  static SiteObservation writable(String site, String gtid) {
    Probe p = writableProbe(site, gtid);
    return new SiteObservation(SiteState.WRITABLE, p, p);
  }

  static SiteObservation replica(String site, String gtid) {
    return replica(site, gtid, null);
  }

  static SiteObservation replica(String site, String gtid, String serverId) {
    Probe p = readOnlyProbe(site, gtid, serverId, true);
    return new SiteObservation(SiteState.READ_ONLY, p, p);
  }

  static SiteObservation stoppedReplica(String site, String gtid) {
    Probe p = readOnlyProbe(site, gtid, null, false);
    return new SiteObservation(SiteState.READ_ONLY, p, p);
  }

  /** A read-only replica whose SQL thread has {@code sqlError} as its last error ({@code running}: it still runs). */
  static SiteObservation sqlBrokenReplica(String site, String gtid, boolean running, String sqlError) {
    Probe p = readOnlyProbe(site, gtid, null, false).withSourceSql(running, sqlError);
    return new SiteObservation(SiteState.READ_ONLY, p, p);
  }

  /** Debounced unreachable; it was last seen writable with {@code lastGtid} (null: never seen). */
  static SiteObservation down(String site, String lastGtid) {
    return new SiteObservation(SiteState.UNREACHABLE, Probe.unreachable(site, "connect timed out", T0),
        lastGtid == null ? null : writableProbe(site, lastGtid));
  }

  static SiteObservation down(String site) {
    return down(site, null);
  }

  /** Builds a {@link TopologyMatrix.Input} step by step. */
  static final class Scenario {
    private final GroupConfig config;
    private final Map<String, SiteObservation> sites = new HashMap<>();
    private String activeSite;
    private Instant lastFailover;
    private String lastFailoverTarget;
    private boolean running;
    private Instant now = T0;
    private List<String> fenced = List.of();
    private Instant unfencedAt;

    private Scenario(GroupConfig config) {
      this.config = config;
    }

    static Scenario of(GroupConfig config) {
      return new Scenario(config);
    }

    Scenario site(String name, SiteObservation o) {
      sites.put(name, o);
      return this;
    }

    Scenario sites(SiteObservation... observations) {
      for (SiteObservation o : observations) {
        String name = o.latest() != null ? o.latest().site() : o.lastReachable().site();
        sites.put(name, o);
      }
      return this;
    }

    Scenario active(String site) {
      activeSite = site;
      return this;
    }

    Scenario lastFailover(Instant at, String target) {
      lastFailover = at;
      lastFailoverTarget = target;
      return this;
    }

    Scenario fenced(String... sites) {
      fenced = List.of(sites);
      return this;
    }

    /** The watcher made the active site writable at {@code at}, as a DBA unfenced it. */
    Scenario unfencedAt(Instant at) {
      unfencedAt = at;
      return this;
    }

    Scenario running() {
      running = true;
      return this;
    }

    Scenario at(Instant instant) {
      now = instant;
      return this;
    }

    Scenario after(Duration d) {
      now = T0.plus(d);
      return this;
    }

    TopologyMatrix.Input input() {
      return new TopologyMatrix.Input(config, sites, activeSite, lastFailover, lastFailoverTarget, running, now)
          .withFenced(fenced).withUnfencedAt(unfencedAt);
    }

    Verdict evaluate() {
      return TopologyMatrix.evaluate(input());
    }
  }

  static List<String> names(int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add("s" + i);
    }
    return out;
  }
}
