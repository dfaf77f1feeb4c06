package io.shipstream.failover.watcher;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/** What the watcher's tests need to call its HTTP port and wait for things. */
final class Http {
  private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private Http() {}

  static HttpResponse<String> get(int port, String path, String... headers) throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(5));
    if (headers.length > 0) {
      request.headers(headers);
    }
    return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Polls {@code path} until the condition holds, for up to ten seconds. */
  static HttpResponse<String> await(int port, String path, Predicate<HttpResponse<String>> condition)
      throws Exception {
    Instant deadline = Instant.now().plusSeconds(10);
    HttpResponse<String> last = get(port, path);
    while (!condition.test(last)) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("GET " + path + " never met the condition; last answer " + last.statusCode()
            + ":\n" + last.body());
      }
      Thread.sleep(50);
      last = get(port, path);
    }
    return last;
  }

  /** Polls until the condition holds, for up to {@code timeout}. */
  static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
    Instant deadline = Instant.now().plus(timeout);
    while (!condition.getAsBoolean()) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("timed out waiting until " + what);
      }
      Thread.sleep(50);
    }
  }

  /** The value of one Prometheus sample line, or -1 when the line is not in the scrape. */
  static double sample(String scrape, String series) {
    return scrape.lines().filter(l -> l.startsWith(series + " ")).findFirst()
        .map(l -> Double.parseDouble(l.substring(series.length() + 1).trim())).orElse(-1.0);
  }
}
