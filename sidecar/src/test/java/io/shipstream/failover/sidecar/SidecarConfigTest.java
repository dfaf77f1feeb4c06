package io.shipstream.failover.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.sidecar.SidecarConfig.InvalidConfigException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SidecarConfigTest {
  private static final Map<String, String> ENV = Map.of(
      "SITE", "iad",
      "GROUP", "orders",
      "NAMESPACE", "shop",
      "MYSQL_USER", "failover",
      "MYSQL_PASSWORD", "mysql-pass-123",
      "WATCHER_URL", "http://watcher.failover.svc:8080",
      "PEER_URLS", "http://sidecar-dfw:9180, http://sidecar-ord:9180",
      "AUTH_TOKEN", "tok-4f2a9c");

  @Test
  void readsTheEnvironmentWithDefaults() {
    SidecarConfig config = SidecarConfig.from(ENV, new String[0]);

    assertThat(config.site()).isEqualTo("iad");
    assertThat(config.group()).isEqualTo("orders");
    assertThat(config.namespace()).isEqualTo("shop");
    assertThat(config.mysqlHost()).isEqualTo("127.0.0.1");
    assertThat(config.mysqlPort()).isEqualTo(3306);
    assertThat(config.watcherUrl()).isEqualTo(URI.create("http://watcher.failover.svc:8080"));
    assertThat(config.peerUrls()).containsExactly(URI.create("http://sidecar-dfw:9180"),
        URI.create("http://sidecar-ord:9180"));
    assertThat(config.leaseTimeout()).isEqualTo(Duration.ofSeconds(20));
    assertThat(config.peerCheckInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.httpPort()).isEqualTo(9180);
    assertThat(config.token().matches("Bearer tok-4f2a9c")).isTrue();
    assertThat(config.spareUsers()).isEmpty();
    assertThat(config.requestTimeout()).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void flagsWinOverTheEnvironment() {
    SidecarConfig config = SidecarConfig.from(ENV, new String[] {
        "--lease-timeout=1500ms", "--peer-check-interval=300ms", "--http-port=0", "--spare-users=repl,monitor",
        "--peer-urls="});

    assertThat(config.leaseTimeout()).isEqualTo(Duration.ofMillis(1500));
    assertThat(config.peerCheckInterval()).isEqualTo(Duration.ofMillis(300));
    assertThat(config.httpPort()).isZero();
    assertThat(config.spareUsers()).containsExactlyInAnyOrder("repl", "monitor");
    assertThat(config.peerUrls()).isEmpty();
    // A tick with every link cut must still fit in one interval.
    assertThat(config.requestTimeout()).isEqualTo(Duration.ofMillis(150));
  }

  @Test
  void readsSecretsFromMountedFiles(@TempDir Path dir) throws IOException {
    Files.writeString(dir.resolve("token"), "file-token-77\n");
    Files.writeString(dir.resolve("password"), "file-pass-88\n");
    Map<String, String> env = without(ENV, "AUTH_TOKEN", "MYSQL_PASSWORD");
    env.put("AUTH_TOKEN_FILE", dir.resolve("token").toString());
    env.put("MYSQL_PASSWORD_FILE", dir.resolve("password").toString());

    SidecarConfig config = SidecarConfig.from(env, new String[0]);

    assertThat(config.token().matches("Bearer file-token-77")).isTrue();
    assertThat(config.mysqlPassword()).isEqualTo("file-pass-88");
  }

  @Test
  void aZeroIntervalIsRefusedWithAClearMessage() {
    assertThatThrownBy(() -> SidecarConfig.from(ENV, new String[] {"--peer-check-interval=0s"}))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessage("invalid sidecar configuration: PEER_CHECK_INTERVAL (0s) must be at least 100ms");
  }

  @Test
  void theLeaseMustBeLongerThanTwoChecks() {
    assertThatThrownBy(() -> SidecarConfig.from(ENV, new String[] {"--lease-timeout=10s", "--peer-check-interval=5s"}))
        .hasMessageContaining("LEASE_TIMEOUT (10s) must be more than twice PEER_CHECK_INTERVAL (5s)");
    assertThat(SidecarConfig.from(ENV, new String[] {"--lease-timeout=10001ms", "--peer-check-interval=5s"})
        .leaseTimeout()).isEqualTo(Duration.ofMillis(10001));
  }

  @Test
  void knobsBelowTheMinimumsAreRefused() {
    assertThatThrownBy(
        () -> SidecarConfig.from(ENV, new String[] {"--lease-timeout=900ms", "--peer-check-interval=99ms"}))
        .isInstanceOf(InvalidConfigException.class)
        .satisfies(e -> assertThat(((InvalidConfigException) e).problems()).containsExactly(
            "PEER_CHECK_INTERVAL (99ms) must be at least 100ms",
            "LEASE_TIMEOUT (900ms) must be at least 1s"));
  }

  @Test
  void aDurationWithoutUnitIsRefused() {
    assertThatThrownBy(() -> SidecarConfig.from(ENV, new String[] {"--lease-timeout=20"}))
        .hasMessageContaining("LEASE_TIMEOUT=20: invalid duration '20'");
  }

  @Test
  void theRecordItselfRefusesBadKnobs() {
    SidecarConfig good = SidecarConfig.from(ENV, new String[0]);
    assertThatThrownBy(() -> new SidecarConfig(good.site(), good.group(), good.namespace(), good.mysqlHost(),
        good.mysqlPort(), good.mysqlUser(), good.mysqlPassword(), good.watcherUrl(), good.peerUrls(),
        Duration.ofSeconds(20), Duration.ZERO, good.httpHost(), good.httpPort(), good.token(), Set.of()))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("PEER_CHECK_INTERVAL (0s) must be at least 100ms");
  }

  @Test
  void everyMissingSettingIsReportedAtOnce() {
    assertThatThrownBy(() -> SidecarConfig.from(Map.of(), new String[0]))
        .isInstanceOf(InvalidConfigException.class)
        .satisfies(e -> assertThat(((InvalidConfigException) e).problems()).containsExactly(
            "SITE is required",
            "GROUP is required",
            "NAMESPACE is required",
            "MYSQL_USER is required",
            "WATCHER_URL is required",
            "AUTH_TOKEN or AUTH_TOKEN_FILE is required: the peer and watcher endpoints need a shared token",
            "MYSQL_PASSWORD or MYSQL_PASSWORD_FILE is required"));
  }

  @Test
  void secretsAreRefusedOnTheCommandLineAndNeverEchoed() {
    assertThatThrownBy(() -> SidecarConfig.from(without(ENV), new String[] {"--auth-token=cmdline-secret-1",
        "--mysql-password=cmdline-secret-2"}))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("--auth-token is not accepted as a flag: set the environment variable AUTH_TOKEN")
        .hasMessageContaining("--mysql-password is not accepted as a flag")
        .hasMessageNotContaining("cmdline-secret");
  }

  @Test
  void badUrlsAndUnknownFlagsAreRefused() {
    assertThatThrownBy(() -> SidecarConfig.from(ENV, new String[] {"--watcher-url=ftp://watcher",
        "--peer-urls=http://user:pw@peer:9180", "--lease=5s", "oops"}))
        .isInstanceOf(InvalidConfigException.class)
        .satisfies(e -> assertThat(((InvalidConfigException) e).problems()).containsExactlyInAnyOrder(
            "unexpected argument 'oops': flags look like --site=<value>",
            "unknown flag --lease; known flags: " + String.join(", ", SidecarConfig.SETTINGS.stream()
                .filter(s -> !s.isEnvOnly()).map(s -> s.flag()).toList()),
            "WATCHER_URL must be an http(s) URL with a host, not 'watcher'",
            "PEER_URLS must not carry credentials in the URL; the token is sent as a bearer header"))
        .hasMessageNotContaining("pw@");
  }

  @Test
  void anUnreadableSecretFileIsReportedWithoutItsContent(@TempDir Path dir) {
    Map<String, String> env = without(ENV, "AUTH_TOKEN");
    env.put("AUTH_TOKEN_FILE", dir.resolve("missing").toString());

    assertThatThrownBy(() -> SidecarConfig.from(env, new String[0]))
        .isInstanceOf(InvalidConfigException.class)
        .satisfies(e -> assertThat(((InvalidConfigException) e).problems())
            .containsExactly("AUTH_TOKEN_FILE " + dir.resolve("missing") + " cannot be read (NoSuchFileException)"));
  }

  @Test
  void toStringShowsNoSecret() {
    String shown = SidecarConfig.from(ENV, new String[0]).toString();

    assertThat(shown).contains("site=iad", "group=shop/orders", "watcher=watcher.failover.svc:8080",
        "leaseTimeout=20s", "peerCheckInterval=5s");
    assertThat(shown).doesNotContain("tok-4f2a9c", "mysql-pass-123");
  }

  private static Map<String, String> without(Map<String, String> env, String... names) {
    Map<String, String> copy = new HashMap<>(env);
    for (String name : names.length == 0 ? List.of("AUTH_TOKEN", "MYSQL_PASSWORD").toArray(String[]::new) : names) {
      copy.remove(name);
    }
    return copy;
  }
}
