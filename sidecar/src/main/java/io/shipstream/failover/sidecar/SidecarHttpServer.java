package io.shipstream.failover.sidecar;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.shipstream.failover.runtime.SharedToken;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /health} and {@code /metrics} are open: the kubelet and Prometheus read them, and
 * they say nothing about the group beyond counters. {@code /health} answers 503 with a one-line
 * reason once the fencing loop has not completed a tick within its health bound, not only when
 * this server is gone: the kubelet's liveness probe then restarts a sidecar whose lease is no
 * longer kept by anything. Everything else needs the group's bearer
 * token and answers 401 without it: {@code /peer/ping} and {@code /peer/active-site} (a peer's
 * view can fence this group's servers, so only a holder of the token may serve or read one),
 * {@code GET /status} (it shows the peers, the lease's expiry and the state of MySQL: a map for
 * whoever would cut the right links) and {@code POST /tick}, which runs a fencing tick now and
 * answers the fresh status: the failover workflow's worker asks for one so that the old primary's
 * sidecar learns the new active site without waiting for its next scheduled tick. A tick only
 * applies the sidecar's own rules, so an extra one can fence but never unfence anything the rules
 * would not; the sidecar rate-limits them.
 */
final class SidecarHttpServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SidecarHttpServer.class);
  private static final String JSON = "application/json";
  static final String TICK_PATH = "/tick";

  private final HttpServer server;

  SidecarHttpServer(InetSocketAddress address, ExecutorService executor, SharedToken token, String site,
      Supplier<Optional<ActiveSiteView>> view, Supplier<SidecarStatus> status, Supplier<String> metrics,
      Supplier<SidecarStatus> tickNow, Supplier<Optional<String>> stalled) throws IOException {
    String pingBody = new ObjectMapper().createObjectNode().put("site", site).toString();
    server = HttpServer.create(address, 16);
    server.setExecutor(executor);
    Map<String, Handler> routes = Map.of(
        "/health", exchange -> {
          Optional<String> problem = stalled.get();
          if (problem.isPresent()) {
            send(exchange, 503, "text/plain", problem.get() + "\n");
          } else {
            send(exchange, 200, "text/plain", "ok\n");
          }
        },
        "/status", authenticated(token, exchange -> send(exchange, 200, JSON, status.get().toJson())),
        "/metrics", exchange -> send(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", metrics.get()),
        TopologyClient.PEER_PING_PATH, authenticated(token,
            exchange -> send(exchange, 200, JSON, pingBody)),
        TopologyClient.PEER_ACTIVE_SITE_PATH, authenticated(token, exchange -> {
          var current = view.get();
          if (current.isPresent()) {
            send(exchange, 200, JSON, current.get().toJson());
          } else {
            send(exchange, 204, null, null);
          }
        }));
    // The one route that is not a GET; every other path keeps answering 405 to anything but GET.
    Map<String, Handler> posts = Map.of(
        TICK_PATH, authenticated(token, exchange -> send(exchange, 200, JSON, tickNow.get().toJson())));
    server.createContext("/", exchange -> {
      try (exchange) {
        String path = exchange.getRequestURI().getPath();
        Handler handler = routes.get(path);
        Handler post = posts.get(path);
        if (post != null) {
          if ("POST".equals(exchange.getRequestMethod())) {
            post.handle(exchange);
          } else {
            exchange.getResponseHeaders().set("Allow", "POST");
            send(exchange, 405, "text/plain", "only POST\n");
          }
        } else if (handler == null) {
          send(exchange, 404, "text/plain", "not found\n");
        } else if (!"GET".equals(exchange.getRequestMethod())) {
          exchange.getResponseHeaders().set("Allow", "GET");
          send(exchange, 405, "text/plain", "only GET\n");
        } else {
          handler.handle(exchange);
        }
      } catch (IOException | RuntimeException e) {
        LOG.debug("request {} failed: {}", exchange.getRequestURI().getPath(), e.toString());
      }
    });
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  private interface Handler {
    void handle(HttpExchange exchange) throws IOException;
  }

  private static Handler authenticated(SharedToken token, Handler handler) {
    return exchange -> {
      if (token.matches(exchange.getRequestHeaders().getFirst("Authorization"))) {
        handler.handle(exchange);
      } else {
        // Neither the presented header nor the token is logged.
        LOG.debug("refused an unauthenticated {} from {}", exchange.getRequestURI().getPath(),
            exchange.getRemoteAddress().getAddress().getHostAddress());
        exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
        send(exchange, 401, "text/plain", "a bearer token is required\n");
      }
    };
  }

  private static void send(HttpExchange exchange, int code, String contentType, String body) throws IOException {
    if (body == null) {
      exchange.sendResponseHeaders(code, -1);
      return;
    }
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
