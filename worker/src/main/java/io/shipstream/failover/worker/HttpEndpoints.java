package io.shipstream.failover.worker;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The worker's own HTTP port: {@code /healthz} (the process answers: liveness), {@code /readyz}
 * (polling Temporal over a healthy connection: readiness) and {@code /metrics} (Prometheus). It
 * serves probes and one scraper, so two threads are plenty, and they are daemons so that a stuck
 * scrape never keeps a terminating JVM alive.
 */
final class HttpEndpoints implements AutoCloseable {
  static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private final HttpServer server;
  private final ExecutorService executor;

  private HttpEndpoints(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  static HttpEndpoints start(int port, BooleanSupplier ready, Supplier<String> metrics) {
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress(port), 0);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on HTTP port " + port, e);
    }
    AtomicInteger n = new AtomicInteger();
    ExecutorService executor = Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "http-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(executor);
    server.createContext("/healthz", ex -> serve(ex, () -> Response.text(200, "ok\n")));
    server.createContext("/readyz", ex -> serve(ex, () -> ready.getAsBoolean()
        ? Response.text(200, "ready\n")
        : Response.text(503, "not ready: the worker is not polling Temporal over a healthy connection\n")));
    server.createContext("/metrics", ex -> serve(ex, () -> new Response(200, PROMETHEUS_TEXT, metrics.get())));
    server.start();
    return new HttpEndpoints(server, executor);
  }

  int port() {
    return server.getAddress().getPort();
  }

  private record Response(int status, String contentType, String body) {
    static Response text(int status, String body) {
      return new Response(status, "text/plain; charset=utf-8", body);
    }
  }

  private static void serve(HttpExchange ex, Supplier<Response> endpoint) throws IOException {
    try (ex) {
      Response response;
      // A context matches by prefix; only the exact path is the endpoint.
      if (!ex.getRequestURI().getPath().equals(ex.getHttpContext().getPath())) {
        response = Response.text(404, "not found\n");
      } else if (!ex.getRequestMethod().equals("GET") && !ex.getRequestMethod().equals("HEAD")) {
        ex.getResponseHeaders().set("Allow", "GET, HEAD");
        response = Response.text(405, "method not allowed\n");
      } else {
        response = endpoint.get();
      }
      ex.getResponseHeaders().set("Content-Type", response.contentType());
      if (ex.getRequestMethod().equals("HEAD")) {
        ex.sendResponseHeaders(response.status(), -1);
        return;
      }
      byte[] bytes = response.body().getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(response.status(), bytes.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  /** Stops at once: the probes and the scrape have nothing worth waiting for. */
  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
