package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.runtime.ControlPlaneTls;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.sidecar.Sidecar;
import io.shipstream.failover.sidecar.SidecarConfig;
import io.shipstream.failover.testsupport.FreePorts;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.testsupport.TestAuthority;
import io.shipstream.failover.watcher.WatcherApp;
import io.shipstream.failover.watcher.WatcherConfig;
import io.temporal.testing.TestWorkflowEnvironment;
import java.io.IOException;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The control plane's HTTP as a user configures it with TLS on: the real watcher (against the mock
 * API server and an in-process Temporal) and real sidecars, each with certificates a test CA signs
 * for 127.0.0.1, two groups each with its own credential in a Secret its spec names. The sidecars
 * point at a MySQL port nothing listens on: what is under test is who may ask what over which
 * transport; the fencing ITs cover the servers.
 */
class SidecarAuthIT {
  private static final GroupRef ORDERS = new GroupRef(MockCluster.NAMESPACE, "orders");
  private static final GroupRef BILLING = new GroupRef(MockCluster.NAMESPACE, "billing");
  private static final String TOKEN_A = "orders-credential-4b1d";
  private static final String TOKEN_B = "billing-credential-9e07";
  private static final String SHARED = "install-shared-token";

  @TempDir
  Path dir;
  private MockCluster cluster;
  private TestWorkflowEnvironment temporal;
  private WatcherApp watcher;
  private TestAuthority.Authority ca;
  private final List<Sidecar> sidecars = new ArrayList<>();
  /** Sidecar of orders at iad and pdx, and of billing at iad, each with its token file. */
  private Sidecar ordersIad;
  private Sidecar ordersPdx;
  private Sidecar billingIad;
  private Path ordersIadCert;
  private Path ordersIadKey;
  private Path ordersIadToken;
  private String watcherUrl;

  @BeforeEach
  void start() throws Exception {
    cluster = MockCluster.start();
    temporal = TestWorkflowEnvironment.newInstance();
    temporal.start();
    ca = TestAuthority.authority(dir, "control-plane-ca");
    secret("orders-sidecar-token", TOKEN_A);
    secret("billing-sidecar-token", TOKEN_B);

    TestAuthority.Issued watcherCert = ca.issue(dir, "watcher", "127.0.0.1");
    watcher = WatcherApp.start(WatcherConfig.defaults().withTopologyMonitor(false).withHttpHost("127.0.0.1")
        .withActiveSiteToken(SharedToken.of(SHARED))
        .withTls(ControlPlaneTls.of(watcherCert.certFile(), watcherCert.keyFile(), ca.certFile()), 0)
        .withLeaderElection(WatcherConfig.defaults().leaderElection().withIdentity("watcher-0")
            .withTimings(Duration.ofSeconds(2), Duration.ofMillis(1500), Duration.ofMillis(200))),
        cluster.client(), temporal.getWorkflowClient());
    watcherUrl = "https://127.0.0.1:" + watcher.httpsPort();

    int iadPort = FreePorts.next();
    int pdxPort = FreePorts.next();
    group(ORDERS, iadPort, pdxPort);
    group(BILLING, FreePorts.next(), FreePorts.next());
    ordersIad = sidecar(ORDERS, "iad", iadPort, pdxPort, TOKEN_A);
    ordersPdx = sidecar(ORDERS, "pdx", pdxPort, iadPort, TOKEN_A);
    billingIad = sidecar(BILLING, "iad", FreePorts.next(), FreePorts.next(), TOKEN_B);
    await(() -> ordersIad.status().lastWatcherContact().isPresent() && billingIad.status().lastWatcherContact()
        .isPresent(), "the sidecars reach the watcher over HTTPS with their groups' credentials");
  }

  @AfterEach
  void stop() {
    sidecars.forEach(Sidecar::close);
    if (watcher != null) {
      watcher.close();
    }
    temporal.close();
    cluster.close();
  }

  @Test
  void theWatcherTheSidecarsAndThePeerCallsAreServedOverVerifiedHttps() throws Exception {
    HttpResponse<String> view = get(watcherUrl + activeSite(ORDERS), TOKEN_A);
    assertThat(view.statusCode()).isEqualTo(200);
    assertThat(view.body()).contains("\"activeSite\":\"iad\"");
    assertThat(view.sslSession()).as("answered over TLS").isPresent();

    HttpResponse<String> status = get(https(ordersIad, "/status"), TOKEN_A);
    assertThat(status.statusCode()).isEqualTo(200);
    assertThat(status.body()).contains("\"site\":\"iad\"");
    assertThat(status.sslSession()).isPresent();

    // Each sidecar's view comes from the watcher over HTTPS, and its peer answers over HTTPS too.
    await(() -> ordersIad.status().peers().stream().allMatch(p -> p.lastContact().isPresent())
        && ordersPdx.status().peers().stream().allMatch(p -> p.lastContact().isPresent()), "peers reach each other");
    assertThat(ordersIad.status().view()).hasValueSatisfying(v -> assertThat(v.activeSite()).isEqualTo("iad"));
    assertThat(get(https(ordersPdx, "/peer/active-site"), TOKEN_A).statusCode()).isEqualTo(200);
  }

  @Test
  void oneGroupsCredentialIsRefusedByAnotherGroupsSidecarAndByTheWatcherForIt() throws Exception {
    assertThat(get(watcherUrl + activeSite(BILLING), TOKEN_A).statusCode()).as("the watcher, for billing")
        .isEqualTo(403);
    assertThat(get(watcherUrl + activeSite(BILLING), TOKEN_B).statusCode()).isEqualTo(200);
    assertThat(get(https(billingIad, "/status"), TOKEN_A).statusCode()).as("billing's sidecar").isEqualTo(403);
    assertThat(get(https(billingIad, "/peer/active-site"), TOKEN_A).statusCode()).isEqualTo(403);
    assertThat(post(https(billingIad, "/tick"), TOKEN_A).statusCode()).as("a tick of billing's sidecar").isEqualTo(403);
    assertThat(get(https(billingIad, "/status"), TOKEN_B).statusCode()).isEqualTo(200);

    // The install's shared token opens no group that names its own credential; no token at all is a 401.
    assertThat(get(watcherUrl + activeSite(ORDERS), SHARED).statusCode()).isEqualTo(403);
    assertThat(get(watcherUrl + activeSite(ORDERS), null).statusCode()).isEqualTo(401);
    assertThat(get(https(ordersIad, "/status"), null).statusCode()).isEqualTo(401);
  }

  @Test
  void plaintextIsRefusedWhileTheProbesAndMetricsStayOnPlainHttp() throws Exception {
    // HTTP spoken to the HTTPS port gets no HTTP answer at all.
    assertThatThrownBy(() -> plain("http://127.0.0.1:" + ordersIad.httpsPort() + "/status", TOKEN_A))
        .isInstanceOf(IOException.class);
    assertThatThrownBy(() -> plain("http://127.0.0.1:" + watcher.httpsPort() + activeSite(ORDERS), TOKEN_A))
        .isInstanceOf(IOException.class);
    // The plain ports refuse every authenticated endpoint, whatever the request carries.
    HttpResponse<String> status = plain("http://127.0.0.1:" + ordersIad.port() + "/status", TOKEN_A);
    assertThat(status.statusCode()).isEqualTo(426);
    assertThat(status.body()).doesNotContain("\"site\"").contains("HTTPS only, on port " + ordersIad.httpsPort());
    assertThat(plain("http://127.0.0.1:" + ordersIad.port() + "/peer/active-site", TOKEN_A).statusCode())
        .isEqualTo(426);
    assertThat(plain("http://127.0.0.1:" + watcher.httpPort() + activeSite(ORDERS), TOKEN_A).statusCode())
        .isEqualTo(426);
    // The kubelet's probes and Prometheus keep their plain port.
    assertThat(plain("http://127.0.0.1:" + ordersIad.port() + "/health", null).statusCode()).isIn(200, 503);
    assertThat(plain("http://127.0.0.1:" + ordersIad.port() + "/metrics", null).body())
        .contains("bloodraven_sidecar_fences_total");
    assertThat(plain("http://127.0.0.1:" + watcher.httpPort() + "/healthz", null).statusCode()).isEqualTo(200);
    assertThat(plain("http://127.0.0.1:" + watcher.httpPort() + "/metrics", null).statusCode()).isEqualTo(200);
  }

  @Test
  void aRenewedCertificateAndARotatedCredentialAreUsedWithoutARestart() throws Exception {
    BigInteger before = serial(get(https(ordersIad, "/status"), TOKEN_A));
    TestAuthority.Issued renewed = ca.issue(dir.resolve("renewed"), "orders-iad", "127.0.0.1");
    TestAuthority.replace(renewed.keyFile(), ordersIadKey);
    TestAuthority.replace(renewed.certFile(), ordersIadCert);
    BigInteger after = serial(get(https(ordersIad, "/status"), TOKEN_A));
    assertThat(after).as("the renewed certificate is served by the running sidecar").isNotEqualTo(before);

    // Rotation: the new token first and the old one kept, on both sides, then the old one dropped.
    String next = "orders-credential-rotated-77c2";
    secret("orders-sidecar-token", next + "\n" + TOKEN_A);
    writeToken(ordersIadToken, next + "\n" + TOKEN_A);
    await(() -> status(watcherUrl + activeSite(ORDERS), next) == 200, "the watcher accepts the new token");
    assertThat(get(https(ordersIad, "/status"), next).statusCode()).isEqualTo(200);
    assertThat(get(https(ordersIad, "/status"), TOKEN_A).statusCode()).as("both, while it rotates").isEqualTo(200);

    secret("orders-sidecar-token", next);
    writeToken(ordersIadToken, next);
    await(() -> status(watcherUrl + activeSite(ORDERS), TOKEN_A) == 403, "the watcher drops the old token");
    assertThat(get(https(ordersIad, "/status"), TOKEN_A).statusCode()).isEqualTo(403);
    Instant rotated = Instant.now();
    // The running sidecar goes on reaching the watcher, now with the new token.
    await(() -> ordersIad.status().lastWatcherContact().filter(at -> at.isAfter(rotated)).isPresent(),
        "the sidecar reaches the watcher with the rotated credential");
  }

  @Test
  void aSidecarThatCannotVerifyTheWatcherCountsItAsNoContactAndSaysWhy() throws Exception {
    TestAuthority.Authority stranger = TestAuthority.authority(dir.resolve("stranger"), "stranger-ca");
    Sidecar misconfigured = sidecar(BILLING, "pdx", FreePorts.next(), FreePorts.next(), TOKEN_B, stranger.certFile());
    await(() -> plain("http://127.0.0.1:" + misconfigured.port() + "/metrics", null).body()
        .contains("reason=\"UnknownCertificateAuthority\""), "the TLS failure is counted by reason");
    assertThat(misconfigured.status().lastWatcherContact()).as("an unverified watcher is no contact").isEmpty();
    assertThat(plain("http://127.0.0.1:" + misconfigured.port() + "/metrics", null).body())
        .contains("bloodraven_sidecar_tls_errors_total");
  }

  // --- the setup ---

  private void secret(String name, String token) {
    cluster.client().secrets().inNamespace(MockCluster.NAMESPACE).resource(new SecretBuilder()
        .withNewMetadata().withName(name).withNamespace(MockCluster.NAMESPACE).endMetadata()
        .addToStringData("token", token).build()).createOr(r -> r.update());
  }

  private void group(GroupRef ref, int iadPort, int pdxPort) throws Exception {
    // Created with its credential named, as a user applies it: the watcher's finalizer edits it at once.
    MysqlFailoverGroup cr = new MysqlFailoverGroup();
    cr.getMetadata().setName(ref.name());
    cr.getMetadata().setNamespace(ref.namespace());
    cr.setSpec(new MysqlFailoverGroupSpec(List.of(
        withSidecar(MockCluster.site(ref.name(), "iad", "10.0.1.10"), iadPort),
        withSidecar(MockCluster.site(ref.name(), "pdx", "10.0.2.10"), pdxPort)),
        new MysqlFailoverGroupSpec.SecretRef("mysql-credentials"), null, null, null, null, null, null, null,
        new MysqlFailoverGroupSpec.DnsSpec(ref.name() + ".db.example.com", 30),
        new MysqlFailoverGroupSpec.SidecarSpec("4s", "1s",
            new MysqlFailoverGroupSpec.SecretKeyRef(ref.name() + "-sidecar-token", null)),
        null));
    cluster.client().resources(MysqlFailoverGroup.class).inNamespace(ref.namespace()).resource(cr).create();
    cluster.setStatus(ref, MysqlFailoverGroupStatus.empty().withActiveSite("iad"));
    await(() -> watcher.group(ref).map(g -> g.getStatus() != null && "iad".equals(g.getStatus().activeSite())
        && g.getSpec().sidecar() != null && g.getSpec().sidecar().tokenSecretRef() != null).orElse(false),
        "the watcher's cache has " + ref);
  }

  private static SiteSpec withSidecar(SiteSpec s, int httpsPort) {
    return new SiteSpec(s.name(), s.role(), s.zone(), s.mysql(), s.podSelector(), s.taintNodeSelector(), s.lbIP(),
        new SiteSpec.Sidecar("https://127.0.0.1:" + httpsPort), s.dragonfly());
  }

  private Sidecar sidecar(GroupRef group, String site, int httpsPort, int peerHttpsPort, String token)
      throws IOException {
    return sidecar(group, site, httpsPort, peerHttpsPort, token, ca.certFile());
  }

  private Sidecar sidecar(GroupRef group, String site, int httpsPort, int peerHttpsPort, String token, Path trusted)
      throws IOException {
    Path own = Files.createDirectories(dir.resolve(group.name() + "-" + site));
    TestAuthority.Issued cert = ca.issue(own, "tls", "127.0.0.1");
    Path tokenFile = own.resolve("token");
    writeToken(tokenFile, token);
    Map<String, String> env = new HashMap<>();
    env.put("SITE", site);
    env.put("GROUP", group.name());
    env.put("NAMESPACE", group.namespace());
    env.put("MYSQL_HOST", "127.0.0.1");
    env.put("MYSQL_PORT", Integer.toString(FreePorts.next()));
    env.put("MYSQL_USER", "root");
    env.put("MYSQL_PASSWORD", "unused");
    env.put("WATCHER_URL", watcherUrl);
    env.put("PEER_URLS", "https://127.0.0.1:" + peerHttpsPort);
    env.put("LEASE_TIMEOUT", "4s");
    env.put("PEER_CHECK_INTERVAL", "500ms");
    env.put("HTTP_HOST", "127.0.0.1");
    env.put("HTTP_PORT", "0");
    env.put("HTTPS_PORT", Integer.toString(httpsPort));
    env.put("AUTH_TOKEN_FILE", tokenFile.toString());
    env.put("TLS_CERT_FILE", cert.certFile().toString());
    env.put("TLS_KEY_FILE", cert.keyFile().toString());
    env.put("TLS_CA_FILE", trusted.toString());
    Sidecar sidecar = Sidecar.start(SidecarConfig.from(env, new String[0]));
    sidecars.add(sidecar);
    if (group.equals(ORDERS) && site.equals("iad")) {
      ordersIadCert = cert.certFile();
      ordersIadKey = cert.keyFile();
      ordersIadToken = tokenFile;
    }
    return sidecar;
  }

  private static void writeToken(Path file, String token) throws IOException {
    Path tmp = Files.writeString(file.resolveSibling(file.getFileName() + ".tmp"), token + "\n");
    TestAuthority.replace(tmp, file);
  }

  // --- the clients ---

  private static String activeSite(GroupRef ref) {
    return "/active-site?namespace=" + ref.namespace() + "&group=" + ref.name();
  }

  private static String https(Sidecar sidecar, String path) {
    return "https://127.0.0.1:" + sidecar.httpsPort() + path;
  }

  /** A new client, trusting the test CA, for each request: a kept connection would not show a renewed certificate. */
  private HttpResponse<String> get(String url, String token) throws Exception {
    return send(HttpRequest.newBuilder(URI.create(url)).GET(), token, true);
  }

  private HttpResponse<String> post(String url, String token) throws Exception {
    return send(HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.noBody()), token, true);
  }

  private HttpResponse<String> plain(String url, String token) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(url)).GET(), token, false);
  }

  private int status(String url, String token) {
    try {
      return get(url, token).statusCode();
    } catch (Exception e) {
      return -1;
    }
  }

  private HttpResponse<String> send(HttpRequest.Builder request, String token, boolean tls)
      throws IOException, InterruptedException {
    HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
    if (tls) {
      client.sslContext(ControlPlaneTls.of(null, null, ca.certFile()).clientContext());
    }
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return client.build().send(request.timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static BigInteger serial(HttpResponse<String> response) throws Exception {
    assertThat(response.statusCode()).isEqualTo(200);
    return ((X509Certificate) response.sslSession().orElseThrow().getPeerCertificates()[0]).getSerialNumber();
  }

  private static void await(ThrowingSupplier condition, String what) throws Exception {
    Instant deadline = Instant.now().plusSeconds(20);
    while (!condition.get()) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("timed out waiting until " + what);
      }
      Thread.sleep(100);
    }
  }

  private interface ThrowingSupplier {
    boolean get() throws Exception;
  }
}
