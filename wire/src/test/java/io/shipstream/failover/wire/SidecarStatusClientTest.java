package io.shipstream.failover.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The sidecar status client against a real HTTP server: the path after a base with or without its
 * slash, the method, the Authorization header only when there is one, and what each status means.
 */
class SidecarStatusClientTest {
  private final List<String> asked = new CopyOnWriteArrayList<>();
  private HttpServer server;
  private String base;
  private SidecarStatusClient client;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      String authorization = exchange.getRequestHeaders().getFirst("Authorization");
      asked.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath() + " " + authorization);
      int status = switch (exchange.getRequestURI().getPath()) {
        case "/status" -> 200;
        case "/tick" -> authorization == null ? 401 : 403;
        default -> 500;
      };
      byte[] body = "{\"site\":\"iad\"}".getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(status, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    server.start();
    base = "http://127.0.0.1:" + server.getAddress().getPort();
    client = new SidecarStatusClient(HttpClient.newHttpClient(), Duration.ofSeconds(2));
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void aStatusIsAskedWithTheCredentialAndItsBodyRead() throws Exception {
    HttpResponse<String> response = client.send(base + "/", "/status", false, "Bearer secret");

    assertThat(SidecarStatusClient.body(response)).isEqualTo("{\"site\":\"iad\"}");
    assertThat(Wire.read(SidecarStatusClient.body(response), SidecarStatusAnswer.class).site()).isEqualTo("iad");
    assertThat(asked).containsExactly("GET /status Bearer secret");
  }

  @Test
  void aRefusalSaysItsStatusAndAnyOtherFailureItsStatusAndAddress() throws Exception {
    HttpResponse<String> withToken = client.send(base, "/tick", true, "Bearer wrong");
    HttpResponse<String> withoutToken = client.send(base, "/tick", true, null);
    HttpResponse<String> broken = client.send(base, "/other", false, null);

    assertThat(asked).containsExactly("POST /tick Bearer wrong", "POST /tick null", "GET /other null");
    assertThatThrownBy(() -> SidecarStatusClient.body(withToken)).isInstanceOfSatisfying(
        SidecarStatusClient.Refused.class, e -> assertThat(e.status()).isEqualTo(403));
    assertThatThrownBy(() -> SidecarStatusClient.body(withoutToken)).isInstanceOfSatisfying(
        SidecarStatusClient.Refused.class, e -> assertThat(e.status()).isEqualTo(401));
    assertThatThrownBy(() -> SidecarStatusClient.body(broken)).isExactlyInstanceOf(IOException.class)
        .hasMessage("HTTP 500 from " + base + "/other");
  }
}
