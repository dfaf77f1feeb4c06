package io.shipstream.failover.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The test proxy itself: a cut link is silent, a restored one carries traffic again. */
class FaultProxyTest {
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @Test
  void forwardsGoesSilentWhenCutAndForwardsAgainWhenRestored() throws Exception {
    try (StubHttpServer server = new StubHttpServer().respond("/hello", 200, "hi");
        FaultProxy proxy = new FaultProxy("test", server.url().getPort())) {
      HttpRequest request = HttpRequest.newBuilder(proxy.url().resolve("/hello")).timeout(Duration.ofSeconds(5)).build();
      HttpRequest impatient = HttpRequest.newBuilder(request.uri()).timeout(Duration.ofMillis(300)).build();

      assertThat(http.send(request, HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("hi");

      proxy.cut();
      long started = System.nanoTime();
      assertThatThrownBy(() -> http.send(impatient, HttpResponse.BodyHandlers.ofString()))
          .isInstanceOf(HttpTimeoutException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(250));

      proxy.restore();
      assertThat(http.send(request, HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("hi");
    }
  }
}
