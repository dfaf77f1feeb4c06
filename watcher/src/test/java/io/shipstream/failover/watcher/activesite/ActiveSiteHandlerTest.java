package io.shipstream.failover.watcher.activesite;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.shipstream.failover.kube.Tombstones;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.testsupport.MockCluster;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The handler mounted on a real JDK HTTP server, reading groups from a fabric8 mock API server in
 * CRUD mode, called the way a sidecar calls it.
 */
class ActiveSiteHandlerTest {
  private static final String TOKEN = "group-token-5e1c";
  private static final String BEARER = "Bearer " + TOKEN;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant NOW = Instant.parse("2025-03-01T10:00:00.250Z");
  // The mock logs every request at INFO through java.util.logging; the reference keeps the level set.
  private static final java.util.logging.Logger MOCK_LOG =
      java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  private final HttpClient http = HttpClient.newHttpClient();
  private final AtomicBoolean synced = new AtomicBoolean(true);
  private KubernetesMockServer api;
  private KubernetesClient client;
  private HttpServer server;
  private Function<GroupRef, Optional<MysqlFailoverGroup>> lookup;

  @BeforeEach
  void start() throws IOException {
    MOCK_LOG.setLevel(Level.WARNING);
    api = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(),
        false);
    api.init(InetAddress.getLoopbackAddress(), 0);
    client = api.createClient();
    lookup = ref -> Optional.ofNullable(
        client.resources(MysqlFailoverGroup.class).inNamespace(ref.namespace()).withName(ref.name()).get());
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
    server.createContext(ActiveSiteHandler.PATH, new ActiveSiteHandler(ref -> lookup.apply(ref), synced::get,
        SharedToken.of(TOKEN), Clock.fixed(NOW, ZoneOffset.UTC)));
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
    client.close();
    api.destroy();
  }

  @Test
  void servesTheActiveSiteFromTheStatus() throws Exception {
    createGroup("shop", "orders", "iad");

    HttpResponse<String> response = get("/active-site?namespace=shop&group=orders", BEARER);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).contains("application/json");
    assertThat(response.body()).isEqualTo("{\"activeSite\":\"iad\",\"observedAt\":\"2025-03-01T10:00:00.250Z\"}");
    // The sidecars read observedAt as RFC 3339.
    String observedAt = new ObjectMapper().readTree(response.body()).get("observedAt").asText();
    assertThat(OffsetDateTime.parse(observedAt).toInstant()).isEqualTo(NOW);
  }

  @Test
  void followsAFailoverRecordedInTheStatus() throws Exception {
    createGroup("shop", "orders", "iad");
    client.resources(MysqlFailoverGroup.class).inNamespace("shop").withName("orders")
        .editStatus(group -> {
          group.setStatus(group.getStatus().withFailover("dfw", "2025-03-01T09:59:00Z", "0-2-10"));
          return group;
        });

    assertThat(get("/active-site?namespace=shop&group=orders", BEARER).body()).contains("\"activeSite\":\"dfw\"");
  }

  @Test
  void carriesTheFencedSitesForTheSidecarsOperatorRule() throws Exception {
    createGroup("shop", "orders", "iad");
    client.resources(MysqlFailoverGroup.class).inNamespace("shop").withName("orders")
        .editStatus(group -> {
          group.setStatus(group.getStatus().withFencedSites(List.of("iad", "dfw")));
          return group;
        });

    assertThat(get("/active-site?namespace=shop&group=orders", BEARER).body())
        .isEqualTo(
            "{\"activeSite\":\"iad\",\"fencedSites\":[\"iad\",\"dfw\"],\"observedAt\":\"2025-03-01T10:00:00.250Z\"}");
  }

  @Test
  void aFreshRequestIsReadFromTheApiServerAndSaysSo() throws Exception {
    createGroup("shop", "orders", "iad");
    // A cache that has not seen the failover record yet: it still names iad.
    MysqlFailoverGroup cached = lookup.apply(new GroupRef("shop", "orders")).orElseThrow();
    List<String> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
    server.removeContext(ActiveSiteHandler.PATH);
    server.createContext(ActiveSiteHandler.PATH, new ActiveSiteHandler(ref -> Optional.of(cached), synced::get,
        SharedToken.of(TOKEN), Clock.fixed(NOW, ZoneOffset.UTC))
        .withFreshReads(ref -> lookup.apply(ref), (ref, site) -> asked.add(ref + " " + site)));
    client.resources(MysqlFailoverGroup.class).inNamespace("shop").withName("orders")
        .editStatus(group -> {
          group.setStatus(group.getStatus().withFailover("dfw", "2025-03-01T09:59:00Z", "0-2-10"));
          return group;
        });

    assertThat(get("/active-site?namespace=shop&group=orders", BEARER).body())
        .as("the cache").isEqualTo("{\"activeSite\":\"iad\",\"observedAt\":\"2025-03-01T10:00:00.250Z\"}");
    assertThat(get("/active-site?namespace=shop&group=orders&fresh=true&site=dfw", BEARER).body())
        .isEqualTo("{\"activeSite\":\"dfw\",\"observedAt\":\"2025-03-01T10:00:00.250Z\",\"fresh\":true}");
    assertThat(asked).containsExactly("shop/orders dfw");
  }

  /**
   * Every answer from the cache says how long since the cache was confirmed against the API
   * server; a fresh answer, read from the API server for the request, does not need to.
   */
  @Test
  void anAnswerFromTheCacheSaysHowStaleTheCacheIsAndAFreshOneDoesNot() throws Exception {
    createGroup("shop", "orders", "iad");
    server.removeContext(ActiveSiteHandler.PATH);
    server.createContext(ActiveSiteHandler.PATH, new ActiveSiteHandler(ref -> lookup.apply(ref), synced::get,
        SharedToken.of(TOKEN), Clock.fixed(NOW, ZoneOffset.UTC)).withFreshReads(ref -> lookup.apply(ref),
            (ref, site) -> {})
        .withStaleness(() -> java.time.Duration.ofMillis(1_250)));

    assertThat(get("/active-site?namespace=shop&group=orders&site=iad", BEARER).body())
        .isEqualTo("{\"activeSite\":\"iad\",\"observedAt\":\"2025-03-01T10:00:00.250Z\",\"staleMillis\":1250}");
    assertThat(get("/active-site?namespace=shop&group=orders&fresh=true&site=iad", BEARER).body())
        .isEqualTo("{\"activeSite\":\"iad\",\"observedAt\":\"2025-03-01T10:00:00.250Z\",\"fresh\":true}");
  }

  @Test
  void withoutFreshReadsAFreshRequestIsAnsweredFromTheCacheWithoutTheMark() throws Exception {
    createGroup("shop", "orders", "iad");

    assertThat(get("/active-site?namespace=shop&group=orders&fresh=true&site=dfw", BEARER).body())
        .isEqualTo("{\"activeSite\":\"iad\",\"observedAt\":\"2025-03-01T10:00:00.250Z\"}");
  }

  @Test
  void anUnknownGroupIs404() throws Exception {
    createGroup("shop", "orders", "iad");

    HttpResponse<String> otherName = get("/active-site?namespace=shop&group=payments", BEARER);
    HttpResponse<String> otherNamespace = get("/active-site?namespace=billing&group=orders", BEARER);

    assertThat(otherName.statusCode()).isEqualTo(404);
    assertThat(otherName.body()).isEqualTo("{\"error\":\"no MysqlFailoverGroup shop/payments\"}");
    assertThat(otherNamespace.statusCode()).isEqualTo(404);
  }

  /**
   * A group absent from the cache is reported deleted only on its finalizer's tombstone, and only
   * while the API server has no group of that name; without a tombstone it is the 404 it always
   * was, and a tombstone that cannot be read is no answer (503).
   */
  @Test
  void aDeletedGroupIsSaidDeletedOnlyOnItsTombstone() throws Exception {
    GroupRef orders = new GroupRef("shop", "orders");
    Map<GroupRef, Tombstones.Tombstone> graves = new java.util.concurrent.ConcurrentHashMap<>();
    java.util.concurrent.atomic.AtomicBoolean unreadable = new java.util.concurrent.atomic.AtomicBoolean();
    Map<GroupRef, MysqlFailoverGroup> onApiServer = new java.util.concurrent.ConcurrentHashMap<>();
    ActiveSiteHandler handler = new ActiveSiteHandler(ref -> Optional.empty(), synced::get, SharedToken.of(TOKEN),
        Clock.fixed(NOW, ZoneOffset.UTC))
        .withFreshReads(ref -> Optional.ofNullable(onApiServer.get(ref)), (ref, site) -> {})
        .withTombstones(ref -> {
          if (unreadable.get()) {
            throw new IllegalStateException("configmaps is forbidden");
          }
          return Optional.ofNullable(graves.get(ref));
        });

    assertThat(handler.answer("GET", "/active-site", "namespace=shop&group=orders", BEARER).status())
        .as("no tombstone: a plain 404, which a broken informer gives too").isEqualTo(404);
    unreadable.set(true);
    assertThat(handler.answer("GET", "/active-site", "namespace=shop&group=orders", BEARER).status()).isEqualTo(503);
    unreadable.set(false);
    graves.put(orders, new Tombstones.Tombstone(orders, "uid-1", Instant.parse("2025-03-01T09:59:00Z")));
    onApiServer.put(orders, group("shop", "orders"));
    assertThat(handler.answer("GET", "/active-site", "namespace=shop&group=orders", BEARER).status())
        .as("a group of that name exists again, which the cache does not show yet").isEqualTo(404);
    onApiServer.clear();
    ActiveSiteHandler.Reply deleted = handler.answer("GET", "/active-site", "namespace=shop&group=orders", BEARER);
    assertThat(deleted.status()).isEqualTo(200);
    assertThat(deleted.body()).isEqualTo("{\"activeSite\":null,\"groupDeleted\":true,"
        + "\"deletedAt\":\"2025-03-01T09:59:00Z\",\"observedAt\":\"2025-03-01T10:00:00.250Z\"}");
    assertThat(handler.answer("GET", "/active-site", "namespace=shop&group=payments", BEARER).status())
        .as("another group's tombstone says nothing of this one").isEqualTo(404);
  }

  @Test
  void aGroupThatHasNeverHadAnActiveSiteSaysSoWithA200() throws Exception {
    createGroup("shop", "fresh", null);
    MysqlFailoverGroup emptyStatus = group("shop", "adopting");
    emptyStatus.setStatus(MysqlFailoverGroupStatus.empty());
    client.resources(MysqlFailoverGroup.class).inNamespace("shop").resource(emptyStatus).create();

    HttpResponse<String> fresh = get("/active-site?namespace=shop&group=fresh", BEARER);
    HttpResponse<String> adopting = get("/active-site?namespace=shop&group=adopting", BEARER);

    assertThat(fresh.statusCode()).isEqualTo(200);
    assertThat(fresh.body())
        .isEqualTo("{\"activeSite\":null,\"neverActive\":true,\"observedAt\":\"2025-03-01T10:00:00.250Z\"}");
    assertThat(adopting.statusCode()).isEqualTo(200);
    assertThat(adopting.body()).contains("\"neverActive\":true");
  }

  @Test
  void aStatusWithABlankActiveSiteOrOnlyAFailoverTargetIs503() throws Exception {
    MysqlFailoverGroup blank = group("shop", "blank");
    blank.setStatus(MysqlFailoverGroupStatus.empty().withActiveSite(" "));
    client.resources(MysqlFailoverGroup.class).inNamespace("shop").resource(blank).create();
    MysqlFailoverGroup targetOnly = group("shop", "target-only");
    targetOnly.setStatus(MysqlFailoverGroupStatus.empty().withFailover("dfw", "2025-03-01T09:59:00Z", null)
        .withActiveSite(null));
    client.resources(MysqlFailoverGroup.class).inNamespace("shop").resource(targetOnly).create();

    HttpResponse<String> blankReply = get("/active-site?namespace=shop&group=blank", BEARER);
    HttpResponse<String> targetReply = get("/active-site?namespace=shop&group=target-only", BEARER);

    assertThat(blankReply.statusCode()).isEqualTo(503);
    assertThat(blankReply.body()).isEqualTo("{\"error\":\"shop/blank has no active site in its status yet\"}");
    assertThat(targetReply.statusCode()).as("a failover target was recorded: the group has been active").isEqualTo(503);
  }

  @Test
  void bothRepliesCarryTheSpecsSidecarTiming() throws Exception {
    createGroup("shop", "orders", "iad", new MysqlFailoverGroupSpec.SidecarSpec("9s", "1500ms"));
    createGroup("shop", "fresh", null, null);

    JsonNode active = JSON.readTree(get("/active-site?namespace=shop&group=orders", BEARER).body());
    JsonNode fresh = JSON.readTree(get("/active-site?namespace=shop&group=fresh", BEARER).body());

    assertThat(active.get("activeSite").asText()).isEqualTo("iad");
    assertThat(active.get("leaseTimeoutMillis").asLong()).isEqualTo(9_000);
    assertThat(active.get("peerCheckIntervalMillis").asLong()).isEqualTo(1_500);
    assertThat(fresh.get("neverActive").asBoolean()).isTrue();
    assertThat(fresh.get("leaseTimeoutMillis").asLong()).as("the spec's default").isEqualTo(20_000);
    assertThat(fresh.get("peerCheckIntervalMillis").asLong()).isEqualTo(5_000);
  }

  @Test
  void anUnsyncedCacheOrAFailingLookupIs503() throws Exception {
    createGroup("shop", "orders", "iad");
    synced.set(false);
    HttpResponse<String> unsynced = get("/active-site?namespace=shop&group=orders", BEARER);
    assertThat(unsynced.statusCode()).isEqualTo(503);
    assertThat(unsynced.body()).contains("not watching the groups right now");

    synced.set(true);
    lookup = ref -> {
      throw new KubernetesClientException("connection refused to https://10.0.0.1:443");
    };
    HttpResponse<String> failing = get("/active-site?namespace=shop&group=orders", BEARER);
    assertThat(failing.statusCode()).isEqualTo(503);
    assertThat(failing.body()).isEqualTo("{\"error\":\"the group cannot be read right now\"}");
  }

  /** A status this version cannot read (the cache marks it so) is no view: a sidecar must not act on a guess. */
  @Test
  void aStatusTheWatcherCannotReadIs503() throws Exception {
    MysqlFailoverGroup unreadable = group("shop", "orders").markUnreadable(
        List.of("status.sites: cannot be read (not a list)"), true);
    lookup = ref -> Optional.of(unreadable);

    HttpResponse<String> response = get("/active-site?namespace=shop&group=orders", BEARER);

    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(response.body()).contains("has a status this watcher cannot read: status.sites: cannot be read");
  }

  @Test
  void bothParametersAreRequiredOnce() throws Exception {
    createGroup("shop", "orders", "iad");

    for (String query : new String[] {"", "?namespace=shop", "?group=orders", "?namespace=&group=orders",
        "?namespace=shop&group=%20", "?namespace=shop&group=orders&group=payments"}) {
      assertThat(get("/active-site" + query, BEARER).statusCode()).as(query).isEqualTo(400);
    }
    assertThat(get("/active-site?group=orders&namespace=shop&unused=1", BEARER).statusCode()).isEqualTo(200);
    // A broken escape, which java.net.URI will not even send, from a less careful client.
    ActiveSiteHandler handler = new ActiveSiteHandler(lookup, synced::get, SharedToken.of(TOKEN), Clock.systemUTC());
    assertThat(handler.answer("GET", "/active-site", "namespace=shop&group=%zz", BEARER).status()).isEqualTo(400);
  }

  @Test
  void callersWithoutTheTokenLearnNothing() throws Exception {
    createGroup("shop", "orders", "iad");

    for (String authorization : new String[] {null, "Basic " + TOKEN, TOKEN, "Bearer "}) {
      for (String query : new String[] {"?namespace=shop&group=orders", "?namespace=shop&group=unknown", ""}) {
        HttpResponse<String> response = get("/active-site" + query, authorization);
        assertThat(response.statusCode()).as(authorization + " " + query).isEqualTo(401);
        assertThat(response.headers().firstValue("WWW-Authenticate")).contains("Bearer");
        assertThat(response.body()).doesNotContain("iad");
      }
    }
    // A token that is not the group's is refused alike for a group that exists and for one that
    // does not, so it cannot probe for names either.
    for (String query : new String[] {"?namespace=shop&group=orders", "?namespace=shop&group=unknown"}) {
      HttpResponse<String> response = get("/active-site" + query, "Bearer wrong");
      assertThat(response.statusCode()).as(query).isEqualTo(403);
      assertThat(response.body()).doesNotContain("iad");
    }
  }

  @Test
  void onlyGetOnTheExactPath() throws Exception {
    createGroup("shop", "orders", "iad");

    HttpResponse<String> post = http.send(HttpRequest.newBuilder(url("/active-site?namespace=shop&group=orders"))
        .header("Authorization", BEARER).POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(405);
    assertThat(post.headers().firstValue("Allow")).contains("GET");
    assertThat(get("/active-site/extra?namespace=shop&group=orders", BEARER).statusCode()).isEqualTo(404);
  }

  private void createGroup(String namespace, String name, String activeSite) {
    store(group(namespace, name), activeSite);
  }

  /** A group with a spec that resolves, with {@code sidecar} as its spec.sidecar (null: the defaults). */
  private void createGroup(String namespace, String name, String activeSite,
      MysqlFailoverGroupSpec.SidecarSpec sidecar) {
    MysqlFailoverGroup group = group(namespace, name);
    List<SiteSpec> sites =
        List.of(MockCluster.site(name, "iad", "10.0.0.1"), MockCluster.site(name, "dfw", "10.0.0.2"));
    group.setSpec(new MysqlFailoverGroupSpec(sites, new MysqlFailoverGroupSpec.SecretRef("mysql-credentials"), null,
        null, null, null, null, null, null, null, sidecar, null));
    store(group, activeSite);
  }

  private void store(MysqlFailoverGroup group, String activeSite) {
    if (activeSite != null) {
      group.setStatus(MysqlFailoverGroupStatus.empty().withActiveSite(activeSite));
    }
    client.resources(MysqlFailoverGroup.class).inNamespace(group.getMetadata().getNamespace()).resource(group).create();
  }

  private static MysqlFailoverGroup group(String namespace, String name) {
    MysqlFailoverGroup group = new MysqlFailoverGroup();
    group.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).build());
    return group;
  }

  private URI url(String pathAndQuery) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + pathAndQuery);
  }

  private HttpResponse<String> get(String pathAndQuery, String authorization) throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(url(pathAndQuery)).GET();
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
