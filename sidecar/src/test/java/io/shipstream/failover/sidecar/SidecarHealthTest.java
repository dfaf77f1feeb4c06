package io.shipstream.failover.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shipstream.failover.model.SidecarLiveness;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.sidecar.FencingDecision.MysqlState;
import io.shipstream.failover.testsupport.MutableClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code /health} against the fencing loop's progress, on a clock moved by hand and a local server
 * whose look blocks as a hung JDBC call would: healthy while ticks complete, 503 with the reason
 * once none completed within the bound, healthy again once one does.
 */
class SidecarHealthTest {
  private static final Instant T0 = Instant.parse("2025-03-01T10:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(20);
  private static final Duration INTERVAL = Duration.ofSeconds(5);
  private static final Duration BOUND = SidecarLiveness.healthBound(INTERVAL);

  private final MutableClock clock = new MutableClock(T0);
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final FakeWatcher watcher = new FakeWatcher(SharedToken.of(Configs.TOKEN), "iad");
  private final HttpClient http = HttpClient.newHttpClient();
  private Sidecar sidecar;

  @AfterEach
  void stop() {
    if (sidecar != null) {
      sidecar.close();
    }
    watcher.close();
    threads.shutdownNow();
  }

  @Test
  void aLoopStuckInALookIsStalledUntilATickCompletesAgain() throws Exception {
    BlockingLocalMysql mysql = new BlockingLocalMysql(MysqlState.WRITABLE);
    FencingLoop loop = loop(mysql);

    loop.tick();
    assertThat(loop.stalled()).as("a tick just completed").isEmpty();
    assertThat(loop.status().lastTickCompletedAt()).contains(T0);
    assertThat(loop.status().healthBound()).isEqualTo(BOUND);

    // Healthy: ticks keep completing, each one interval after the last.
    for (int i = 0; i < 5; i++) {
      clock.advance(INTERVAL);
      loop.tick();
      assertThat(loop.stalled()).isEmpty();
    }
    Instant lastCompleted = clock.instant();

    // Stale: the next tick hangs in its look at the server.
    mysql.hang();
    Future<?> stuck = threads.submit(loop::tick);
    mysql.awaitStuck();
    clock.advance(BOUND);
    assertThat(loop.stalled()).as("exactly the bound is still healthy").isEmpty();
    clock.advance(Duration.ofMillis(1));
    assertThat(loop.stalled()).contains("fencing loop stalled: no tick completed for "
        + BOUND.plusMillis(1).toMillis() + " ms (bound " + BOUND.toMillis() + " ms)");
    assertThat(loop.status().lastTickCompletedAt()).contains(lastCompleted);

    // Recovered: the call returns, the tick completes.
    mysql.release();
    stuck.get();
    assertThat(loop.stalled()).isEmpty();
    assertThat(loop.status().lastTickCompletedAt()).contains(clock.instant());
  }

  @Test
  void aLoopWhoseFirstTickNeverEndsIsStalledOneBoundAfterTheStart() throws Exception {
    BlockingLocalMysql mysql = new BlockingLocalMysql(MysqlState.WRITABLE);
    mysql.hang();
    FencingLoop loop = loop(mysql);
    threads.submit(loop::tick);
    mysql.awaitStuck();

    clock.advance(BOUND);
    assertThat(loop.stalled()).isEmpty();
    clock.advance(Duration.ofSeconds(1));
    assertThat(loop.stalled()).hasValueSatisfying(reason -> assertThat(reason)
        .isEqualTo("fencing loop stalled: no tick completed since the start, " + BOUND.plusSeconds(1).toMillis()
            + " ms (bound " + BOUND.toMillis() + " ms)"));
    assertThat(loop.status().lastTickCompletedAt()).isEmpty();
    mysql.release();
  }

  /** The whole sidecar: /health and /status as the kubelet and the control plane read them. */
  @Test
  void healthAnswers503WithTheReasonWhileTheHttpThreadsStillServe() throws Exception {
    BlockingLocalMysql mysql = new BlockingLocalMysql(MysqlState.WRITABLE);
    sidecar = Sidecar.start(Configs.config("iad", watcher.url(), List.of(), LEASE, INTERVAL), clock, mysql);
    SidecarUnderTest.awaitTrue(() -> sidecar.status().ticks() >= 1);
    HttpResponse<String> healthy = get("/health");
    assertThat(healthy.statusCode()).isEqualTo(200);
    assertThat(healthy.body()).isEqualTo("ok\n");
    JsonNode status = new ObjectMapper().readTree(get("/status").body());
    assertThat(status.get("lastTickCompletedAt").asText()).isEqualTo(T0.toString());
    assertThat(status.get("healthBoundMillis").asLong()).isEqualTo(BOUND.toMillis());

    // The next tick (asked for over POST /tick, as the worker does) hangs in its look.
    mysql.hang();
    threads.submit(() -> post("/tick"));
    mysql.awaitStuck();
    clock.advance(BOUND.plusSeconds(1));
    HttpResponse<String> stalled = get("/health");
    assertThat(stalled.statusCode()).isEqualTo(503);
    assertThat(stalled.body()).isEqualTo("fencing loop stalled: no tick completed for "
        + BOUND.plusSeconds(1).toMillis() + " ms (bound " + BOUND.toMillis() + " ms)\n");
    assertThat(stalled.body().lines()).hasSize(1);
    assertThat(get("/metrics").statusCode()).as("the HTTP threads answer all along").isEqualTo(200);

    mysql.release();
    SidecarUnderTest.awaitTrue(() -> sidecar.status().lastTickCompletedAt().equals(java.util.Optional.of(
        clock.instant())));
    assertThat(get("/health").statusCode()).isEqualTo(200);
  }

  private FencingLoop loop(LocalMysql mysql) {
    SidecarConfig config = Configs.config("iad", watcher.url(), List.of(), LEASE, INTERVAL);
    return new FencingLoop(config, clock, new TopologyClient(config, clock, threads), mysql, ServerProcess.none(),
        new SidecarMetrics(config.watcherUrl(), config.peerUrls()));
  }

  private HttpResponse<String> get(String path) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sidecar.port() + path))
        .timeout(Duration.ofSeconds(5));
    if (!path.equals("/health") && !path.equals("/metrics")) {
      request.header("Authorization", "Bearer " + Configs.TOKEN);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sidecar.port() + path))
        .header("Authorization", "Bearer " + Configs.TOKEN).POST(HttpRequest.BodyPublishers.noBody())
        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
