package io.shipstream.failover.watcher.topology;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback sidecar whose {@code GET /status} answers what the test sets, recording the
 * Authorization header of every request ("(none)" when absent).
 */
public final class StubSidecar implements AutoCloseable {
  private final HttpServer server;
  private volatile int status = 200;
  private volatile String body = "{}";
  public final List<String> authorizations = new CopyOnWriteArrayList<>();

  public StubSidecar() {
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext("/status", exchange -> {
      try (exchange) {
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        authorizations.add(authorization == null ? "(none)" : authorization);
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(bytes);
        }
      }
    });
    server.start();
  }

  /** Answers a status like the sidecar's, with this {@code startsReadOnly} (null: unknown). */
  public StubSidecar startsReadOnly(Boolean value) {
    return answer(200, "{\"site\":\"pdx\",\"mysql\":\"READ_ONLY\",\"flavor\":\"mariadb\",\"startsReadOnly\":"
        + value + ",\"ticks\":7}");
  }

  public StubSidecar answer(int status, String body) {
    this.status = status;
    this.body = body;
    return this;
  }

  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  public int requests() {
    return authorizations.size();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
