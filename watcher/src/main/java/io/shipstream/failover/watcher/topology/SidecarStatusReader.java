package io.shipstream.failover.watcher.topology;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shipstream.failover.model.topology.LeaseFenceRelease;
import io.shipstream.failover.runtime.SharedToken;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * Reads {@code startsReadOnly} and the sidecar's own standing fence from a sidecar's {@code GET
 * /status}, presenting the shared token that sidecars accept from the watcher. Requests are short:
 * a sidecar that does not answer is asked again at the next check.
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
    JsonNode value = status(sidecarUrl).path("startsReadOnly");
    return value.isBoolean() ? Optional.of(value.booleanValue()) : Optional.empty();
  }

  /**
   * The sidecar's own fence that stands ({@code ownFence}, null: none) and whether its lease holds
   * ({@code leaseLive}); empty from a sidecar too old to say.
   *
   * @throws IOException when the sidecar does not answer, or answers anything but a 200 with JSON
   */
  Optional<LeaseFenceRelease.SidecarFence> ownFence(String sidecarUrl) throws IOException, InterruptedException {
    JsonNode status = status(sidecarUrl);
    JsonNode live = status.path("leaseLive");
    if (!live.isBoolean() || !status.has("ownFence")) {
      return Optional.empty();
    }
    JsonNode fence = status.path("ownFence");
    return Optional.of(new LeaseFenceRelease.SidecarFence(fence.isTextual() ? fence.textValue() : null,
        live.booleanValue()));
  }

  private JsonNode status(String sidecarUrl) throws IOException, InterruptedException {
    String root = sidecarUrl.endsWith("/") ? sidecarUrl.substring(0, sidecarUrl.length() - 1) : sidecarUrl;
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(root + "/status")).timeout(REQUEST_TIMEOUT).GET();
    if (token != null) {
      request.header("Authorization", token.authorization());
    }
    HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("HTTP " + response.statusCode() + " from " + response.uri());
    }
    return JSON.readTree(response.body());
  }
}
