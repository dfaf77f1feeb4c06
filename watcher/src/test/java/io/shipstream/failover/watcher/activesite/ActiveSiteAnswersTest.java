package io.shipstream.failover.watcher.activesite;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.shipstream.failover.kube.SidecarCredentials;
import io.shipstream.failover.kube.Tombstones;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.wire.AnswersReply;
import io.shipstream.failover.wire.AnswersReply.Answer;
import io.shipstream.failover.wire.Wire;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code /active-site} records every 200 it gives, and {@code /answers} reads them back: the handler
 * mounted on both paths of a real JDK HTTP server, the groups and their credentials' Secrets on a
 * fabric8 mock API server, called the way a sidecar and a failover call it.
 */
class ActiveSiteAnswersTest {
  private static final String INSTALL_TOKEN = "install-token-77d0";
  private static final String ORDERS_TOKEN = "orders-token-1b9e";
  private static final String PAYMENTS_TOKEN = "payments-token-c4a2";
  private static final Instant NOW = Instant.parse("2025-03-01T10:00:00.250Z");
  private static final GroupRef ORDERS = new GroupRef(MockCluster.NAMESPACE, "orders");
  private static final String ORDERS_QUERY = "?namespace=" + ORDERS.namespace() + "&group=" + ORDERS.name();
  private static final String IAD_VIEW = "{\"activeSite\":\"iad\",\"observedAt\":\"" + NOW + "\"}";

  private final HttpClient http = HttpClient.newHttpClient();
  private final AtomicBoolean synced = new AtomicBoolean(true);
  /** The watcher's monotonic clock, moved by hand. */
  private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
  private final AnswerLogs logs = new AnswerLogs(nanos::get);
  private MockCluster cluster;
  private HttpServer server;

  @BeforeEach
  void start() throws IOException {
    cluster = MockCluster.start();
    group("orders", ORDERS_TOKEN, "iad");
    group("payments", PAYMENTS_TOKEN, "iad");
    ActiveSiteHandler handler = new ActiveSiteHandler(
        ref -> Optional.ofNullable(cluster.client().resources(MysqlFailoverGroup.class)
            .inNamespace(ref.namespace()).withName(ref.name()).get()),
        synced::get, SharedToken.of(INSTALL_TOKEN), Clock.fixed(NOW, ZoneOffset.UTC))
        .withCredentials(new SidecarCredentials(cluster.client(), Clock.systemUTC())).withAnswerLogs(logs);
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
    server.createContext(ActiveSiteHandler.PATH, handler);
    server.createContext(ActiveSiteHandler.ANSWERS_PATH, handler);
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
    cluster.close();
  }

  @Test
  void aSidecarsAnswerIsListedWithTheViewItCarriedAndTheViewServedNow() throws Exception {
    advance(30_000);
    assertThat(get("/active-site" + ORDERS_QUERY + "&site=iad", ORDERS_TOKEN).statusCode()).isEqualTo(200);
    advance(2_000);

    HttpResponse<String> response = get("/answers" + ORDERS_QUERY + "&site=iad", ORDERS_TOKEN);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).contains("application/json");
    assertThat(response.body()).isEqualTo("{\"site\":\"iad\",\"upMillis\":32000,\"view\":" + IAD_VIEW
        + ",\"answers\":[{\"agoMillis\":2000,\"activeSite\":\"iad\",\"observedAt\":\"" + NOW + "\"}],"
        + "\"answersComplete\":true,\"unnamed\":[],\"unnamedComplete\":true}");
    AnswersReply pdx = answers("pdx", ORDERS_TOKEN);
    assertThat(pdx.answers()).as("another site's sidecar was answered nothing").isEmpty();
    assertThat(pdx.view()).isEqualTo(new Answer(null, "iad", NOW.toString()));
    assertThat(readAnswers("payments", "iad", PAYMENTS_TOKEN).answers()).as("another group's log").isEmpty();
  }

  @Test
  void theUpTimeIsTheProcesssNotResetByTheFirstAnswer() throws Exception {
    advance(40_000);
    AnswersReply before = answers("iad", ORDERS_TOKEN);
    assertThat(before.upMillis()).isEqualTo(40_000);
    assertThat(before.answers()).isEmpty();
    assertThat(before.answersComplete()).isTrue();
    assertThat(before.unnamedComplete()).isTrue();

    advance(1_000);
    get("/active-site" + ORDERS_QUERY + "&site=iad", ORDERS_TOKEN);
    advance(500);

    AnswersReply after = answers("iad", ORDERS_TOKEN);
    assertThat(after.upMillis()).as("since the handler's logs were made, not the group's first answer")
        .isEqualTo(41_500);
    assertThat(after.answers()).extracting(Answer::agoMillis).containsExactly(500L);
  }

  @Test
  void anAskerThatNamesNoSiteIsListedAsUnnamedBesideEverySite() throws Exception {
    get("/active-site" + ORDERS_QUERY, ORDERS_TOKEN);
    get("/active-site" + ORDERS_QUERY + "&site=%20", ORDERS_TOKEN);
    advance(100);

    for (String site : new String[] {"iad", "pdx"}) {
      AnswersReply reply = answers(site, ORDERS_TOKEN);
      assertThat(reply.answers()).as(site).isEmpty();
      assertThat(reply.unnamed()).as(site).containsExactly(new Answer(100L, "iad", NOW.toString()),
          new Answer(100L, "iad", NOW.toString()));
    }
  }

  @Test
  void aFreshAnswerIsRecordedWithTheViewItCarried() throws Exception {
    MysqlFailoverGroup stale = cluster.group(ORDERS);
    cluster.setStatus(ORDERS, MysqlFailoverGroupStatus.empty().withActiveSite("pdx"));
    ActiveSiteHandler staleCache = new ActiveSiteHandler(ref -> Optional.of(stale), synced::get,
        SharedToken.of(INSTALL_TOKEN), Clock.fixed(NOW, ZoneOffset.UTC))
        .withCredentials(new SidecarCredentials(cluster.client(), Clock.systemUTC())).withAnswerLogs(logs)
        .withFreshReads(ref -> Optional.ofNullable(cluster.group(ref)), (ref, site) -> {});
    remount(staleCache);

    assertThat(get("/active-site" + ORDERS_QUERY + "&fresh=true&site=iad", ORDERS_TOKEN).body())
        .contains("\"activeSite\":\"pdx\"", "\"fresh\":true");

    AnswersReply reply = answers("iad", ORDERS_TOKEN);
    assertThat(reply.answers()).containsExactly(new Answer(0L, "pdx", NOW.toString()));
    assertThat(reply.view()).as("what the cache would answer now").isEqualTo(new Answer(null, "iad", NOW.toString()));
  }

  @Test
  void neverActiveAndDeletedAnswersAreRecordedWithoutAView() throws Exception {
    group("adopting", ORDERS_TOKEN, null);
    GroupRef adopting = new GroupRef(MockCluster.NAMESPACE, "adopting");
    GroupRef gone = new GroupRef(MockCluster.NAMESPACE, "gone");
    ActiveSiteHandler handler = new ActiveSiteHandler(ref -> Optional.ofNullable(cluster.group(ref)), synced::get,
        SharedToken.of(INSTALL_TOKEN), Clock.fixed(NOW, ZoneOffset.UTC))
        .withCredentials(new SidecarCredentials(cluster.client(), Clock.systemUTC())).withAnswerLogs(logs)
        .withTombstones(ref -> gone.equals(ref)
            ? Optional.of(new Tombstones.Tombstone(ref, "uid-9", NOW.minusSeconds(60))) : Optional.empty());
    remount(handler);

    assertThat(get("/active-site?namespace=shop&group=adopting&site=iad", ORDERS_TOKEN).body())
        .contains("\"neverActive\":true");
    assertThat(get("/active-site?namespace=shop&group=gone&site=iad", "any-token").body())
        .contains("\"groupDeleted\":true");

    AnswersReply neverActive = readAnswers("adopting", "iad", ORDERS_TOKEN);
    assertThat(neverActive.answers()).containsExactly(new Answer(0L, null, null));
    assertThat(neverActive.view()).as("a group never active has no view to renew with").isNull();
    assertThat(logs.read(gone, "iad", null, null).answers()).containsExactly(new Answer(0L, null, null));
    assertThat(get("/answers?namespace=shop&group=gone&site=iad", INSTALL_TOKEN).statusCode())
        .as("a group gone from the cache has no log to read here").isEqualTo(404);
  }

  @Test
  void onlyA200IsRecorded() throws Exception {
    synced.set(false);
    assertThat(get("/active-site" + ORDERS_QUERY + "&site=iad", ORDERS_TOKEN).statusCode()).isEqualTo(503);
    AnswersReply unsynced = answers("iad", ORDERS_TOKEN);
    assertThat(unsynced.view()).as("the cache is not current: no view, which a reader takes as may renew")
        .isNull();
    synced.set(true);
    assertThat(get("/active-site" + ORDERS_QUERY + "&site=iad", PAYMENTS_TOKEN).statusCode()).isEqualTo(403);
    assertThat(get("/active-site" + ORDERS_QUERY + "&site=iad", null).statusCode()).isEqualTo(401);
    cluster.setStatus(ORDERS, MysqlFailoverGroupStatus.empty().withActiveSite(" "));
    assertThat(get("/active-site" + ORDERS_QUERY + "&site=iad", ORDERS_TOKEN).statusCode()).isEqualTo(503);

    AnswersReply reply = answers("iad", ORDERS_TOKEN);
    assertThat(reply.answers()).isEmpty();
    assertThat(reply.unnamed()).isEmpty();
    assertThat(reply.view()).as("a blank active site is no view").isNull();
  }

  @Test
  void answersAreForTheGroupsCredentialOnly() throws Exception {
    get("/active-site" + ORDERS_QUERY + "&site=iad", ORDERS_TOKEN);

    for (String authorization : new String[] {null, "Basic " + ORDERS_TOKEN, "Bearer "}) {
      HttpResponse<String> response = send("GET", "/answers" + ORDERS_QUERY + "&site=iad", authorization);
      assertThat(response.statusCode()).as(authorization).isEqualTo(401);
      assertThat(response.headers().firstValue("WWW-Authenticate")).contains("Bearer");
      assertThat(response.body()).doesNotContain("iad");
    }
    HttpResponse<String> otherGroups = get("/answers" + ORDERS_QUERY + "&site=iad", PAYMENTS_TOKEN);
    assertThat(otherGroups.statusCode()).isEqualTo(403);
    assertThat(otherGroups.body()).doesNotContain("agoMillis");
    assertThat(get("/answers" + ORDERS_QUERY + "&site=iad", INSTALL_TOKEN).statusCode())
        .as("a group with its own credential does not take the install's").isEqualTo(403);
    assertThat(get("/answers?namespace=shop&group=unknown&site=iad", PAYMENTS_TOKEN).statusCode())
        .as("an unknown group is refused as an existing one would be").isEqualTo(403);
    assertThat(get("/answers?namespace=shop&group=unknown&site=iad", INSTALL_TOKEN).statusCode()).isEqualTo(404);
    synced.set(false);
    assertThat(get("/answers?namespace=shop&group=unknown&site=iad", INSTALL_TOKEN).statusCode())
        .as("a cache not current may not have listed it yet").isEqualTo(503);
  }

  @Test
  void eachParameterIsRequiredOnceAndOnlyGetIsServed() throws Exception {
    for (String query : new String[] {"", "?namespace=shop&group=orders", "?namespace=shop&group=orders&site=",
        "?namespace=shop&group=orders&site=%20", "?group=orders&site=iad", "?namespace=shop&group=%20&site=iad",
        "?namespace=shop&group=orders&site=iad&site=pdx"}) {
      assertThat(get("/answers" + query, ORDERS_TOKEN).statusCode()).as(query).isEqualTo(400);
    }
    HttpResponse<String> post = send("POST", "/answers" + ORDERS_QUERY + "&site=iad", ORDERS_TOKEN);
    assertThat(post.statusCode()).isEqualTo(405);
    assertThat(post.headers().firstValue("Allow")).contains("GET");
    assertThat(get("/answers/more" + ORDERS_QUERY + "&site=iad", ORDERS_TOKEN).statusCode()).isEqualTo(404);
  }

  private void advance(long millis) {
    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
  }

  private AnswersReply answers(String site, String token) throws Exception {
    return readAnswers(ORDERS.name(), site, token);
  }

  private AnswersReply readAnswers(String group, String site, String token) throws Exception {
    HttpResponse<String> response =
        get("/answers?namespace=" + MockCluster.NAMESPACE + "&group=" + group + "&site=" + site, token);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return Wire.read(response.body(), AnswersReply.class);
  }

  private void remount(ActiveSiteHandler handler) {
    server.removeContext(ActiveSiteHandler.PATH);
    server.removeContext(ActiveSiteHandler.ANSWERS_PATH);
    server.createContext(ActiveSiteHandler.PATH, handler);
    server.createContext(ActiveSiteHandler.ANSWERS_PATH, handler);
  }

  /** A group with its own sidecar credential {@code token}, its status naming {@code activeSite} (null: none). */
  private void group(String name, String token, String activeSite) {
    String secret = name + "-sidecar";
    cluster.client().secrets().inNamespace(MockCluster.NAMESPACE).resource(new SecretBuilder().withNewMetadata()
        .withName(secret).withNamespace(MockCluster.NAMESPACE).endMetadata().withStringData(Map.of("token", token))
        .build()).create();
    MysqlFailoverGroup group = cluster.createGroup(name,
        List.of(MockCluster.site(name, "iad", "10.0.1.10"), MockCluster.site(name, "pdx", "10.0.2.10")));
    MysqlFailoverGroupSpec spec = group.getSpec();
    group.setSpec(new MysqlFailoverGroupSpec(spec.sites(), spec.credentialsSecretRef(), null, null, null, null, null,
        null, null, spec.dns(), new MysqlFailoverGroupSpec.SidecarSpec(null, null,
            new MysqlFailoverGroupSpec.SecretKeyRef(secret, null)),
        null));
    cluster.client().resource(group).update();
    if (activeSite != null) {
      cluster.setStatus(new GroupRef(MockCluster.NAMESPACE, name),
          MysqlFailoverGroupStatus.empty().withActiveSite(activeSite));
    }
  }

  private HttpResponse<String> get(String pathAndQuery, String token) throws IOException, InterruptedException {
    return send("GET", pathAndQuery, token == null ? null : "Bearer " + token);
  }

  private HttpResponse<String> send(String method, String pathAndQuery, String authorization)
      throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest
        .newBuilder(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + pathAndQuery))
        .method(method, HttpRequest.BodyPublishers.noBody());
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
