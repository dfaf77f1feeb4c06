package io.shipstream.failover.model;

import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.SiteSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The spec with every default applied and every duration parsed: what the workflows and the
 * watcher actually act on. Built by {@link #resolve}, which collects every problem at once so a
 * user fixes the resource in one edit instead of one error per reconcile.
 */
public record GroupConfig(
    List<SiteSpec> sites,
    String credentialsSecret,
    Duration pollInterval,
    int failureThreshold,
    int recoveryThreshold,
    Duration failoverCooldown,
    Duration connectionDrainTimeout,
    Duration maxLagWait,
    Duration drainTimeout,
    OnCooldown onCooldown,
    List<String> sitePriorities,
    String dnsHostname,
    int dnsTtl,
    Duration leaseTimeout,
    Duration peerCheckInterval,
    boolean dragonflyEnabled,
    String dragonflyFlavor,
    Duration dragonflyMaxSyncWait,
    OnSyncTimeout onSyncTimeout,
    Long maxLagOnPromotion,
    Duration minSourceSilence,
    SemiSyncConfig semiSync,
    HooksConfig hooks,
    OnActiveNodeDrain onActiveNodeDrain) {

  /** The documented default of {@code spec.minSourceSilence}. */
  public static final Duration DEFAULT_MIN_SOURCE_SILENCE = Duration.ofSeconds(3);

  /** A config without a promotion lag limit and with the default {@code minSourceSilence}, without semi-synchronous replication or hooks. */
  public GroupConfig(List<SiteSpec> sites, String credentialsSecret, Duration pollInterval, int failureThreshold,
      int recoveryThreshold, Duration failoverCooldown, Duration connectionDrainTimeout, Duration maxLagWait,
      Duration drainTimeout, OnCooldown onCooldown, List<String> sitePriorities, String dnsHostname, int dnsTtl,
      Duration leaseTimeout, Duration peerCheckInterval, boolean dragonflyEnabled, String dragonflyFlavor,
      Duration dragonflyMaxSyncWait, OnSyncTimeout onSyncTimeout) {
    this(sites, credentialsSecret, pollInterval, failureThreshold, recoveryThreshold, failoverCooldown,
        connectionDrainTimeout, maxLagWait, drainTimeout, onCooldown, sitePriorities, dnsHostname, dnsTtl, leaseTimeout,
        peerCheckInterval, dragonflyEnabled, dragonflyFlavor, dragonflyMaxSyncWait, onSyncTimeout,
        null, DEFAULT_MIN_SOURCE_SILENCE, SemiSyncConfig.DISABLED, HooksConfig.NONE, OnActiveNodeDrain.none);
  }

  public enum OnCooldown { reject, defer }

  public enum OnSyncTimeout { proceed, fail }

  /**
   * {@code spec.plannedFailover.onActiveNodeDrain}: whether a cordoned node under the active site's
   * MySQL pod requests a planned failover ({@link io.shipstream.failover.model.topology.DrainSwitchover}).
   */
  public enum OnActiveNodeDrain { none, switchover }

  public static final Duration MIN_PEER_CHECK_INTERVAL = Duration.ofMillis(100);
  public static final Duration MIN_LEASE_TIMEOUT = Duration.ofSeconds(1);

  private static final Pattern SITE_NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  public Optional<SiteSpec> site(String name) {
    return sites.stream().filter(s -> s.name().equals(name)).findFirst();
  }

  public static int mysqlPort(SiteSpec site) {
    return site.mysql().port() == null ? 3306 : site.mysql().port();
  }

  /** Thrown with every problem found in a spec. */
  public static final class InvalidSpecException extends IllegalArgumentException {
    private final List<String> problems;

    public InvalidSpecException(List<String> problems) {
      super("invalid spec: " + String.join("; ", problems));
      this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
      return problems;
    }
  }

  public static GroupConfig resolve(MysqlFailoverGroupSpec spec) {
    List<String> problems = new ArrayList<>();
    if (spec == null) {
      throw new InvalidSpecException(List.of("spec is missing"));
    }
    // Not List.copyOf: it throws on a null entry (a stray "- " in the YAML), which must be reported, not crash.
    List<SiteSpec> sites =
        spec.sites() == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(spec.sites()));
    checkSites(sites, problems);

    var pf = spec.plannedFailover();
    var sb = spec.splitBrainPolicy();
    var dns = spec.dns();
    var sc = spec.sidecar();
    var df = spec.dragonfly();
    var dfp = df == null ? null : df.plannedFailover();

    Duration poll = duration("pollInterval", spec.pollInterval(), "2s", problems);
    int failureThreshold = positive("failureThreshold", spec.failureThreshold(), 3, problems);
    int recoveryThreshold = positive("recoveryThreshold", spec.recoveryThreshold(), 2, problems);
    Duration cooldown = durationAllowZero("failoverCooldown", spec.failoverCooldown(), "5m", problems);
    Duration connDrain = duration("connectionDrainTimeout", spec.connectionDrainTimeout(), "30s", problems);
    Duration maxLagWait = duration("plannedFailover.maxLagWait", pf == null ? null : pf.maxLagWait(), "5m", problems);
    Duration drainTimeout =
        duration("plannedFailover.drainTimeout", pf == null ? null : pf.drainTimeout(), "30s", problems);
    OnCooldown onCooldown = choice("plannedFailover.onCooldown", pf == null ? null : pf.onCooldown(),
        OnCooldown.reject, OnCooldown::valueOf, problems);
    OnActiveNodeDrain onActiveNodeDrain = choice("plannedFailover.onActiveNodeDrain",
        pf == null ? null : pf.onActiveNodeDrain(), OnActiveNodeDrain.none, OnActiveNodeDrain::valueOf, problems);
    List<String> priorities = sb == null || sb.sitePriorities() == null ? List.of()
        : Collections.unmodifiableList(new ArrayList<>(sb.sitePriorities()));
    Set<String> prioritised = new HashSet<>();
    for (String p : priorities) {
      if (sites.stream().noneMatch(s -> s != null && Objects.equals(p, s.name()))) {
        problems.add("splitBrainPolicy.sitePriorities names unknown site '" + p + "'");
      } else if (!prioritised.add(p)) {
        problems.add("splitBrainPolicy.sitePriorities names site '" + p + "' twice");
      }
    }
    int ttl = positive("dns.ttl", dns == null ? null : dns.ttl(), 60, problems);
    Duration lease = duration("sidecar.leaseTimeout", sc == null ? null : sc.leaseTimeout(), "20s", problems);
    Duration peerCheck =
        duration("sidecar.peerCheckInterval", sc == null ? null : sc.peerCheckInterval(), "5s", problems);
    if (lease != null && peerCheck != null) {
      if (peerCheck.compareTo(MIN_PEER_CHECK_INTERVAL) < 0) {
        problems.add("sidecar.peerCheckInterval must be at least " + Durations.format(MIN_PEER_CHECK_INTERVAL));
      }
      if (lease.compareTo(MIN_LEASE_TIMEOUT) < 0) {
        problems.add("sidecar.leaseTimeout must be at least " + Durations.format(MIN_LEASE_TIMEOUT));
      }
      if (lease.compareTo(peerCheck.multipliedBy(2)) <= 0) {
        problems.add("sidecar.leaseTimeout (" + Durations.format(lease) + ") must be more than twice "
            + "sidecar.peerCheckInterval (" + Durations.format(peerCheck) + ")");
      }
    }
    boolean dfEnabled = df != null && Boolean.TRUE.equals(df.enabled());
    String dfFlavor = df == null || df.flavor() == null ? "dragonfly" : df.flavor();
    if (!dfFlavor.equals("dragonfly") && !dfFlavor.equals("redis")) {
      problems.add("dragonfly.flavor must be dragonfly or redis, not '" + dfFlavor + "'");
    }
    Duration maxSync =
        duration("dragonfly.plannedFailover.maxSyncWait", dfp == null ? null : dfp.maxSyncWait(), "30s", problems);
    OnSyncTimeout onSync = choice("dragonfly.plannedFailover.onSyncTimeout", dfp == null ? null : dfp.onSyncTimeout(),
        OnSyncTimeout.proceed, OnSyncTimeout::valueOf, problems);
    if (dfEnabled) {
      for (SiteSpec s : sites) {
        if (s != null && s.isPrimaryCandidate() && s.dragonfly() == null) {
          problems.add("site '" + s.name() + "' has no dragonfly endpoint but dragonfly is enabled");
        }
      }
    }
    Long maxLagOnPromotion = spec.emergencyFailover() == null ? null : spec.emergencyFailover().maxLagOnPromotion();
    if (maxLagOnPromotion != null && maxLagOnPromotion < 0) {
      problems.add("emergencyFailover.maxLagOnPromotion must be 0 or more (transactions), not " + maxLagOnPromotion);
    }
    // Zero or negative is refused by duration(); it must exceed the heartbeat period too, or an idle
    // primary's replicas would look silent between two heartbeats.
    Duration minSourceSilence = duration("minSourceSilence", spec.minSourceSilence(), "3s", problems);
    if (minSourceSilence != null && minSourceSilence.compareTo(Duration.ofSeconds(1)) <= 0) {
      problems.add("minSourceSilence (" + Durations.format(minSourceSilence) + ") must be more than the 1s source "
          + "heartbeat period");
    }
    SemiSyncConfig semiSync = SemiSyncConfig.resolve(spec.semiSync(), sites, problems);
    HooksConfig hooks = HooksConfig.resolve(spec.hooks(), problems);
    // Read where it is used (kube's Secret reader); resolved here so a bad block is InvalidSpec.
    io.shipstream.failover.model.tls.TlsConfig.resolve(spec.tls(), sites, problems);
    if (!problems.isEmpty()) {
      throw new InvalidSpecException(problems);
    }
    return new GroupConfig(sites, spec.credentialsSecretRef() == null ? null : spec.credentialsSecretRef().name(),
        poll, failureThreshold, recoveryThreshold, cooldown, connDrain, maxLagWait, drainTimeout, onCooldown,
        priorities, dns == null ? null : dns.hostname(), ttl, lease, peerCheck, dfEnabled, dfFlavor, maxSync, onSync,
        maxLagOnPromotion, minSourceSilence, semiSync, hooks, onActiveNodeDrain);
  }

  private static void checkSites(List<SiteSpec> sites, List<String> problems) {
    if (sites.size() < 2 || sites.size() > 16) {
      problems.add("spec.sites must hold 2 to 16 sites, found " + sites.size());
    }
    Set<String> names = new HashSet<>();
    int candidates = 0;
    for (int i = 0; i < sites.size(); i++) {
      SiteSpec s = sites.get(i);
      String where = "sites[" + i + "]";
      if (s == null) {
        problems.add(where + " is empty");
        continue;
      }
      if (s.name() == null || s.name().isBlank()) {
        problems.add(where + ".name is required");
      } else if (!SITE_NAME.matcher(s.name()).matches()) {
        // The name is what an operator types in the planned-failover annotation, whose grammar only
        // admits DNS labels: a site named otherwise could never be the target of a planned failover.
        problems.add(where + ".name '" + s.name() + "' must be a DNS label: lower-case letters, digits and '-', "
            + "at most 63 characters");
      } else if (!names.add(s.name())) {
        problems.add("site name '" + s.name() + "' is used twice");
      } else {
        where = "site '" + s.name() + "'";
      }
      if (s.role() != null && !List.of(SiteSpec.ROLE_PRIMARY_CANDIDATE, SiteSpec.ROLE_DR_ONLY, SiteSpec.ROLE_READ_ONLY)
          .contains(s.role())) {
        problems.add(where + " has unknown role '" + s.role() + "'");
      }
      if (s.isPrimaryCandidate()) {
        candidates++;
      }
      if (s.mysql() == null || s.mysql().host() == null || s.mysql().host().isBlank()) {
        problems.add(where + ".mysql.host is required");
      } else if (s.mysql().port() != null && (s.mysql().port() < 1 || s.mysql().port() > 65535)) {
        problems.add(where + ".mysql.port " + s.mysql().port() + " is not a port");
      }
      if (s.taintNodeSelector() == null || s.taintNodeSelector().isEmpty()) {
        problems.add(where + ".taintNodeSelector is required");
      }
    }
    if (!sites.isEmpty() && candidates < 2) {
      problems.add("at least 2 sites must have role primary-candidate, found " + candidates);
    }
    checkFlavors(sites, problems);
  }

  /** The problem of a group whose sites are of both flavors, or null when they are of one. */
  public static String mixedFlavors(Map<String, String> flavorBySite) {
    Map<String, List<String>> sitesByFlavor = new TreeMap<>();
    flavorBySite.forEach((site, flavor) -> {
      if (flavor != null) {
        sitesByFlavor.computeIfAbsent(flavor, f -> new ArrayList<>()).add(site);
      }
    });
    if (sitesByFlavor.size() < 2) {
      return null;
    }
    List<String> parts = new ArrayList<>();
    sitesByFlavor.forEach((flavor, names) -> parts.add(String.join(", ", names.stream().sorted().toList()) + " "
        + (names.size() == 1 ? "is " : "are ") + flavor));
    return "a group mixes MariaDB and MySQL (" + String.join("; ", parts) + "): GTIDs of MariaDB and MySQL cannot"
        + " be compared, so no failover could tell which server holds which transactions; make a group of one flavor";
  }

  private static void checkFlavors(List<SiteSpec> sites, List<String> problems) {
    Map<String, String> declared = new LinkedHashMap<>();
    for (int i = 0; i < sites.size(); i++) {
      SiteSpec s = sites.get(i);
      if (s == null || s.flavor() == null) {
        continue;
      }
      String where = s.name() == null ? "sites[" + i + "]" : s.name();
      if (!List.of(SiteSpec.FLAVOR_MYSQL, SiteSpec.FLAVOR_MARIADB).contains(s.flavor())) {
        problems.add("site '" + where + "' has unknown flavor '" + s.flavor() + "' (mysql or mariadb)");
      } else {
        declared.put(where, s.flavor());
      }
    }
    String mixed = mixedFlavors(declared);
    if (mixed != null) {
      problems.add(mixed);
    }
  }

  private static Duration duration(String field, String value, String dflt, List<String> problems) {
    Duration d = durationAllowZero(field, value, dflt, problems);
    if (d != null && d.isZero()) {
      problems.add(field + " must be greater than 0");
      return null;
    }
    return d;
  }

  private static Duration durationAllowZero(String field, String value, String dflt, List<String> problems) {
    try {
      return Durations.parse(value == null ? dflt : value);
    } catch (IllegalArgumentException e) {
      problems.add(field + ": " + e.getMessage());
      return null;
    }
  }

  private static int positive(String field, Integer value, int dflt, List<String> problems) {
    if (value == null) {
      return dflt;
    }
    if (value < 1) {
      problems.add(field + " must be at least 1, not " + value);
    }
    return value;
  }

  private static <E extends Enum<E>> E choice(String field, String value, E dflt, Function<String, E> parse,
      List<String> problems) {
    if (value == null) {
      return dflt;
    }
    try {
      return parse.apply(value);
    } catch (IllegalArgumentException e) {
      problems.add(
          field + " must be one of " + List.of(dflt.getDeclaringClass().getEnumConstants()) + ", not '" + value + "'");
      return dflt;
    }
  }
}
