package io.shipstream.failover.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.shipstream.failover.model.tls.TlsProblem;
import io.shipstream.failover.testsupport.TestAuthority;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The control plane's HTTPS: served from mounted PEM files, verified by clients, renewed in place, and its failures named. */
class ControlPlaneTlsTest {
  @TempDir
  Path dir;
  private HttpServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  private int serve(ControlPlaneTls tls) throws IOException {
    server = tls.listen(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", ex -> {
      byte[] body = "ok".getBytes();
      ex.sendResponseHeaders(200, body.length);
      ex.getResponseBody().write(body);
      ex.close();
    });
    server.start();
    return server.getAddress().getPort();
  }

  /** A new client each time: a kept connection would not shake hands again. */
  private static HttpResponse<String> get(ControlPlaneTls tls, String url) throws Exception {
    HttpClient client = HttpClient.newBuilder().sslContext(tls.clientContext()).connectTimeout(Duration.ofSeconds(5))
        .build();
    return client.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static Optional<TlsProblem> problem(ControlPlaneTls tls, String url) {
    try {
      get(tls, url);
      return Optional.empty();
    } catch (Exception e) {
      return TlsProblem.of(e);
    }
  }

  @Test
  void aClientTrustingTheCaReadsAServerWhoseCertificateNamesItsHost() throws Exception {
    TestAuthority.Authority ca = TestAuthority.authority(dir, "ca");
    TestAuthority.Issued cert = ca.issue(dir, "server", "127.0.0.1", "localhost");
    int port = serve(ControlPlaneTls.of(cert.certFile(), cert.keyFile(), null));

    assertThat(get(ControlPlaneTls.of(null, null, ca.certFile()), "https://127.0.0.1:" + port + "/").body())
        .isEqualTo("ok");
    assertThat(get(ControlPlaneTls.of(null, null, ca.certFile()), "https://localhost:" + port + "/").statusCode())
        .isEqualTo(200);
  }

  @Test
  void eachWayAServerCanBeWrongIsNamed() throws Exception {
    TestAuthority.Authority ca = TestAuthority.authority(dir, "ca");
    TestAuthority.Authority other = TestAuthority.authority(dir, "other");
    Instant now = Instant.now();
    ControlPlaneTls client = ControlPlaneTls.of(null, null, ca.certFile());

    TestAuthority.Issued expired = ca.issue(dir, "expired", now.minus(Duration.ofDays(2)),
        now.minus(Duration.ofDays(1)), "127.0.0.1");
    String url = "https://127.0.0.1:" + serve(ControlPlaneTls.of(expired.certFile(), expired.keyFile(), null)) + "/";
    assertThat(problem(client, url)).contains(TlsProblem.CertificateExpired);
    stop();

    TestAuthority.Issued early = ca.issue(dir, "early", now.plus(Duration.ofDays(1)), now.plus(Duration.ofDays(2)),
        "127.0.0.1");
    url = "https://127.0.0.1:" + serve(ControlPlaneTls.of(early.certFile(), early.keyFile(), null)) + "/";
    assertThat(problem(client, url)).contains(TlsProblem.CertificateNotYetValid);
    stop();

    TestAuthority.Issued foreign = other.issue(dir, "foreign", "127.0.0.1");
    url = "https://127.0.0.1:" + serve(ControlPlaneTls.of(foreign.certFile(), foreign.keyFile(), null)) + "/";
    assertThat(problem(client, url)).contains(TlsProblem.UnknownCertificateAuthority);
    stop();

    TestAuthority.Issued misnamed = ca.issue(dir, "misnamed", "sidecar.elsewhere.example");
    url = "https://127.0.0.1:" + serve(ControlPlaneTls.of(misnamed.certFile(), misnamed.keyFile(), null)) + "/";
    assertThat(problem(client, url)).contains(TlsProblem.HostnameMismatch);
    stop();

    assertThat(TlsProblem.of(new java.net.ConnectException("refused"))).as("not about TLS").isEmpty();
  }

  @Test
  void aRenewedCertificateAndARotatedCaAreUsedWithoutARestart() throws Exception {
    TestAuthority.Authority ca = TestAuthority.authority(dir, "ca");
    TestAuthority.Authority next = TestAuthority.authority(dir.resolve("next"), "ca-next");
    TestAuthority.Issued cert = ca.issue(dir, "server", "127.0.0.1");
    Path trusted = Files.copy(ca.certFile(), dir.resolve("trusted.crt"));
    int port = serve(ControlPlaneTls.of(cert.certFile(), cert.keyFile(), null));
    ControlPlaneTls client = ControlPlaneTls.of(null, null, trusted);
    String url = "https://127.0.0.1:" + port + "/";
    assertThat(get(client, url).statusCode()).isEqualTo(200);

    // The server's files are replaced by a certificate of the next CA, the client's CA file after it.
    TestAuthority.Issued renewed = next.issue(dir.resolve("next"), "server", "127.0.0.1");
    TestAuthority.replace(renewed.keyFile(), cert.keyFile());
    TestAuthority.replace(renewed.certFile(), cert.certFile());
    assertThat(problem(ControlPlaneTls.of(null, null, ca.certFile()), url))
        .as("the server presents the new certificate at once")
        .contains(TlsProblem.UnknownCertificateAuthority);
    TestAuthority.replace(next.certFile(), trusted);
    assertThat(get(client, url).statusCode()).as("and the client trusts the new CA at once").isEqualTo(200);
  }

  @Test
  void settingsNameEveryProblemAndAKeyThatIsNotPkcs8IsExplained() throws Exception {
    TestAuthority.Authority ca = TestAuthority.authority(dir, "ca");
    TestAuthority.Issued cert = ca.issue(dir, "server", "127.0.0.1");
    ConfigReader lone = ConfigReader.read("test", ControlPlaneTls.settings(9443),
        Map.of("TLS_CERT_FILE", cert.certFile().toString()), new String[0]);
    ControlPlaneTls.read(lone);
    assertThatThrownBy(lone::check).hasMessageContaining("TLS_CERT_FILE and TLS_KEY_FILE must be given together");

    Path sec1 = Files.writeString(dir.resolve("sec1.key"),
        "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n");
    assertThatThrownBy(() -> ControlPlaneTls.of(cert.certFile(), sec1, null))
        .hasMessageContaining("holds no PKCS#8 key").hasMessageContaining("privateKey.encoding: PKCS8");
    assertThat(ControlPlaneTls.none().serving()).isFalse();
  }

  @Test
  void aTokenFileIsReadAgainWhenItChangesAndEveryLineIsAccepted() throws Exception {
    Path file = Files.writeString(dir.resolve("token"), "old\n");
    SharedToken token = SharedToken.fromFile(file);
    assertThat(token.matches("Bearer old")).isTrue();

    // Rotation: the new token first, the old one still accepted, then the old one removed.
    TestAuthority.replace(Files.writeString(dir.resolve("both"), "new\nold\n"), file);
    assertThat(token.authorization()).isEqualTo("Bearer new");
    assertThat(token.matches("Bearer old")).isTrue();
    assertThat(token.matches("Bearer new")).isTrue();
    TestAuthority.replace(Files.writeString(dir.resolve("only"), "new\n"), file);
    assertThat(token.matches("Bearer old")).isFalse();

    TestAuthority.replace(Files.writeString(dir.resolve("blank"), "\n"), file);
    assertThat(token.matches("Bearer new")).as("an empty file keeps the last good token").isTrue();
  }

  /** A new client each time, verifying the server's certificate against {@code name} whatever the URL's host. */
  private static HttpResponse<String> getAs(ControlPlaneTls tls, String name, String url) throws Exception {
    HttpClient client = HttpClient.newBuilder().sslContext(tls.clientContextFor(name))
        .connectTimeout(Duration.ofSeconds(5)).build();
    return client.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aReplicaReachedAtItsPodAddressIsVerifiedAgainstTheServiceNameItsCertificateCarries() throws Exception {
    TestAuthority.Authority ca = TestAuthority.authority(dir, "ca");
    TestAuthority.Issued cert = ca.issue(dir, "watcher", "bloodraven-watcher.ops.svc");
    int port = serve(ControlPlaneTls.of(cert.certFile(), cert.keyFile(), null));
    ControlPlaneTls client = ControlPlaneTls.of(null, null, ca.certFile());
    String url = "https://127.0.0.1:" + port + "/";

    assertThat(getAs(client, "bloodraven-watcher.ops.svc", url).body()).isEqualTo("ok");
    assertThat(getAs(client, "BLOODRAVEN-WATCHER.ops.svc", url).statusCode()).as("DNS names ignore case")
        .isEqualTo(200);
    // Not the name it carries; the URL's host, which it does not carry, is not checked either way.
    assertThatThrownBy(() -> getAs(client, "bloodraven-watcher.other.svc", url)).isInstanceOf(IOException.class);
    assertThat(problem(client, url)).as("the usual client checks the URL's host").isPresent();
    // Another CA's certificate for the right name.
    TestAuthority.Authority stranger = TestAuthority.authority(dir, "stranger");
    assertThatThrownBy(() -> getAs(ControlPlaneTls.of(null, null, stranger.certFile()), "bloodraven-watcher.ops.svc",
        url)).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> client.clientContextFor(" ")).isInstanceOf(IllegalArgumentException.class);
  }
}
