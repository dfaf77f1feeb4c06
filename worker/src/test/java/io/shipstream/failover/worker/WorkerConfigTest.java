package io.shipstream.failover.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkerConfigTest {
  private static final String[] NO_FLAGS = new String[0];

  @TempDir
  Path dir;

  @Test
  void defaultsReachALocalTemporalWithoutTls() {
    WorkerConfig c = WorkerConfig.defaultConfig();

    assertThat(c.temporalAddress()).isEqualTo("127.0.0.1:7233");
    assertThat(c.namespace()).isEqualTo("default");
    assertThat(c.taskQueue()).isEqualTo("mysql-failover");
    assertThat(c.tls()).isFalse();
    assertThat(c.mutualTls()).isFalse();
    assertThat(c.apiKey()).isNull();
    assertThat(c.httpPort()).isEqualTo(9090);
    assertThat(c.metricsReportInterval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.shutdownTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.logFormat()).isEqualTo("text");
  }

  @Test
  void environmentIsReadAndFlagsWinOverIt() {
    Map<String, String> env = Map.of(
        "TEMPORAL_ADDRESS", "temporal-frontend.temporal:7233",
        "TEMPORAL_NAMESPACE", "failover",
        "TASK_QUEUE", "from-env",
        "HTTP_PORT", "8081",
        "METRICS_REPORT_INTERVAL", "500ms",
        "PATH", "/usr/bin");

    WorkerConfig c = WorkerConfig.from(env, new String[] {"--task-queue=from-flag", "--http-port=0",
        "--shutdown-timeout=1m30s"});

    assertThat(c.temporalAddress()).isEqualTo("temporal-frontend.temporal:7233");
    assertThat(c.namespace()).isEqualTo("failover");
    assertThat(c.taskQueue()).isEqualTo("from-flag");
    assertThat(c.httpPort()).isZero();
    assertThat(c.metricsReportInterval()).isEqualTo(Duration.ofMillis(500));
    assertThat(c.shutdownTimeout()).isEqualTo(Duration.ofSeconds(90));
  }

  @Test
  void anEmptyVariableCountsAsUnsetAsAHelmTemplateRendersIt() {
    WorkerConfig c = WorkerConfig.from(Map.of("TEMPORAL_TLS_CA", "", "TASK_QUEUE", " "), NO_FLAGS);

    assertThat(c.tlsCa()).isNull();
    assertThat(c.tls()).isFalse();
    assertThat(c.taskQueue()).isEqualTo("mysql-failover");
  }

  @Test
  void theWatcherPodsAreReadWhenASelectorAndTheirNamespaceAreGiven() {
    assertThat(WorkerConfig.defaultConfig().watcherPods()).as("unset: the wait counts from the naming").isNull();
    WorkerConfig c = WorkerConfig.from(Map.of("WATCHER_POD_SELECTOR", "app=failover,component=watcher",
        "WATCHER_NAMESPACE", "ops", "WATCHER_TLS_NAME", "failover-watcher.ops.svc"), NO_FLAGS);

    assertThat(c.watcherPods()).isEqualTo(
        new WorkerConfig.WatcherPods("app=failover,component=watcher", "ops", "failover-watcher.ops.svc"));
    assertThatThrownBy(() -> WorkerConfig.from(Map.of("WATCHER_POD_SELECTOR", "app!=failover"), NO_FLAGS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("WATCHER_POD_SELECTOR: 'app!=failover' is not key=value")
        .hasMessageContaining("WATCHER_NAMESPACE is required with WATCHER_POD_SELECTOR");
  }

  @Test
  void everyBadSettingIsReportedInOneError() {
    Map<String, String> env = Map.of(
        "HTTP_PORT", "http",
        "METRICS_REPORT_INTERVAL", "10",
        "SHUTDOWN_TIMEOUT", "0s",
        "TEMPORAL_ADDRESS", "temporal-frontend");

    assertThatThrownBy(() -> WorkerConfig.from(env, new String[] {"--tasks-queue=x", "positional"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("HTTP_PORT=http: expected a port number 0..65535")
        .hasMessageContaining("METRICS_REPORT_INTERVAL=10: invalid duration")
        .hasMessageContaining("SHUTDOWN_TIMEOUT=0s: must be more than zero")
        .hasMessageContaining("TEMPORAL_ADDRESS=temporal-frontend: expected host:port")
        .hasMessageContaining("unknown flag --tasks-queue; known flags: --temporal-address")
        .hasMessageContaining("unexpected argument 'positional'");
  }

  @Test
  void addressesTakeHostPortIpv6OrAGrpcTarget() {
    assertThat(WorkerConfig.from(Map.of("TEMPORAL_ADDRESS", "[::1]:7233"), NO_FLAGS).temporalAddress())
        .isEqualTo("[::1]:7233");
    assertThat(WorkerConfig.from(Map.of("TEMPORAL_ADDRESS", "dns:///temporal:7233"), NO_FLAGS).temporalAddress())
        .isEqualTo("dns:///temporal:7233");
    assertThatThrownBy(() -> WorkerConfig.from(Map.of("TEMPORAL_ADDRESS", "temporal:70000"), NO_FLAGS))
        .hasMessageContaining("TEMPORAL_ADDRESS=temporal:70000");
    assertThatThrownBy(() -> WorkerConfig.from(Map.of("HTTP_PORT", "65536"), NO_FLAGS))
        .hasMessageContaining("HTTP_PORT=65536");
  }

  @Test
  void aFlagWithoutValueSaysHowToWriteIt() {
    assertThatThrownBy(() -> WorkerConfig.from(Map.of(), new String[] {"--task-queue"}))
        .hasMessageContaining("--task-queue needs a value: --task-queue=<value>");
  }

  @Test
  void theApiKeyComesOnlyFromTheEnvironmentAndIsNeverPrinted() {
    assertThatThrownBy(() -> WorkerConfig.from(Map.of(), new String[] {"--temporal-api-key=secret-key"}))
        .hasMessageContaining("--temporal-api-key is not accepted as a flag")
        .hasMessageNotContaining("secret-key");

    WorkerConfig c = WorkerConfig.from(Map.of("TEMPORAL_API_KEY", "secret-key",
        "TEMPORAL_ADDRESS", "ns.acct.tmprl.cloud:7233"), NO_FLAGS);

    assertThat(c.apiKey()).isEqualTo("secret-key");
    assertThat(c.tls()).as("Temporal Cloud needs TLS with an API key").isTrue();
    assertThat(c.toString()).doesNotContain("secret-key").contains("apiKey=****");
  }

  @Test
  void theSidecarTokenIsReadAsTheWatcherReadsItAndNeverPrinted() throws IOException {
    Path file = Files.writeString(dir.resolve("token"), "from-file\n");

    WorkerConfig fromFile = WorkerConfig.from(Map.of("AUTH_TOKEN_FILE", file.toString()), NO_FLAGS);
    WorkerConfig fromEnv = WorkerConfig.from(Map.of("AUTH_TOKEN", "from-env"), NO_FLAGS);

    assertThat(fromFile.sidecarToken().authorization()).isEqualTo("Bearer from-file");
    assertThat(fromEnv.sidecarToken().authorization()).isEqualTo("Bearer from-env");
    assertThat(fromEnv.toString()).doesNotContain("from-env").contains("sidecarToken=****");
    assertThat(WorkerConfig.defaultConfig().sidecarToken()).as("embedders may leave it out").isNull();
    assertThatThrownBy(() -> WorkerConfig.from(Map.of(), new String[] {"--auth-token=x"}))
        .hasMessageContaining("--auth-token is not accepted as a flag");
    assertThatThrownBy(() -> WorkerConfig.from(Map.of("AUTH_TOKEN_FILE", dir.resolve("none").toString()), NO_FLAGS))
        .hasMessageContaining("AUTH_TOKEN_FILE " + dir.resolve("none") + " cannot be read");
  }

  @Test
  void logFormatIsTextOrJsonAndOnlyFromTheEnvironment() {
    assertThat(WorkerConfig.from(Map.of("LOG_FORMAT", "json"), NO_FLAGS).logFormat()).isEqualTo("json");
    assertThatThrownBy(() -> WorkerConfig.from(Map.of("LOG_FORMAT", "jsno"), NO_FLAGS))
        .hasMessageContaining("LOG_FORMAT=jsno: expected text or json");
    assertThatThrownBy(() -> WorkerConfig.from(Map.of(), new String[] {"--log-format=json"}))
        .hasMessageContaining("--log-format is not accepted as a flag");
  }

  @Test
  void mutualTlsNeedsCertificateAndKeyAsReadableFiles() throws IOException {
    Path cert = Files.writeString(dir.resolve("tls.crt"), "cert");
    Path key = Files.writeString(dir.resolve("tls.key"), "key");

    WorkerConfig c = WorkerConfig.from(Map.of("TEMPORAL_TLS_CERT", cert.toString()),
        new String[] {"--temporal-tls-key=" + key});

    assertThat(c.tls()).isTrue();
    assertThat(c.mutualTls()).isTrue();
    assertThat(c.tlsCert()).isEqualTo(cert);
    assertThat(c.tlsKey()).isEqualTo(key);

    assertThatThrownBy(() -> WorkerConfig.from(Map.of("TEMPORAL_TLS_CERT", cert.toString()), NO_FLAGS))
        .hasMessageContaining("TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together");
    String missing = dir.resolve("missing.key").toString();
    assertThatThrownBy(() -> WorkerConfig.from(Map.of("TEMPORAL_TLS_CERT", cert.toString(),
        "TEMPORAL_TLS_KEY", missing), NO_FLAGS))
        .hasMessageContaining("TEMPORAL_TLS_KEY=" + missing + ": no such readable file");
  }

  @Test
  void contradictoryTlsSettingsAreRefused() throws IOException {
    Path file = Files.writeString(dir.resolve("f.pem"), "x");
    Map<String, String> env = new HashMap<>(Map.of(
        "TEMPORAL_TLS_CERT", file.toString(), "TEMPORAL_TLS_KEY", file.toString(), "TEMPORAL_API_KEY", "k"));
    assertThatThrownBy(() -> WorkerConfig.from(env, NO_FLAGS))
        .hasMessageContaining("TEMPORAL_API_KEY and TEMPORAL_TLS_CERT are both set");

    assertThatThrownBy(() -> WorkerConfig.from(Map.of("TEMPORAL_TLS_CA", file.toString()),
        new String[] {"--temporal-tls=false"}))
        .hasMessageContaining("TEMPORAL_TLS=false contradicts");
    assertThatThrownBy(() -> WorkerConfig.from(Map.of("TEMPORAL_TLS", "yes"), NO_FLAGS))
        .hasMessageContaining("TEMPORAL_TLS=yes: expected true or false");
  }

  @Test
  void plainServerTlsCanBeAskedForWithoutAnyFile() {
    WorkerConfig c = WorkerConfig.from(Map.of("TEMPORAL_TLS", "true"), NO_FLAGS);

    assertThat(c.tls()).isTrue();
    assertThat(c.mutualTls()).isFalse();
  }

  @Test
  void usageNamesEverySettingWithItsFlagAndDefault() {
    assertThat(WorkerConfig.usage())
        .contains("TEMPORAL_ADDRESS", "--temporal-address", "127.0.0.1:7233")
        .contains("TEMPORAL_API_KEY", "(environment only)")
        .contains("HTTP_PORT", "--http-port", "9090");
  }
}
