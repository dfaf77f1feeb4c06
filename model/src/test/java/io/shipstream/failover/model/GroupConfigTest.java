package io.shipstream.failover.model;

import static io.shipstream.failover.model.Specs.minimal;
import static io.shipstream.failover.model.Specs.site;
import static io.shipstream.failover.model.Specs.withSites;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.shipstream.failover.model.GroupConfig.InvalidSpecException;
import io.shipstream.failover.model.GroupConfig.OnCooldown;
import io.shipstream.failover.model.GroupConfig.OnSyncTimeout;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.DnsSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.DragonflyPlannedFailoverSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.DragonflySpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.PlannedFailoverSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.SecretRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.SidecarSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.SplitBrainPolicy;
import io.shipstream.failover.model.crd.SiteSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class GroupConfigTest {

  private static List<String> problems(MysqlFailoverGroupSpec spec) {
    return catchThrowableOfType(InvalidSpecException.class, () -> GroupConfig.resolve(spec)).problems();
  }

  private static MysqlFailoverGroupSpec spec(List<SiteSpec> sites, String poll, Integer failures, Integer recoveries,
      String cooldown, String connDrain, PlannedFailoverSpec planned, SplitBrainPolicy policy, DnsSpec dns,
      SidecarSpec sidecar, DragonflySpec dragonfly) {
    return new MysqlFailoverGroupSpec(sites, new SecretRef("creds"), poll, failures, recoveries, cooldown, connDrain,
        planned, policy, dns, sidecar, dragonfly);
  }

  @Test
  void aMinimalSpecGetsEveryDocumentedDefault() {
    GroupConfig config = GroupConfig.resolve(minimal());

    assertThat(config.sites()).extracting(SiteSpec::name).containsExactly("iad", "pdx");
    assertThat(config.sites()).allMatch(SiteSpec::isPrimaryCandidate);
    assertThat(GroupConfig.mysqlPort(config.sites().get(0))).isEqualTo(3306);
    assertThat(config.credentialsSecret()).isNull();
    assertThat(config.pollInterval()).isEqualTo(Duration.ofSeconds(2));
    assertThat(config.failureThreshold()).isEqualTo(3);
    assertThat(config.recoveryThreshold()).isEqualTo(2);
    assertThat(config.failoverCooldown()).isEqualTo(Duration.ofMinutes(5));
    assertThat(config.connectionDrainTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.maxLagWait()).isEqualTo(Duration.ofMinutes(5));
    assertThat(config.drainTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.onCooldown()).isEqualTo(OnCooldown.reject);
    assertThat(config.onActiveNodeDrain()).as("opt-in").isEqualTo(GroupConfig.OnActiveNodeDrain.none);
    assertThat(config.sitePriorities()).isEmpty();
    assertThat(config.dnsHostname()).isNull();
    assertThat(config.dnsTtl()).isEqualTo(60);
    assertThat(config.leaseTimeout()).isEqualTo(Duration.ofSeconds(20));
    assertThat(config.peerCheckInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.dragonflyEnabled()).isFalse();
    assertThat(config.dragonflyFlavor()).isEqualTo("dragonfly");
    assertThat(config.dragonflyMaxSyncWait()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.onSyncTimeout()).isEqualTo(OnSyncTimeout.proceed);
  }

  @Test
  void whatTheUserWroteWinsOverTheDefaults() {
    List<SiteSpec> sites = List.of(
        new SiteSpec("iad", "primary-candidate", "a", new SiteSpec.Endpoint("iad.db", 3307), null, Map.of("z", "a"),
            null, null, new SiteSpec.Endpoint("iad.df", 6379)),
        new SiteSpec("pdx", "primary-candidate", "b", new SiteSpec.Endpoint("pdx.db", null), null, Map.of("z", "b"),
            null, null, new SiteSpec.Endpoint("pdx.df", 6379)),
        site("dr", "dr-only"));

    GroupConfig config = GroupConfig.resolve(spec(sites, "500ms", 5, 4, "0s", "1m",
        new PlannedFailoverSpec("30s", "10s", "defer", "switchover"), new SplitBrainPolicy(List.of("pdx", "iad")),
        new DnsSpec("db.example.com", 5), new SidecarSpec("3s", "1s"),
        new DragonflySpec(true, "redis", new DragonflyPlannedFailoverSpec("1m30s", "fail"))));

    assertThat(config.credentialsSecret()).isEqualTo("creds");
    assertThat(GroupConfig.mysqlPort(config.site("iad").orElseThrow())).isEqualTo(3307);
    assertThat(config.site("dr").orElseThrow().isPrimaryCandidate()).isFalse();
    assertThat(config.site("nowhere")).isEmpty();
    assertThat(config.pollInterval()).isEqualTo(Duration.ofMillis(500));
    assertThat(config.failureThreshold()).isEqualTo(5);
    assertThat(config.recoveryThreshold()).isEqualTo(4);
    assertThat(config.failoverCooldown()).as("0s switches the anti-flap cooldown off").isZero();
    assertThat(config.connectionDrainTimeout()).isEqualTo(Duration.ofMinutes(1));
    assertThat(config.maxLagWait()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.drainTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(config.onCooldown()).isEqualTo(OnCooldown.defer);
    assertThat(config.onActiveNodeDrain()).isEqualTo(GroupConfig.OnActiveNodeDrain.switchover);
    assertThat(config.sitePriorities()).containsExactly("pdx", "iad");
    assertThat(config.dnsHostname()).isEqualTo("db.example.com");
    assertThat(config.dnsTtl()).isEqualTo(5);
    assertThat(config.leaseTimeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(config.peerCheckInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(config.dragonflyEnabled()).isTrue();
    assertThat(config.dragonflyFlavor()).isEqualTo("redis");
    assertThat(config.dragonflyMaxSyncWait()).isEqualTo(Duration.ofSeconds(90));
    assertThat(config.onSyncTimeout()).isEqualTo(OnSyncTimeout.fail);
  }

  @Test
  void everyProblemIsReportedAtOnce() {
    List<SiteSpec> sites = new ArrayList<>();
    sites.add(site("iad", null));
    sites.add(site("iad", "primary"));
    sites.add(new SiteSpec("dr", "dr-only", null, new SiteSpec.Endpoint(" ", 70000), null, Map.of(), null, null,
        null));
    MysqlFailoverGroupSpec bad = spec(sites, "2 seconds", 0, -1, "soon", "0s",
        new PlannedFailoverSpec("0s", "abc", "later", "drain"), new SplitBrainPolicy(List.of("sfo", "iad", "iad")),
        new DnsSpec(null, 0), new SidecarSpec("10s", "5s"),
        new DragonflySpec(true, "memcached", new DragonflyPlannedFailoverSpec("0s", "retry")));

    InvalidSpecException e = catchThrowableOfType(InvalidSpecException.class, () -> GroupConfig.resolve(bad));

    assertThat(e.problems()).containsExactly(
        "site name 'iad' is used twice",
        "sites[1] has unknown role 'primary'",
        "site 'dr'.mysql.host is required",
        "site 'dr'.taintNodeSelector is required",
        "at least 2 sites must have role primary-candidate, found 1",
        "pollInterval: invalid duration '2 seconds': expected e.g. 500ms, 30s, 5m, 1h30m",
        "failureThreshold must be at least 1, not 0",
        "recoveryThreshold must be at least 1, not -1",
        "failoverCooldown: invalid duration 'soon': expected e.g. 500ms, 30s, 5m, 1h30m",
        "connectionDrainTimeout must be greater than 0",
        "plannedFailover.maxLagWait must be greater than 0",
        "plannedFailover.drainTimeout: invalid duration 'abc': expected e.g. 500ms, 30s, 5m, 1h30m",
        "plannedFailover.onCooldown must be one of [reject, defer], not 'later'",
        "plannedFailover.onActiveNodeDrain must be one of [none, switchover], not 'drain'",
        "splitBrainPolicy.sitePriorities names unknown site 'sfo'",
        "splitBrainPolicy.sitePriorities names site 'iad' twice",
        "dns.ttl must be at least 1, not 0",
        "sidecar.leaseTimeout (10s) must be more than twice sidecar.peerCheckInterval (5s)",
        "dragonfly.flavor must be dragonfly or redis, not 'memcached'",
        "dragonfly.plannedFailover.maxSyncWait must be greater than 0",
        "dragonfly.plannedFailover.onSyncTimeout must be one of [proceed, fail], not 'retry'",
        "site 'iad' has no dragonfly endpoint but dragonfly is enabled");
    assertThat(e).hasMessageStartingWith("invalid spec: site name 'iad' is used twice; sites[1] has unknown role");
  }

  @ParameterizedTest
  @ValueSource(strings = {"pollInterval", "connectionDrainTimeout", "plannedFailover.maxLagWait",
      "plannedFailover.drainTimeout", "sidecar.leaseTimeout", "sidecar.peerCheckInterval",
      "dragonfly.plannedFailover.maxSyncWait"})
  void zeroDurationsAreRefused(String field) {
    String poll = field.equals("pollInterval") ? "0s" : null;
    String drain = field.equals("connectionDrainTimeout") ? "0ms" : null;
    var planned = new PlannedFailoverSpec(field.equals("plannedFailover.maxLagWait") ? "0s" : null,
        field.equals("plannedFailover.drainTimeout") ? "0m" : null, null);
    var sidecar = new SidecarSpec(field.equals("sidecar.leaseTimeout") ? "0s" : null,
        field.equals("sidecar.peerCheckInterval") ? "0h" : null);
    var dragonfly = new DragonflySpec(null, null,
        new DragonflyPlannedFailoverSpec(field.equals("dragonfly.plannedFailover.maxSyncWait") ? "0s" : null, null));

    assertThat(problems(spec(minimal().sites(), poll, null, null, null, drain, planned, null, null, sidecar,
        dragonfly))).containsExactly(field + " must be greater than 0");
  }

  @Test
  void leaseTimeoutMustBeMoreThanTwicePeerCheckInterval() {
    assertThat(problems(spec(minimal().sites(), null, null, null, null, null, null, null, null,
        new SidecarSpec("10s", "5s"), null)))
        .containsExactly("sidecar.leaseTimeout (10s) must be more than twice sidecar.peerCheckInterval (5s)");
    assertThat(problems(spec(minimal().sites(), null, null, null, null, null, null, null, null,
        new SidecarSpec(null, "10s"), null)))
        .as("the default lease of 20s against a longer peer check")
        .containsExactly("sidecar.leaseTimeout (20s) must be more than twice sidecar.peerCheckInterval (10s)");
    assertThat(GroupConfig.resolve(spec(minimal().sites(), null, null, null, null, null, null, null, null,
        new SidecarSpec("10001ms", "5s"), null)).leaseTimeout()).isEqualTo(Duration.ofMillis(10001));
  }

  @Test
  void leaseAndPeerCheckHaveFloors() {
    assertThat(problems(spec(minimal().sites(), null, null, null, null, null, null, null, null,
        new SidecarSpec("900ms", "50ms"), null)))
        .containsExactly("sidecar.peerCheckInterval must be at least 100ms",
            "sidecar.leaseTimeout must be at least 1s");
  }

  @Test
  void atLeastTwoPrimaryCandidatesAreNeeded() {
    assertThat(problems(withSites(List.of(site("iad", "primary-candidate"), site("dr", "dr-only"),
        site("ro", "read-only")))))
        .containsExactly("at least 2 sites must have role primary-candidate, found 1");
  }

  @Test
  void siteCountIsBounded() {
    assertThat(problems(withSites(List.of(site("iad", null)))))
        .containsExactly("spec.sites must hold 2 to 16 sites, found 1",
            "at least 2 sites must have role primary-candidate, found 1");
    List<SiteSpec> seventeen = new ArrayList<>();
    for (int i = 0; i < 17; i++) {
      seventeen.add(site("s" + i, null));
    }
    assertThat(problems(withSites(seventeen))).containsExactly("spec.sites must hold 2 to 16 sites, found 17");
    assertThat(problems(withSites(null))).containsExactly("spec.sites must hold 2 to 16 sites, found 0");
  }

  @Test
  void duplicateSiteNamesAreRefused() {
    assertThat(problems(withSites(List.of(site("iad", null), site("pdx", null), site("iad", "dr-only")))))
        .containsExactly("site name 'iad' is used twice");
  }

  @Test
  void siteNamesMustBeWhatTheAnnotationCanName() {
    assertThat(problems(withSites(List.of(site("IAD", null), site("pdx", null), site("", "dr-only")))))
        .containsExactly(
            "sites[0].name 'IAD' must be a DNS label: lower-case letters, digits and '-', at most 63 characters",
            "sites[2].name is required");
  }

  @Test
  void anEmptySiteEntryIsAProblemNotACrash() {
    List<SiteSpec> sites = new ArrayList<>(minimal().sites());
    sites.add(null);

    assertThat(problems(withSites(sites))).containsExactly("sites[2] is empty");
  }

  @Test
  void sitesOfOneDeclaredFlavorOrUndeclaredAreAccepted() {
    GroupConfig config = GroupConfig.resolve(withSites(List.of(site("iad", null).withFlavor("mysql"),
        site("pdx", null).withFlavor("mysql"), site("dr", "dr-only"))));
    assertThat(config.sites()).extracting(SiteSpec::flavor).containsExactly("mysql", "mysql", null);
    GroupConfig.resolve(withSites(List.of(site("iad", null).withFlavor("mariadb"), site("pdx", null))));
  }

  @Test
  void aGroupDeclaringBothFlavorsIsRefusedBecauseTheirGtidsCannotBeCompared() {
    assertThat(
        problems(withSites(List.of(site("iad", null).withFlavor("mysql"), site("pdx", null).withFlavor("mariadb"),
            site("dr", "dr-only").withFlavor("mariadb")))))
        .containsExactly("a group mixes MariaDB and MySQL (dr, pdx are mariadb; iad is mysql): GTIDs of MariaDB and"
            + " MySQL cannot be compared, so no failover could tell which server holds which transactions; make a"
            + " group of one flavor");
  }

  @Test
  void anUnknownFlavorIsNamed() {
    assertThat(problems(withSites(List.of(site("iad", null).withFlavor("percona"), site("pdx", null)))))
        .containsExactly("site 'iad' has unknown flavor 'percona' (mysql or mariadb)");
  }

  @Test
  void mixedFlavorsIgnoresSitesOfUnknownFlavor() {
    Map<String, String> flavors = new java.util.HashMap<>();
    flavors.put("iad", "MySQL");
    flavors.put("pdx", null);
    assertThat(GroupConfig.mixedFlavors(flavors)).isNull();
    flavors.put("dr", "MariaDB");
    assertThat(GroupConfig.mixedFlavors(flavors))
        .startsWith("a group mixes MariaDB and MySQL (dr is MariaDB; iad is MySQL)")
        .contains("GTIDs of MariaDB and MySQL cannot be compared");
  }

  @Test
  void aMissingSpecIsAProblem() {
    assertThat(problems(null)).containsExactly("spec is missing");
  }
}
