package io.shipstream.failover.model.crd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.model.Durations;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the API server refuses at {@code kubectl apply} because the generated schema says so, before
 * the controller ever reads it. Each case changes one field of a valid group.
 */
class SpecSchemaTest {
  private static final CrdSchema SCHEMA = CrdSchema.generated();

  private static String group(String siteExtra, String specExtra) {
    return """
        apiVersion: shipstream.io/v1alpha1
        kind: MysqlFailoverGroup
        metadata: {name: orders, namespace: shop}
        spec:
          sites:
            - {name: iad, mysql: {host: iad.db, port: 3306}, taintNodeSelector: {zone: a}%s}
            - {name: pdx, mysql: {host: pdx.db}, taintNodeSelector: {zone: b}}
        %s
        """.formatted(siteExtra, specExtra.indent(2));
  }

  @Test
  void aMinimalGroupFits() {
    assertThat(SCHEMA.problems(group("", ""))).isEmpty();
  }

  @Test
  void hooksFit() {
    assertThat(SCHEMA.problems(group("", """
        hooks:
          preFailover: {url: https://ops.example.com/pre, timeout: 5s, bearerTokenSecret: {name: hook-token}}
          postFailover: {url: http://10.0.0.7:8080/post}
        """))).isEmpty();
  }

  @Test
  void aSiteMayDeclareItsFlavor() {
    assertThat(SCHEMA.problems(group(", flavor: mysql", ""))).isEmpty();
    assertThat(SCHEMA.problems(group(", flavor: mariadb", ""))).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      , role: primary                       | /spec/sites/0/role
      , role: dr-only, zone: x, lbIP: 1.2.3.4, name: IAD | /spec/sites/0/name
      , name: a-very-long-name-that-is-longer-than-sixty-three-characters-for-sure | /spec/sites/0/name
      , mysql: {host: iad.db, port: 0}      | /spec/sites/0/mysql/port
      , mysql: {host: iad.db, port: 70000}  | /spec/sites/0/mysql/port
      , dragonfly: {host: x, port: 0}       | /spec/sites/0/dragonfly/port
      , primaryCandidate: true              | /spec/sites/0
      , flavor: percona                     | /spec/sites/0/flavor
      , flavor: MySQL                       | /spec/sites/0/flavor
      """)
  void aBadSiteFieldIsRefused(String siteExtra, String location) {
    assertThat(SCHEMA.problems(group(siteExtra, ""))).anySatisfy(p -> assertThat(p).startsWith(location + ":"));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      pollInterval: 2                                                  | /spec/pollInterval
      pollInterval: '2'                                                | /spec/pollInterval
      failoverCooldown: 5 m                                            | /spec/failoverCooldown
      connectionDrainTimeout: -30s                                     | /spec/connectionDrainTimeout
      failureThreshold: 0                                              | /spec/failureThreshold
      recoveryThreshold: 0                                             | /spec/recoveryThreshold
      'plannedFailover: {maxLagWait: 5min}'                            | /spec/plannedFailover/maxLagWait
      'plannedFailover: {drainTimeout: 1d}'                            | /spec/plannedFailover/drainTimeout
      'plannedFailover: {onCooldown: wait}'                            | /spec/plannedFailover/onCooldown
      'plannedFailover: {onActiveNodeDrain: failover}'                 | /spec/plannedFailover/onActiveNodeDrain
      'dns: {hostname: x.example.com, ttl: 0}'                         | /spec/dns/ttl
      'sidecar: {leaseTimeout: 20}'                                    | /spec/sidecar/leaseTimeout
      'sidecar: {peerCheckInterval: 5sec}'                             | /spec/sidecar/peerCheckInterval
      'dragonfly: {flavor: memcached}'                                 | /spec/dragonfly/flavor
      'dragonfly: {plannedFailover: {maxSyncWait: 30}}'                | /spec/dragonfly/plannedFailover/maxSyncWait
      'dragonfly: {plannedFailover: {onSyncTimeout: retry}}'           | /spec/dragonfly/plannedFailover/onSyncTimeout
      'splitBrainPolicy: {sitePriorities: [iad, PDX]}'                 | /spec/splitBrainPolicy/sitePriorities/1
      'failoverCooldwn: 5m'                                            | /spec
      'hooks: {preFailover: {url: ftp://ops.example.com/pre}}'         | /spec/hooks/preFailover/url
      'hooks: {postFailover: {timeout: 5s}}'                           | /spec/hooks/postFailover
      'hooks: {postFailover: {url: http://h/p, timeout: 5}}'           | /spec/hooks/postFailover/timeout
      'hooks: {preFailover: {url: http://h/p, bearerTokenSecret: {}}}' | /spec/hooks/preFailover/bearerTokenSecret
      """)
  void aBadSpecFieldIsRefused(String specExtra, String location) {
    assertThat(SCHEMA.problems(group("", specExtra))).anySatisfy(p -> assertThat(p).startsWith(location + ":"));
  }

  @Test
  void sitesAreTwoToSixteen() {
    String one = group("", "").replaceAll("(?m)^    - \\{name: pdx.*\\n", "");
    assertThat(SCHEMA.problems(one)).anySatisfy(p -> assertThat(p).startsWith("/spec/sites:"));
  }

  /** The schema's duration pattern is the grammar Durations.parse reads, apart from the blanks parse trims. */
  @ParameterizedTest
  @ValueSource(strings = {"0s", "500ms", "2s", "5m", "1h30m", "1.5h", "0.25ms", "1h1m1s1ms", "2", "5 m", "-1s", "1d",
      "s", "1.s", ".5s", "1h 30m", "1S", ""})
  void theDurationPatternAcceptsWhatDurationsParses(String text) {
    boolean matches = Pattern.compile(Durations.SCHEMA_PATTERN).matcher(text).matches();
    if (matches) {
      assertThat(Durations.parse(text)).isNotNull();
    } else {
      assertThatThrownBy(() -> Durations.parse(text)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void everyDurationFormatsToTheSchemaPattern() {
    for (String text : List.of("0s", "90s", "1.5h", "0.25ms", "26h")) {
      assertThat(Durations.format(Durations.parse(text))).matches(Durations.SCHEMA_PATTERN);
    }
  }
}
