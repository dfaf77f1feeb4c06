package io.shipstream.failover.runtime;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** How every process's small endpoints on the JDK's HTTP server write a reply with a body. */
public final class HttpReplies {
  private HttpReplies() {}

  /** Sends {@code body} as UTF-8 with its content type and length, and closes the response body. */
  public static void send(HttpExchange exchange, int status, String contentType, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
