package io.shipstream.failover.sidecar;

import com.sun.net.httpserver.HttpServer;
import io.shipstream.failover.runtime.SharedToken;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Stands in for the watcher's {@code GET /active-site}: the active site a test sets, observed
 * "now", behind the shared token. It can be stopped and started again on the same port, as a
 * restarted watcher pod behind its Service would be.
 */
final class FakeWatcher implements AutoCloseable {
  private final SharedToken token;
  private final int port;
  private final AtomicInteger answered = new AtomicInteger();
  private volatile String activeSite;
  private HttpServer server;

  FakeWatcher(SharedToken token, String activeSite) {
    this.token = token;
    this.activeSite = activeSite;
    this.server = bind(0);
    this.port = server.getAddress().getPort();
  }

  void activeSite(String site) {
    this.activeSite = site;
  }

  int answered() {
    return answered.get();
  }

  URI url() {
    return URI.create("http://127.0.0.1:" + port);
  }

  int port() {
    return port;
  }

  synchronized void stop() {
    if (server != null) {
      server.stop(0);
      server = null;
    }
  }

  synchronized void start() {
    if (server == null) {
      server = bind(port);
    }
  }

  private HttpServer bind(int onPort) {
    HttpServer created;
    try {
      created = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), onPort), 16);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot bind the fake watcher to port " + onPort, e);
    }
    created.createContext("/active-site", exchange -> {
      try (exchange) {
        if (!token.matches(exchange.getRequestHeaders().getFirst("Authorization"))) {
          send(exchange, 401, "{\"error\":\"unauthorized\"}");
          return;
        }
        String site = activeSite;
        if (site == null) {
          send(exchange, 503, "{\"error\":\"no active site observed yet\"}");
          return;
        }
        answered.incrementAndGet();
        send(exchange, 200, new ActiveSiteView(site, Instant.now()).toJson());
      }
    });
    created.start();
    return created;
  }

  private static void send(com.sun.net.httpserver.HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    stop();
  }
}
