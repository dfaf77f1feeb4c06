package io.shipstream.failover.runtime;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
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

  /**
   * The first value of the query parameter {@code name} of {@code rawQuery}, decoded; null when it
   * is absent, or when the query is not URL-encoded.
   */
  public static String parameter(String rawQuery, String name) {
    if (rawQuery == null) {
      return null;
    }
    try {
      for (String pair : rawQuery.split("&")) {
        int eq = pair.indexOf('=');
        if (URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8).equals(name)) {
          return eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
        }
      }
    } catch (IllegalArgumentException e) {
      return null;
    }
    return null;
  }
}
