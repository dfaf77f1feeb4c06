package io.shipstream.failover.watcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WatcherConfigTest {
  private static final String[] NO_FLAGS = new String[0];

  @TempDir
  Path dir;

  @Test
  void productionDefaultsElectALeaderWithFastTakeover() {
    WatcherConfig c = WatcherConfig.from(Map.of(), NO_FLAGS);

    assertThat(c.temporal().address()).isEqualTo("127.0.0.1:7233");
    assertThat(c.taskQueue()).isEqualTo("mysql-failover");
    assertThat(c.watchNamespaces()).isEmpty();
    assertThat(c.httpPort()).isEqualTo(8080);
    assertThat(c.activeSiteToken()).isNull();
    assertThat(c.topologyMonitor()).as("emergency failovers are on unless turned off").isTrue();
    LeaderElectionSettings election = c.leaderElection();
    assertThat(election.enabled()).isTrue();
    assertThat(election.leaseName()).isEqualTo("failover-watcher");
    assertThat(election.leaseNamespace()).as("the client's namespace").isNull();
    assertThat(election.leaseDuration()).isEqualTo(Duration.ofSeconds(15));
    assertThat(election.renewDeadline()).isEqualTo(Duration.ofSeconds(10));
    assertThat(election.retryPeriod()).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void embeddedDefaultsTakeAFreePortAndTwoOfThemNeverShareAnIdentity() {
    assertThat(WatcherConfig.defaults().httpPort()).isZero();
    assertThat(WatcherConfig.defaults().leaderElection().identity())
        .isNotEqualTo(WatcherConfig.defaults().leaderElection().identity());
  }

  @Test
  void thePodGivesIdentityAndLeaseNamespaceAndFlagsWin() {
    WatcherConfig c = WatcherConfig.from(Map.of("POD_NAME", "watcher-7d9f-x2", "POD_NAMESPACE", "failover-system",
        "WATCH_NAMESPACES", "shop, billing ,", "SEARCH_ATTRIBUTES",
        "true" /* an older chart's: ignored, they are detected */, "HOSTNAME", "ignored",
        "TOPOLOGY_MONITOR", "false"),
        new String[] {"--lease-duration=20s", "--http-port=0", "--leader-election=false"});

    assertThat(c.leaderElection().identity()).isEqualTo("watcher-7d9f-x2");
    assertThat(c.leaderElection().leaseNamespace()).isEqualTo("failover-system");
    assertThat(c.leaderElection().leaseDuration()).isEqualTo(Duration.ofSeconds(20));
    assertThat(c.leaderElection().enabled()).isFalse();
    assertThat(c.watchNamespaces()).isEqualTo(List.of("shop", "billing"));
    assertThat(c.topologyMonitor()).isFalse();
    assertThat(c.httpPort()).isZero();
    assertThat(WatcherConfig.from(Map.of("POD_NAMESPACE", "a", "LEASE_NAMESPACE", "b"), NO_FLAGS)
        .leaderElection().leaseNamespace()).isEqualTo("b");
  }

  @Test
  void temporalTlsAndApiKeyAreReadAsTheWorkerReadsThem() {
    WatcherConfig c = WatcherConfig.from(Map.of("TEMPORAL_API_KEY", "secret-key",
        "TEMPORAL_ADDRESS", "ns.acct.tmprl.cloud:7233", "TEMPORAL_NAMESPACE", "ns.acct"), NO_FLAGS);

    assertThat(c.temporal().tls()).isTrue();
    assertThat(c.temporal().apiKey()).isEqualTo("secret-key");
    assertThat(c.toString()).doesNotContain("secret-key");
    assertThatThrownBy(() -> WatcherConfig.from(Map.of(), new String[] {"--temporal-api-key=k"}))
        .hasMessageContaining("--temporal-api-key is not accepted as a flag");
  }

  @Test
  void theHttpPortListensOnEveryInterfaceUnlessToldOtherwise() {
    assertThat(WatcherConfig.from(Map.of(), NO_FLAGS).httpHost()).isEqualTo("0.0.0.0");
    assertThat(WatcherConfig.from(Map.of("HTTP_HOST", "127.0.0.1"), NO_FLAGS).httpHost()).isEqualTo("127.0.0.1");
    assertThat(WatcherConfig.from(Map.of(), new String[] {"--http-host=::1"}).httpHost()).isEqualTo("::1");
    assertThatThrownBy(() -> WatcherConfig.from(Map.of("HTTP_HOST", "watcher.example"), NO_FLAGS))
        .hasMessageContaining("HTTP_HOST=watcher.example: expected an IP address, e.g. 127.0.0.1");
    assertThatThrownBy(() -> WatcherConfig.from(Map.of("HTTP_HOST", "127.0.0.300"), NO_FLAGS))
        .hasMessageContaining("HTTP_HOST=127.0.0.300: expected an IP address");
  }

  @Test
  void theSidecarTokenComesFromAFileOrTheEnvironmentAndIsNeverShown() throws IOException {
    Path file = Files.writeString(dir.resolve("token"), "from-file\n");

    WatcherConfig fromFile = WatcherConfig.from(Map.of(), new String[] {"--auth-token-file=" + file});
    WatcherConfig fromEnv = WatcherConfig.from(Map.of("AUTH_TOKEN", "from-env"), NO_FLAGS);

    assertThat(fromFile.activeSiteToken().matches("Bearer from-file")).isTrue();
    assertThat(fromEnv.activeSiteToken().matches("Bearer from-env")).isTrue();
    assertThat(fromEnv.toString()).doesNotContain("from-env");
    assertThatThrownBy(() -> WatcherConfig.from(Map.of(), new String[] {"--auth-token=x"}))
        .hasMessageContaining("--auth-token is not accepted as a flag");
    assertThatThrownBy(() -> WatcherConfig.from(Map.of("AUTH_TOKEN_FILE", dir.resolve("none").toString()), NO_FLAGS))
        .hasMessageContaining("AUTH_TOKEN_FILE");
  }

  @Test
  void everyBadSettingIsReportedInOneErrorIncludingLeaseTimingsThatDoNotNest() {
    Map<String, String> env = Map.of("HTTP_PORT", "http", "LEADER_ELECTION", "yes",
        "LEASE_DURATION", "10s", "LEASE_RENEW_DEADLINE", "10s", "LOG_FORMAT", "xml");

    assertThatThrownBy(() -> WatcherConfig.from(env, new String[] {"--watch-namespace=shop"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("invalid watcher configuration:")
        .hasMessageContaining("HTTP_PORT=http: expected a port number")
        .hasMessageContaining("LEADER_ELECTION=yes: expected true or false")
        .hasMessageContaining("LEASE_RENEW_DEADLINE (10000ms) must be shorter than LEASE_DURATION (10000ms)")
        .hasMessageContaining("LOG_FORMAT=xml: expected text or json")
        .hasMessageContaining("unknown flag --watch-namespace; known flags:")
        .hasMessageContaining("--watch-namespaces");
    assertThatThrownBy(() -> WatcherConfig.from(Map.of("LEASE_RETRY_PERIOD", "5s"), NO_FLAGS))
        .hasMessageContaining("LEASE_RETRY_PERIOD (5000ms) must be more than zero and under LEASE_RENEW_DEADLINE");
  }

  @Test
  void usageNamesTheLeaseAndTokenSettings() {
    assertThat(WatcherConfig.usage())
        .contains("LEADER_ELECTION", "--leader-election", "true")
        .contains("LEASE_DURATION", "15s")
        .contains("AUTH_TOKEN ", "(environment only)")
        .contains("HTTP_PORT", "8080");
  }
}
