package io.shipstream.failover.sidecar;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback HTTP server answering canned responses by path (404 for any other path), recording
 * the Authorization header of every request: a peer or watcher whose behaviour a test dictates.
 */
final class StubHttpServer implements AutoCloseable {
  record Response(int status, String body) {}

  private final HttpServer server;
  private final Map<String, Response> routes = new ConcurrentHashMap<>();
  final List<String> authorizations = new CopyOnWriteArrayList<>();
  final List<String> paths = new CopyOnWriteArrayList<>();
  private boolean closed;

  StubHttpServer() {
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext("/", exchange -> {
      try (exchange) {
        paths.add(exchange.getRequestURI().toString());
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        authorizations.add(authorization == null ? "(none)" : authorization);
        Response response = routes.getOrDefault(exchange.getRequestURI().getPath(), new Response(404, "not found"));
        if (response.body() == null) {
          exchange.sendResponseHeaders(response.status(), -1);
        } else {
          byte[] bytes = response.body().getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(response.status(), bytes.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
          }
        }
      }
    });
    server.start();
  }

  StubHttpServer respond(String path, int status, String body) {
    routes.put(path, new Response(status, body));
    return this;
  }

  URI url() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      server.stop(0);
    }
  }
}
