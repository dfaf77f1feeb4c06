package io.shipstream.failover.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.util.Base64;
import java.util.Map;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The connection options a configuration produces, with real PEM files made by the JDK's keytool. */
class TemporalConnectionTest {
  private static final String[] NO_FLAGS = new String[0];

  @TempDir
  static Path dir;
  private static Path cert;
  private static Path key;

  /** Once for the class: keytool takes a few seconds for an RSA key. */
  @BeforeAll
  static void makeCertificate() throws Exception {
    Path store = dir.resolve("client.p12");
    Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
        "-genkeypair", "-alias", "client", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=failover-worker",
        "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", "changeit")
        .redirectErrorStream(true).start();
    String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(keytool.waitFor()).as(output).isZero();
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      ks.load(in, "changeit".toCharArray());
    }
    cert = pem(dir.resolve("tls.crt"), "CERTIFICATE", ks.getCertificate("client").getEncoded());
    key = pem(dir.resolve("tls.key"), "PRIVATE KEY",
        ((PrivateKey) ks.getKey("client", "changeit".toCharArray())).getEncoded());
  }

  private static Path pem(Path file, String type, byte[] der) throws IOException {
    String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    return Files.writeString(file, "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n");
  }

  @Test
  void withoutTlsSettingsTheConnectionIsPlainText() {
    WorkflowServiceStubsOptions options = TemporalConnection.options(WorkerConfig.defaultConfig());

    assertThat(options.getTarget()).isEqualTo("127.0.0.1:7233");
    assertThat(options.getEnableHttps()).isFalse();
    assertThat(options.getSslContext()).isNull();
  }

  @Test
  void anApiKeyConnectsWithTlsAndSendsTheKeyAsMetadata() {
    WorkerConfig config = WorkerConfig.from(Map.of("TEMPORAL_API_KEY", "k",
        "TEMPORAL_ADDRESS", "ns.acct.tmprl.cloud:7233"), NO_FLAGS);

    WorkflowServiceStubsOptions options = TemporalConnection.options(config);

    assertThat(options.getEnableHttps()).isTrue();
    assertThat(options.getGrpcMetadataProviders()).hasSize(1);
  }

  @Test
  void clientCertificateAndCaBecomeTheSslContext() {
    WorkerConfig config = WorkerConfig.from(Map.of("TEMPORAL_TLS_CERT", cert.toString(),
        "TEMPORAL_TLS_KEY", key.toString(), "TEMPORAL_TLS_CA", cert.toString()), NO_FLAGS);

    WorkflowServiceStubsOptions options = TemporalConnection.options(config);

    assertThat(options.getSslContext()).isNotNull();
    assertThat(options.getSslContext().isClient()).isTrue();
  }

  @Test
  void theCaBundleIsTrustedAndNothingElse() {
    X509TrustManager trust = (X509TrustManager) TemporalConnection.trustManager(cert);

    assertThat(trust.getAcceptedIssuers()).singleElement()
        .satisfies(c -> assertThat(c.getSubjectX500Principal().getName()).isEqualTo("CN=failover-worker"));
  }

  @Test
  void aKeyThatIsNotPkcs8PemIsNamedInTheError() throws IOException {
    Path bad = Files.writeString(dir.resolve("bad.key"),
        "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n");
    WorkerConfig config = WorkerConfig.from(Map.of("TEMPORAL_TLS_CERT", cert.toString(),
        "TEMPORAL_TLS_KEY", bad.toString()), NO_FLAGS);

    assertThatThrownBy(() -> TemporalConnection.options(config))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("TEMPORAL_TLS_KEY=" + bad)
        .hasMessageContaining("PKCS#8");
  }

  @Test
  void aCaFileWithoutCertificatesIsNamedInTheError() throws IOException {
    Path empty = Files.writeString(dir.resolve("ca.pem"), "not a certificate\n");

    assertThatThrownBy(() -> TemporalConnection.trustManager(empty))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("TEMPORAL_TLS_CA=" + empty);
  }
}
