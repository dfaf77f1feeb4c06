package io.shipstream.failover.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ProbeServerTest {
  private final HttpClient http = HttpClient.newHttpClient();
  private final AtomicBoolean ready = new AtomicBoolean();
  private final ProcessMetrics metrics = ProcessMetrics.create();
  private final ProbeServer server = ProbeServer.on(0)
      .readiness(ready::get, "the cache has not synced")
      .metrics(metrics::scrape)
      .handler("/hello", ex -> {
        byte[] body = "hi".getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(200, body.length);
        ex.getResponseBody().write(body);
        ex.close();
      })
      .start();

  @AfterEach
  void stop() {
    server.close();
    metrics.close();
  }

  @Test
  void probesFollowReadinessAndMetricsAreThePrometheusText() throws Exception {
    assertThat(get("/healthz").statusCode()).isEqualTo(200);
    HttpResponse<String> notReady = get("/readyz");
    assertThat(notReady.statusCode()).isEqualTo(503);
    assertThat(notReady.body()).isEqualTo("not ready: the cache has not synced\n");

    ready.set(true);

    assertThat(get("/readyz").statusCode()).isEqualTo(200);
    HttpResponse<String> scrape = get("/metrics");
    assertThat(scrape.headers().firstValue("Content-Type")).hasValue(ProbeServer.PROMETHEUS_TEXT);
    assertThat(scrape.body()).contains("jvm_memory_used_bytes{", "process_uptime_seconds");
  }

  @Test
  void listensOnEveryInterfaceUnlessGivenOne() throws Exception {
    assertThat(server.address().getAddress().isAnyLocalAddress()).isTrue();
    ProbeServer loopback = ProbeServer.on("127.0.0.1", 0).start();
    try {
      assertThat(loopback.address().getAddress().getHostAddress()).isEqualTo("127.0.0.1");
      assertThat(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + loopback.port() + "/healthz"))
          .build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    } finally {
      loopback.close();
    }
  }

  @Test
  void mountedHandlersAnswerAndOnlyExactProbePathsDo() throws Exception {
    assertThat(get("/hello").body()).isEqualTo("hi");
    assertThat(get("/healthz/x").statusCode()).isEqualTo(404);
    HttpResponse<String> post = http.send(HttpRequest.newBuilder(uri("/healthz"))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(405);
    assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.port() + path);
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(uri(path)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
