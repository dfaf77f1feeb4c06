package io.shipstream.failover.sidecar;

import static io.shipstream.failover.sidecar.SidecarUnderTest.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.sidecar.FencingDecision.MysqlState;
import io.shipstream.failover.wire.AnswersReply;
import io.shipstream.failover.wire.Wire;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/** A whole sidecar in-process, its MySQL faked: what callers of its HTTP endpoints see. */
class SidecarHttpTest {
  private static final Duration LEASE = Duration.ofMillis(1500);
  private static final Duration INTERVAL = Duration.ofMillis(300);

  @RegisterExtension
  final SidecarUnderTest rig = new SidecarUnderTest(LEASE, INTERVAL);
  private final FakeWatcher watcher = rig.watcher;
  private Sidecar sidecar;

  @Test
  void peerEndpointsAnswerOnlyHoldersOfTheToken() throws Exception {
    sidecar = start(watcher.url(), new FakeLocalMysql(MysqlState.WRITABLE));

    for (String path : List.of("/peer/ping", "/peer/active-site")) {
      HttpResponse<String> anonymous = get(path, null);
      assertThat(anonymous.statusCode()).isEqualTo(401);
      assertThat(anonymous.headers().firstValue("WWW-Authenticate")).contains("Bearer");
      assertThat(get(path, "Bearer wrong-token").statusCode()).as("another group's credential").isEqualTo(403);
      assertThat(get(path, "Basic " + Configs.TOKEN).statusCode()).isEqualTo(401);
    }
    HttpResponse<String> ping = get("/peer/ping", "Bearer " + Configs.TOKEN);
    assertThat(ping.statusCode()).isEqualTo(200);
    assertThat(ping.body()).isEqualTo("{\"site\":\"iad\"}");
  }

  @Test
  void peerActiveSiteIs204UntilTheSidecarHasAView() throws Exception {
    sidecar = start(Configs.deadUrl(), new FakeLocalMysql(MysqlState.READ_ONLY));
    awaitTrue(() -> sidecar.status().ticks() >= 2);
    HttpResponse<String> none = get("/peer/active-site", "Bearer " + Configs.TOKEN);
    assertThat(none.statusCode()).isEqualTo(204);
    assertThat(none.body()).isEmpty();
    sidecar.close();

    sidecar = start(watcher.url(), new FakeLocalMysql(MysqlState.READ_ONLY));
    awaitTrue(() -> sidecar.status().view().isPresent());
    HttpResponse<String> view = get("/peer/active-site", "Bearer " + Configs.TOKEN);
    assertThat(view.statusCode()).isEqualTo(200);
    assertThat(ActiveSiteView.parse(view.body().getBytes()).activeSite()).isEqualTo("iad");
  }

  @Test
  void everyPeerAnswerIsLoggedByTheSiteThePeerNamesAndAnswersReadsThemBack() throws Exception {
    sidecar = start(watcher.url(), new FakeLocalMysql(MysqlState.READ_ONLY));
    awaitTrue(() -> sidecar.status().view().isPresent());

    assertThat(get("/peer/active-site?site=pdx", "Bearer " + Configs.TOKEN).statusCode()).isEqualTo(200);
    assertThat(get("/peer/active-site", "Bearer " + Configs.TOKEN).statusCode()).isEqualTo(200);
    assertThat(get("/peer/active-site?site=pdx", "Bearer wrong-token").statusCode()).isEqualTo(403);

    HttpResponse<String> reply = get("/answers?site=pdx", "Bearer " + Configs.TOKEN);
    assertThat(reply.statusCode()).isEqualTo(200);
    AnswersReply answers = Wire.read(reply.body(), AnswersReply.class);
    assertThat(answers.site()).isEqualTo("pdx");
    assertThat(answers.answers()).as("the refused request is no answer").hasSize(1);
    assertThat(answers.answers().get(0).activeSite()).isEqualTo("iad");
    assertThat(answers.answersComplete()).isTrue();
    assertThat(answers.unnamed()).as("the peer that named no site").hasSize(1);
    assertThat(answers.view().activeSite()).isEqualTo("iad");
    assertThat(answers.upMillis()).isPositive();
    assertThat(Wire.read(get("/answers?site=dfw", "Bearer " + Configs.TOKEN).body(), AnswersReply.class).answers())
        .isEmpty();

    assertThat(get("/answers", "Bearer " + Configs.TOKEN).statusCode()).isEqualTo(400);
    assertThat(get("/answers?site=pdx", null).statusCode()).isEqualTo(401);
    assertThat(get("/answers?site=pdx", "Bearer wrong-token").statusCode()).isEqualTo(403);
  }

  @Test
  void healthAndMetricsAreOpenAndTheStatusNeedsTheToken() throws Exception {
    sidecar = start(watcher.url(), new FakeLocalMysql(MysqlState.WRITABLE));
    awaitTrue(() -> sidecar.status().ticks() >= 1);

    assertThat(get("/health", null).body()).isEqualTo("ok\n");
    for (String refused : new String[] {null, "Bearer wrong-token", "Basic " + Configs.TOKEN}) {
      HttpResponse<String> anonymous = get("/status", refused);
      assertThat(anonymous.statusCode()).as("/status with %s", refused).isEqualTo(refused != null
          && refused.startsWith("Bearer") ? 403 : 401);
      assertThat(anonymous.body()).doesNotContain("iad", "WRITABLE");
    }
    HttpResponse<String> status = get("/status", "Bearer " + Configs.TOKEN);
    assertThat(status.statusCode()).isEqualTo(200);
    assertThat(status.body()).contains("\"site\":\"iad\"", "\"activeSite\":\"iad\"", "\"mysql\":\"WRITABLE\"",
        "\"boot\":\"DONE\"");
    HttpResponse<String> metrics = get("/metrics", null);
    assertThat(metrics.headers().firstValue("Content-Type"))
        .hasValueSatisfying(type -> assertThat(type).startsWith("text/plain"));
    assertThat(metrics.body()).contains(
        "bloodraven_sidecar_fences_total{group=\"shop/orders\",rule=\"boot\",site=\"iad\"} 0.0",
        "bloodraven_sidecar_fences_total{group=\"shop/orders\",rule=\"rule1\",site=\"iad\"} 0.0",
        "bloodraven_sidecar_fences_total{group=\"shop/orders\",rule=\"rule2\",site=\"iad\"} 0.0",
        "bloodraven_sidecar_last_contact_timestamp_seconds{endpoint=\"127.0.0.1:" + watcher.port()
            + "\",group=\"shop/orders\",kind=\"watcher\",site=\"iad\"}");
  }

  @Test
  void unknownPathsAre404AndOnlyGetIsAllowed() throws Exception {
    sidecar = start(watcher.url(), new FakeLocalMysql(MysqlState.WRITABLE));

    assertThat(get("/peer/pingx", "Bearer " + Configs.TOKEN).statusCode()).isEqualTo(404);
    assertThat(get("/", null).statusCode()).isEqualTo(404);
    HttpResponse<String> post = rig.send(HttpRequest.newBuilder(rig.url("/peer/ping"))
        .POST(HttpRequest.BodyPublishers.ofString("{}")), "Bearer " + Configs.TOKEN);
    assertThat(post.statusCode()).isEqualTo(405);
  }

  @Test
  void unauthenticatedCallersCanNeitherHoldTheLeaseNorSupplyAView() throws Exception {
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.WRITABLE);
    sidecar = start(watcher.url(), mysql);
    awaitTrue(() -> sidecar.status().boot() == FencingDecision.Boot.DONE);

    // The watcher goes away; someone without the token keeps calling the sidecar.
    watcher.stop();
    long deadline = System.nanoTime() + LEASE.multipliedBy(3).toNanos();
    while (mysql.calls.isEmpty() && System.nanoTime() < deadline) {
      get("/peer/ping", null);
      get("/peer/active-site", "Bearer guessed");
      Thread.sleep(20);
    }

    assertThat(mysql.calls).containsExactly("fence");
    // The loop recorded its action just after the fence it applied returned.
    awaitTrue(() -> sidecar.status().lastAction() == FencingDecision.Action.FENCE_RULE2);
  }

  @Test
  void credentialsNeverAppearInTheLogs() throws Exception {
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    Logger ours = (Logger) LoggerFactory.getLogger("io.shipstream");
    Level before = ours.getLevel();
    ListAppender<ILoggingEvent> captured = new ListAppender<>();
    captured.start();
    root.addAppender(captured);
    ours.setLevel(Level.TRACE);
    try {
      StubHttpServer refusingPeer = new StubHttpServer().respond("/peer/active-site", 401, "no");
      try (refusingPeer) {
        FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.WRITABLE);
        sidecar = rig.start(watcher.url(), List.of(refusingPeer.url()), mysql);
        awaitTrue(() -> sidecar.status().ticks() >= 2);
        get("/peer/ping", "Bearer not-the-token");
        watcher.activeSite("dfw");
        awaitTrue(() -> !mysql.calls.isEmpty());
        sidecar.close();
      }
    } finally {
      root.detachAppender(captured);
      ours.setLevel(before);
    }

    List<String> lines = captured.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    assertThat(lines).anySatisfy(line -> assertThat(line).contains("sidecar started"));
    assertThat(lines).anySatisfy(line -> assertThat(line).contains("fenced the local MariaDB server (rule1)"));
    assertThat(String.join("\n", lines)).doesNotContain(Configs.TOKEN, Configs.MYSQL_PASSWORD, "not-the-token");
  }

  private Sidecar start(URI watcherUrl, FakeLocalMysql mysql) {
    return rig.start(watcherUrl, List.of(), mysql);
  }

  private HttpResponse<String> get(String path, String authorization) throws Exception {
    return rig.get(path, authorization);
  }
}
