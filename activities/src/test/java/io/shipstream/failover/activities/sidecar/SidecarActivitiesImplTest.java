package io.shipstream.failover.activities.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.shipstream.failover.activities.mysql.Heartbeat;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.workflows.activities.SidecarActivities.Confirmation;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Against a stub sidecar on a loopback port: what the old primary's sidecar answers decides. */
class SidecarActivitiesImplTest {
  private static final SharedToken TOKEN = SharedToken.of("sidecar-token");
  private final AtomicReference<String> mysql = new AtomicReference<>("WRITABLE");
  private final AtomicReference<String> active = new AtomicReference<>("iad");
  /** The timing fields the stub adds to its status; empty, an older sidecar's status without them. */
  private final AtomicReference<String> timing = new AtomicReference<>("");
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private HttpServer server;
  private final SidecarActivitiesImpl activities = new SidecarActivitiesImpl(Clock.systemUTC(), TOKEN, Heartbeat.NONE);

  private String start(boolean hasTick) throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
    server.createContext("/", exchange -> {
      try (exchange) {
        String path = exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath();
        requests.add(path);
        // As the sidecar does: the token first, then the route.
        if (!TOKEN.matches(exchange.getRequestHeaders().getFirst("Authorization"))) {
          exchange.sendResponseHeaders(401, -1);
          return;
        }
        boolean known = path.equals("GET /status") || (hasTick && path.equals("POST /tick"));
        String body = "{\"site\":\"iad\",\"view\":{\"activeSite\":\"" + active.get()
            + "\",\"observedAt\":\"2026-01-01T00:00:00Z\"},\"mysql\":\"" + mysql.get() + "\",\"ticks\":3"
            + timing.get() + "}";
        byte[] bytes = (known ? body : "not found\n").getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(known ? 200 : 404, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(bytes);
        }
      }
    });
    server.start();
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** A sidecar with {@code POST /tick} that sees pdx active and its server {@code mysqlState}; returns its URL. */
  private String sidecarSeeingPdxActive(String mysqlState) throws IOException {
    String url = start(true);
    active.set("pdx");
    mysql.set(mysqlState);
    return url;
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  @Test
  void confirmsAtOnceWhenTheTickShowsTheNewActiveSiteAndAReadOnlyServer() throws IOException {
    String url = sidecarSeeingPdxActive("READ_ONLY");
    Confirmation answer = activities.confirmFenced(url, "iad", "pdx", Instant.now().plusSeconds(5));
    assertThat(answer.confirmed()).isTrue();
    assertThat(answer.last().mysql()).isEqualTo("READ_ONLY");
    assertThat(answer.last().leaseTimeoutMillis()).as("an older sidecar reports no timing").isNull();
    assertThat(answer.last().peerCheckIntervalMillis()).isNull();
    assertThat(requests).containsExactly("POST /tick");
  }

  @Test
  void aServerItCannotReachIsNoProofButADeadOneIs() throws IOException {
    String url = sidecarSeeingPdxActive("UNREACHABLE");
    Confirmation frozen = activities.confirmFenced(url, "iad", "pdx", Instant.now().plusMillis(800));
    assertThat(frozen.confirmed()).as("unreachable is not read-only: a frozen server resumes writable").isFalse();
    assertThat(frozen.last().mysql()).isEqualTo("UNREACHABLE");
    mysql.set("STOPPED");
    assertThat(activities.confirmFenced(url, "iad", "pdx", Instant.now().plusSeconds(5)).confirmed()).isTrue();
  }

  @Test
  void pollsUntilTheSidecarHasFencedAndFallsBackToStatusOnAnOlderSidecar() throws IOException {
    String url = start(false);
    new Thread(() -> {
      sleep(600);
      active.set("pdx");
      sleep(300);
      mysql.set("READ_ONLY");
    }).start();
    Confirmation answer = activities.confirmFenced(url, "iad", "pdx", Instant.now().plusSeconds(5));
    assertThat(answer.confirmed()).isTrue();
    assertThat(answer.waitedMillis()).isBetween(800L, 4000L);
    assertThat(requests).contains("POST /tick", "GET /status");
  }

  @Test
  void theLeaseAndIntervalTheSidecarRunsWithComeBackWithItsAnswer() throws IOException {
    String url = sidecarSeeingPdxActive("UNREACHABLE");
    timing.set(",\"leaseTimeoutMillis\":30000,\"peerCheckIntervalMillis\":5000");

    Confirmation answer = activities.confirmFenced(url, "iad", "pdx", Instant.now().plusMillis(500));

    assertThat(answer.confirmed()).isFalse();
    assertThat(answer.last().leaseTimeoutMillis()).isEqualTo(30_000L);
    assertThat(answer.last().peerCheckIntervalMillis()).isEqualTo(5_000L);
  }

  @Test
  void aWritableServerOrAnOldViewIsNeverConfirmed() throws IOException {
    String url = start(true);
    active.set("pdx");
    Confirmation answer = activities.confirmFenced(url, "iad", "pdx", Instant.now().plusMillis(800));
    assertThat(answer.confirmed()).isFalse();
    assertThat(answer.last().mysql()).isEqualTo("WRITABLE");
    active.set("iad");
    mysql.set("READ_ONLY");
    assertThat(activities.confirmFenced(url, "iad", "pdx", Instant.now().plusMillis(500)).confirmed()).isFalse();
    // A sidecar that reports another site (a wrong URL in the spec) proves nothing about iad.
    active.set("pdx");
    assertThat(activities.confirmFenced(url, "sfo", "pdx", Instant.now().plusMillis(500)).confirmed()).isFalse();
  }

  @Test
  void aSidecarThatRefusesTheTokenIsReportedAsSuchNotAsAnHttpError() throws IOException {
    String url = sidecarSeeingPdxActive("READ_ONLY");

    Confirmation wrong = new SidecarActivitiesImpl(Clock.systemUTC(), SharedToken.of("not-the-token"),
        Heartbeat.NONE).confirmFenced(url, "iad", "pdx", Instant.now().plusMillis(500));
    Confirmation none = new SidecarActivitiesImpl(Clock.systemUTC(), null, Heartbeat.NONE)
        .confirmFenced(url, "iad", "pdx", Instant.now().plusMillis(500));

    assertThat(wrong.confirmed()).isFalse();
    assertThat(wrong.last()).isNull();
    assertThat(wrong.problem()).startsWith("the sidecar refused the token (401)").doesNotContain("not-the-token");
    assertThat(none.confirmed()).isFalse();
    assertThat(none.problem()).startsWith("the sidecar refused the request (401)").contains("no sidecar token");
    assertThat(activities.confirmFenced(url, "iad", "pdx", Instant.now().plusSeconds(5)).confirmed())
        .as("with the right token").isTrue();
  }

  @Test
  void anUnreachableSidecarIsReportedAtTheDeadline() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Instant deadline = Instant.now().plusMillis(700);
    Confirmation answer = activities.confirmFenced("http://127.0.0.1:" + port, "iad", "pdx", deadline);
    assertThat(answer.confirmed()).isFalse();
    assertThat(answer.last()).isNull();
    assertThat(answer.problem()).contains("ConnectException");
    assertThat(Instant.now()).isBefore(deadline.plusSeconds(2));
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
