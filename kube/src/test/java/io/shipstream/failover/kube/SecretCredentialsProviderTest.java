package io.shipstream.failover.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.mysql.Credentials;
import io.shipstream.failover.mysql.CredentialsUnavailableException;
import io.shipstream.failover.testsupport.MutableClock;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SecretCredentialsProviderTest {
  private static final GroupRef GROUP = new GroupRef("shop", "orders");

  private KubernetesMockServer server;
  private KubernetesClient client;
  private final MutableClock clock = new MutableClock(Instant.parse("2025-01-01T00:00:00Z"));

  @BeforeEach
  void startMockApiServer() {
    server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
        new KubernetesCrudDispatcher(), false);
    server.init(InetAddress.getLoopbackAddress(), 0);
    client = server.createClient();
  }

  @AfterEach
  void stopMockApiServer() {
    client.close();
    server.destroy();
  }

  @Test
  void replicationLoginDefaultsToTheAdminLogin() {
    createSecret("mysql-credentials", Map.of("username", "failover", "password", "s3cret"));

    Credentials credentials = new SecretCredentialsProvider(client, clock).credentials(GROUP, "mysql-credentials");

    assertThat(credentials).isEqualTo(new Credentials("failover", "s3cret", "failover", "s3cret"));
  }

  @Test
  void readsASeparateReplicationLogin() {
    createSecret("mysql-credentials", Map.of(
        "username", "failover", "password", "s3cret", "replicationUsername", "repl", "replicationPassword", "r3pl"));

    Credentials credentials = new SecretCredentialsProvider(client, clock).credentials(GROUP, "mysql-credentials");

    assertThat(credentials.replicationUsername()).isEqualTo("repl");
    assertThat(credentials.replicationPassword()).isEqualTo("r3pl");
  }

  @Test
  void aMissingSecretOrKeyIsReportedWithoutAnyValue() {
    createSecret("incomplete", Map.of("username", "failover", "replicationPassword", "r3pl"));
    SecretCredentialsProvider provider = new SecretCredentialsProvider(client, clock);

    assertThatThrownBy(() -> provider.credentials(GROUP, "absent"))
        .isInstanceOf(CredentialsUnavailableException.class)
        .hasMessage("Secret shop/absent not found");
    assertThatThrownBy(() -> provider.credentials(GROUP, "incomplete"))
        .isInstanceOf(CredentialsUnavailableException.class)
        .hasMessage("Secret shop/incomplete lacks the key password")
        .message().doesNotContain("r3pl");
  }

  @Test
  void aRotatedPasswordIsPickedUpAfterTheCacheExpires() {
    createSecret("mysql-credentials", Map.of("username", "failover", "password", "old"));
    SecretCredentialsProvider provider = new SecretCredentialsProvider(client, clock, Duration.ofSeconds(30));
    assertThat(provider.credentials(GROUP, "mysql-credentials").password()).isEqualTo("old");

    client.secrets().inNamespace("shop").withName("mysql-credentials").delete();
    createSecret("mysql-credentials", Map.of("username", "failover", "password", "new"));
    clock.advance(Duration.ofSeconds(10));
    assertThat(provider.credentials(GROUP, "mysql-credentials").password()).isEqualTo("old");

    clock.advance(Duration.ofSeconds(25));
    assertThat(provider.credentials(GROUP, "mysql-credentials").password()).isEqualTo("new");
  }

  @Test
  void credentialsNeverPrintTheirPasswords() {
    Credentials credentials = new Credentials("failover", "s3cret", "repl", "r3pl");

    assertThat(credentials.toString()).contains("failover", "repl").doesNotContain("s3cret", "r3pl");
  }

  @Test
  void theGroupsTlsComesWithTheLoginsAndAMissingTlsSecretGivesNoLoginsAtAll() {
    createSecret("mysql-credentials", Map.of("username", "failover", "password", "s3cret"));
    var spec = new io.shipstream.failover.model.crd.MysqlFailoverGroupSpec(List.of(
        io.shipstream.failover.testsupport.MockCluster.site("orders", "iad", "10.0.1.10"),
        io.shipstream.failover.testsupport.MockCluster.site("orders", "pdx", "10.0.2.10")),
        new io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.SecretRef("mysql-credentials"), null, null, null,
        null, null, null, null, null, null, null)
        .withTls(new io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.TlsSpec(
            new io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.SessionTlsSpec("verify-ca",
                new io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.SecretRef("mysql-tls")),
            new io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.ReplicationTlsSpec("required", null, null, null,
                null)));
    var group = new io.shipstream.failover.model.crd.MysqlFailoverGroup();
    group.getMetadata().setName("orders");
    group.getMetadata().setNamespace("shop");
    group.setSpec(spec);
    client.resources(io.shipstream.failover.model.crd.MysqlFailoverGroup.class).inNamespace("shop").resource(group)
        .create();

    assertThatThrownBy(() -> new SecretCredentialsProvider(client, clock).credentials(GROUP, "mysql-credentials"))
        .isInstanceOf(io.shipstream.failover.mysql.TlsUnavailableException.class)
        .hasMessageContaining("Secret shop/mysql-tls not found");

    createSecret("mysql-tls", Map.of("ca.crt", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"));
    Credentials credentials = new SecretCredentialsProvider(client, clock).credentials(GROUP, "mysql-credentials");
    assertThat(credentials.sessionTls().mode()).isEqualTo(io.shipstream.failover.model.tls.TlsMode.VERIFY_CA);
    assertThat(credentials.sessionTls().caPem()).startsWith("-----BEGIN CERTIFICATE-----");
    assertThat(credentials.tls().channelFor("pdx").mode()).isEqualTo(io.shipstream.failover.model.tls.TlsMode.REQUIRED);
    assertThat(credentials.toString()).doesNotContain("BEGIN");
  }

  private void createSecret(String name, Map<String, String> values) {
    Map<String, String> data = new LinkedHashMap<>();
    values.forEach(
        (key, value) -> data.put(key, Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8))));
    Secret secret =
        new SecretBuilder().withNewMetadata().withName(name).withNamespace("shop").endMetadata().withData(data).build();
    client.secrets().inNamespace("shop").resource(secret).create();
  }
}
