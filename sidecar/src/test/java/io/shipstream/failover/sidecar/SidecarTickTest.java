package io.shipstream.failover.sidecar;

import static io.shipstream.failover.sidecar.SidecarUnderTest.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.sidecar.FencingDecision.MysqlState;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code POST /tick}: the failover workflow asks the old primary's sidecar to apply its rules now
 * instead of at its next scheduled tick, which is a whole minute away here.
 */
class SidecarTickTest {
  private static final Duration LEASE = Duration.ofSeconds(150);
  private static final Duration INTERVAL = Duration.ofSeconds(60);

  private static final String BEARER = "Bearer " + Configs.TOKEN;

  @RegisterExtension
  final SidecarUnderTest rig = new SidecarUnderTest(LEASE, INTERVAL);
  private Sidecar sidecar;

  @Test
  void aTickAskedForFencesAtOnceWhenTheActiveSiteMovedAndAnswersTheFreshStatus() throws Exception {
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.WRITABLE);
    sidecar = start(mysql);
    awaitTrue(() -> sidecar.status().boot() == FencingDecision.Boot.DONE);
    rig.watcher.activeSite("pdx");

    HttpResponse<String> tick = post("/tick", BEARER);

    assertThat(tick.statusCode()).isEqualTo(200);
    assertThat(tick.headers().firstValue("Content-Type")).contains("application/json");
    assertThat(tick.body()).contains("\"activeSite\":\"pdx\"", "\"lastAction\":\"FENCE_RULE1\"", "\"ticks\":2");
    assertThat(mysql.calls).containsExactly("fence");
    Thread.sleep(ExtraTicks.MIN_INTERVAL.toMillis() + 50);
    assertThat(post("/tick", BEARER).body()).as("the next tick sees the server fenced")
        .contains("\"mysql\":\"READ_ONLY\"", "\"lastAction\":\"NONE\"", "\"ticks\":3");
    assertThat(get("/status", BEARER).body()).contains("\"mysql\":\"READ_ONLY\"", "\"ticks\":3");
  }

  @Test
  void ticksAskedForTooOftenAnswerTheLastStatusWithoutTicking() throws Exception {
    sidecar = start(new FakeLocalMysql(MysqlState.READ_ONLY));
    awaitTrue(() -> sidecar.status().ticks() == 1);

    long before = sidecar.status().ticks();
    long started = System.nanoTime();
    for (int i = 0; i < 20; i++) {
      assertThat(post("/tick", BEARER).statusCode()).isEqualTo(200);
    }
    long windows = Duration.ofNanos(System.nanoTime() - started).toMillis() / ExtraTicks.MIN_INTERVAL.toMillis() + 1;

    assertThat(sidecar.status().ticks() - before).as("one extra tick per 200 ms at most, in %d windows", windows)
        .isBetween(1L, windows);
  }

  @Test
  void tickIsPostOnlyNeedsTheTokenAndTheOtherRoutesStayGetOnly() throws Exception {
    FakeLocalMysql mysql = new FakeLocalMysql(MysqlState.WRITABLE);
    sidecar = start(mysql);
    awaitTrue(() -> sidecar.status().boot() == FencingDecision.Boot.DONE);
    rig.watcher.activeSite("pdx");
    long ticks = sidecar.status().ticks();

    HttpResponse<String> getTick = get("/tick", BEARER);
    assertThat(getTick.statusCode()).isEqualTo(405);
    assertThat(getTick.headers().firstValue("Allow")).contains("POST");
    for (String refused : new String[] {null, "Bearer wrong", "Basic " + Configs.TOKEN}) {
      HttpResponse<String> tick = post("/tick", refused);
      boolean otherCredential = refused != null && refused.startsWith("Bearer");
      assertThat(tick.statusCode()).as("POST /tick with %s", refused).isEqualTo(otherCredential ? 403 : 401);
      if (!otherCredential) {
        assertThat(tick.headers().firstValue("WWW-Authenticate")).contains("Bearer");
      }
    }
    assertThat(sidecar.status().ticks()).as("a refused tick does not tick").isEqualTo(ticks);
    assertThat(mysql.calls).as("nor fence").isEmpty();
    for (String path : List.of("/status", "/health", "/peer/ping", "/peer/active-site")) {
      HttpResponse<String> post = post(path, "Bearer " + Configs.TOKEN);
      assertThat(post.statusCode()).as(path).isEqualTo(405);
      assertThat(post.headers().firstValue("Allow")).contains("GET");
    }
    assertThat(post("/tick/x", null).statusCode()).isEqualTo(404);
  }

  private Sidecar start(FakeLocalMysql mysql) {
    return rig.start(mysql);
  }

  private HttpResponse<String> post(String path, String authorization) throws Exception {
    return rig.post(path, authorization);
  }

  private HttpResponse<String> get(String path, String authorization) throws Exception {
    return rig.get(path, authorization);
  }
}
