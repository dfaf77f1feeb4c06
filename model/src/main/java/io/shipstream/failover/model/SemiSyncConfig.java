package io.shipstream.failover.model;

import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.SemiSyncSpec;
import io.shipstream.failover.model.crd.SiteSpec;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * {@code spec.semiSync} with its defaults applied: whether the primary's commits wait for replicas
 * to acknowledge them, and how. Disabled (the default) means the product leaves the servers'
 * semi-synchronous settings alone.
 *
 * @param enabled whether the watcher keeps the servers' semi-sync settings as this says
 * @param durability {@code preferred}: the wait count follows the healthy acknowledging replicas, never
 *     below one; {@code required}: pinned at {@code minSyncReplicas}
 * @param timeout how long a commit waits for acknowledgements before the primary falls back to
 *     asynchronous replication (default 10 s, the servers' own default)
 * @param minSyncReplicas how many replicas must acknowledge a commit (MariaDB waits for one)
 * @param ackFrom which replicas acknowledge: the primary-candidates (default) or every site
 */
public record SemiSyncConfig(boolean enabled, Durability durability, Duration timeout, int minSyncReplicas,
    AckFrom ackFrom) {

  public enum Durability { preferred, required }

  public enum AckFrom { primaryCandidates, all }

  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
  public static final SemiSyncConfig DISABLED =
      new SemiSyncConfig(false, Durability.preferred, DEFAULT_TIMEOUT, 1, AckFrom.primaryCandidates);

  /** Whether {@code site}'s server acknowledges commits (has the replica side on) while it is a replica. */
  public boolean acknowledges(SiteSpec site) {
    return ackFrom == AckFrom.all || site.isPrimaryCandidate();
  }

  /** How many replicas can acknowledge while any one acknowledging site is primary. */
  public long eligibleReplicas(List<SiteSpec> sites) {
    return Math.max(0, sites.stream().filter(s -> s != null && acknowledges(s)).count() - 1);
  }

  /**
   * The problem of a {@code minSyncReplicas} the servers cannot honour, or null: more than one on
   * MariaDB, which waits for one acknowledgement whatever is asked. {@code flavor} is the group's
   * flavor as declared or detected ("MariaDB", "mariadb", "MySQL", ...), null while unknown.
   */
  public String flavorProblem(String flavor) {
    if (!enabled || minSyncReplicas <= 1 || flavor == null
        || !flavor.toLowerCase(Locale.ROOT).equals(SiteSpec.FLAVOR_MARIADB)) {
      return null;
    }
    return "semiSync.minSyncReplicas is " + minSyncReplicas + " but MariaDB waits for exactly one replica's "
        + "acknowledgement (it has no wait count); set it to 1";
  }

  /** Resolves {@code spec.semiSync}, adding every problem to {@code problems}. */
  static SemiSyncConfig resolve(SemiSyncSpec spec, List<SiteSpec> sites, List<String> problems) {
    if (spec == null) {
      return DISABLED;
    }
    boolean enabled = Boolean.TRUE.equals(spec.enabled());
    Durability durability = Durability.preferred;
    if (spec.dataDurability() != null) {
      try {
        durability = Durability.valueOf(spec.dataDurability());
      } catch (IllegalArgumentException e) {
        problems.add("semiSync.dataDurability must be preferred or required, not '" + spec.dataDurability() + "'");
      }
    }
    AckFrom ackFrom = AckFrom.primaryCandidates;
    if (spec.ackFrom() != null) {
      try {
        ackFrom = AckFrom.valueOf(spec.ackFrom());
      } catch (IllegalArgumentException e) {
        problems.add("semiSync.ackFrom must be primaryCandidates or all, not '" + spec.ackFrom() + "'");
      }
    }
    Duration timeout = DEFAULT_TIMEOUT;
    if (spec.timeout() != null) {
      try {
        timeout = Durations.parse(spec.timeout());
        if (timeout.isZero()) {
          problems.add("semiSync.timeout must be greater than 0");
        }
      } catch (IllegalArgumentException e) {
        problems.add("semiSync.timeout: " + e.getMessage());
      }
    }
    int min = spec.minSyncReplicas() == null ? 1 : spec.minSyncReplicas();
    SemiSyncConfig config = new SemiSyncConfig(enabled, durability, timeout, min, ackFrom);
    if (min < 1) {
      problems.add("semiSync.minSyncReplicas must be at least 1, not " + min);
    } else if (enabled) {
      long eligible = config.eligibleReplicas(sites);
      if (min > eligible) {
        problems.add("semiSync.minSyncReplicas is " + min + " but only " + eligible + " replica(s) can acknowledge ("
            + (ackFrom == AckFrom.all ? "every site but the primary" : "the primary-candidates but the primary; "
                + "ackFrom: all counts the other sites too")
            + ")");
      }
      String declared = sites.stream().filter(s -> s != null && s.flavor() != null).map(SiteSpec::flavor)
          .findFirst().orElse(null);
      String flavorProblem = config.flavorProblem(declared);
      if (flavorProblem != null) {
        problems.add(flavorProblem);
      }
    }
    return config;
  }
}
