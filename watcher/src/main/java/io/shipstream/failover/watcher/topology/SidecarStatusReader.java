package io.shipstream.failover.watcher.topology;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shipstream.failover.runtime.SharedToken;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * Reads {@code startsReadOnly} from a sidecar's {@code GET /status}, presenting the shared token
 * that sidecars accept from the watcher. Requests are short: the answer matters only every half
 * minute or so, and a sidecar that does not answer is asked again at the next check.
 */
final class SidecarStatusReader {
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();
  private final SharedToken token;

  /** With a null {@code token}, requests carry no Authorization header. */
  SidecarStatusReader(SharedToken token) {
    this.token = token;
  }

  /**
   * The sidecar's {@code startsReadOnly}: empty while it does not know (or, being older, does not
   * say).
   *
   * @throws IOException when the sidecar does not answer, or answers anything but a 200 with JSON
   */
  Optional<Boolean> startsReadOnly(String sidecarUrl) throws IOException, InterruptedException {
    String root = sidecarUrl.endsWith("/") ? sidecarUrl.substring(0, sidecarUrl.length() - 1) : sidecarUrl;
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(root + "/status")).timeout(REQUEST_TIMEOUT).GET();
    if (token != null) {
      request.header("Authorization", token.authorization());
    }
    HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("HTTP " + response.statusCode() + " from " + response.uri());
    }
    JsonNode value = JSON.readTree(response.body()).path("startsReadOnly");
    return value.isBoolean() ? Optional.of(value.booleanValue()) : Optional.empty();
  }
}
