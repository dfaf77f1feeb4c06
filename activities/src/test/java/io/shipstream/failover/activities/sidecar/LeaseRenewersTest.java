package io.shipstream.failover.activities.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.shipstream.failover.activities.mysql.Heartbeat;
import io.shipstream.failover.runtime.AnswerLog;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.wire.Wire;
import io.shipstream.failover.workflows.activities.SidecarActivities.Renewal;
import io.shipstream.failover.workflows.activities.SidecarActivities.RenewalAsk;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The read of the old primary's last renewal against renewers on loopback ports that serve {@code
 * GET /answers} from the runtime's own {@link AnswerLog}, on a monotonic clock the test moves: the
 * peers' form ({@code ?site=}) and the watcher's ({@code ?namespace&group&site}), behind the token.
 */
class LeaseRenewersTest {
  private static final SharedToken TOKEN = SharedToken.of("group-token");
  private static final Duration SECOND = Duration.ofSeconds(1);
  private final AtomicLong nanos = new AtomicLong(1_000_000_000_000L);
  private final List<HttpServer> servers = new ArrayList<>();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(SECOND).build();
  private final Instant namedAt = Instant.now();

  /** A renewer: its log, the view it answers with now, and how often it was read. */
  private final class Renewer {
    final AnswerLog log = new AnswerLog(nanos::get);
    final AtomicReference<String> viewSite = new AtomicReference<>("iad");
    final AtomicReference<Instant> viewObservedAt = new AtomicReference<>(namedAt.minusSeconds(30));
    final AtomicInteger reads = new AtomicInteger();
    final String url;

    Renewer(boolean watcher) throws IOException {
      HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
      server.createContext("/answers", exchange -> {
        try (exchange) {
          if (!TOKEN.matches(exchange.getRequestHeaders().getFirst("Authorization"))) {
            exchange.sendResponseHeaders(401, -1);
            return;
          }
          Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
          boolean asked = watcher ? "shop".equals(query.get("namespace")) && "orders".equals(query.get("group"))
              : !query.containsKey("group");
          if (!asked || query.get("site") == null) {
            exchange.sendResponseHeaders(400, -1);
            return;
          }
          reads.incrementAndGet();
          byte[] body = Wire.write(log.read(query.get("site"), viewSite.get(), viewObservedAt.get()))
              .getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        }
      });
      server.start();
      servers.add(server);
      url = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Now answers with a view naming pdx, observed after the naming, as every renewer does within a tick. */
    void takesUpTheNaming() {
      viewSite.set("pdx");
      viewObservedAt.set(namedAt.plusMillis(300));
    }
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> out = new HashMap<>();
    for (String pair : raw == null ? new String[0] : raw.split("&")) {
      int eq = pair.indexOf('=');
      out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
          URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
    }
    return out;
  }

  @AfterEach
  void stop() {
    servers.forEach(s -> s.stop(0));
  }

  private void advance(Duration d) {
    nanos.addAndGet(d.toNanos());
  }

  private LeaseRenewers renewers(WatcherReplicas watchers) {
    return new LeaseRenewers(new io.shipstream.failover.wire.SidecarStatusClient(http, SECOND), watchers,
        Clock.systemUTC(), Heartbeat.NONE);
  }

  private WatcherReplicas replicas(Renewer... watchers) {
    List<WatcherReplicas.Replica> list = new ArrayList<>();
    for (int i = 0; i < watchers.length; i++) {
      list.add(new WatcherReplicas.Replica("watcher-" + i, watchers[i].url));
    }
    return () -> new WatcherReplicas.Listing(list, http);
  }

  private RenewalAsk ask(Duration budget, String... peers) {
    return new RenewalAsk("shop", "orders", "iad", "pdx", namedAt, List.of(peers), Instant.now().plus(budget));
  }

  @Test
  void theLastRenewalIsTheNewestAnswerToTheOldPrimaryThatDidNotFenceIt() throws Exception {
    Renewer peer = new Renewer(false);
    Renewer watcher = new Renewer(true);
    Instant iadView = namedAt.minusSeconds(20);
    // The watcher answered iad until 12 s before the read, its peer until 14 s before; both then
    // answered pdx's sidecar on, which does not count for iad.
    peer.log.answered("iad", "iad", iadView);
    advance(Duration.ofSeconds(2));
    watcher.log.answered("iad", "iad", iadView);
    watcher.log.answered("pdx", "iad", iadView);
    advance(Duration.ofSeconds(12));
    peer.takesUpTheNaming();
    watcher.takesUpTheNaming();

    Instant before = Instant.now();
    Renewal renewal = renewers(replicas(watcher)).lastRenewal(ask(Duration.ofSeconds(3), peer.url), TOKEN);
    Instant after = Instant.now();

    assertThat(renewal.anchored()).as(renewal.basis()).isTrue();
    assertThat(renewal.renewer()).isEqualTo("watcher watcher-0");
    assertThat(renewal.renewersRead()).isEqualTo(2);
    // 12 s before the watcher's reply, which came between before and after.
    assertThat(renewal.agoMillis()).isBetween(12_000L, 12_000L + Duration.between(before, after).toMillis() + 50);
    assertThat(renewal.basis()).contains("an answer to iad that did not fence it");
  }

  @Test
  void aRenewerStillOnTheOldViewIsReadAgainUntilItTakesUpTheNaming() throws Exception {
    Renewer peer = new Renewer(false);
    Renewer watcher = new Renewer(true);
    advance(Duration.ofSeconds(1));
    peer.log.answered("iad", "iad", namedAt.minusSeconds(20));
    advance(Duration.ofSeconds(4));
    watcher.takesUpTheNaming();
    Thread taker = new Thread(() -> {
      while (peer.reads.get() < 3) {
        Thread.onSpinWait();
      }
      peer.takesUpTheNaming();
    });
    taker.start();

    Renewal renewal = renewers(replicas(watcher)).lastRenewal(ask(Duration.ofSeconds(5), peer.url), TOKEN);
    taker.join();

    assertThat(renewal.anchored()).as(renewal.basis()).isTrue();
    assertThat(peer.reads.get()).as("read again every half second until its view fences iad").isGreaterThan(3);
    assertThat(renewal.renewer()).isEqualTo("the sidecar at " + peer.url);
    // The peer's answer to iad, 4 s before the read by the renewers' clock, is later than the
    // watcher's start 5 s before (its complete log holds no answer to iad).
    assertThat(renewal.agoMillis()).isBetween(4_000L, 4_900L);
  }

  @Test
  void aRenewerThatNeverTakesUpTheNamingLeavesNoAnchorAtTheDeadline() throws Exception {
    Renewer peer = new Renewer(false);
    Renewer watcher = new Renewer(true);
    watcher.takesUpTheNaming();

    Renewal renewal = renewers(replicas(watcher)).lastRenewal(ask(Duration.ofMillis(1500), peer.url), TOKEN);

    assertThat(renewal.anchored()).isFalse();
    assertThat(renewal.basis()).contains("the sidecar at " + peer.url + " answers with a view naming iad")
        .contains("it may renew its lease yet");
  }

  @Test
  void aWorkerNotToldWhereTheWatcherReplicasAreLeavesNoAnchor() throws Exception {
    Renewer peer = new Renewer(false);
    peer.takesUpTheNaming();

    Renewal renewal = renewers(WatcherReplicas.UNKNOWN).lastRenewal(ask(Duration.ZERO, peer.url), TOKEN);

    assertThat(renewal.anchored()).isFalse();
    assertThat(renewal.basis()).contains("the watcher's replicas could not be read")
        .contains("WATCHER_POD_SELECTOR");
  }

  @Test
  void aPeerThatCannotBeReachedOrRefusesTheTokenLeavesNoAnchor() throws Exception {
    Renewer watcher = new Renewer(true);
    watcher.takesUpTheNaming();
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }

    Renewal unreachable = renewers(replicas(watcher)).lastRenewal(ask(Duration.ZERO, "http://127.0.0.1:" + closed),
        TOKEN);
    Renewal refused = renewers(replicas(watcher)).lastRenewal(ask(Duration.ZERO), SharedToken.of("another"));

    assertThat(unreachable.anchored()).isFalse();
    assertThat(unreachable.basis()).contains("the sidecar at http://127.0.0.1:" + closed + " could not be read");
    assertThat(refused.anchored()).isFalse();
    assertThat(refused.basis()).contains("watcher watcher-0 could not be read").contains("HTTP 401");
  }

  @Test
  void aWatcherListingNoReplicaLeavesNoAnchor() throws Exception {
    Renewal renewal = renewers(replicas()).lastRenewal(ask(Duration.ZERO), TOKEN);

    assertThat(renewal.anchored()).isFalse();
    assertThat(renewal.basis()).contains("none is listed");
  }
}
