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
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * Reads {@code startsReadOnly}, the sidecar's last fence and its own standing fence from a sidecar's {@code GET
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

  /** A sidecar's last fence, as its {@code /status} says ({@code lastFence}). */
  record Fence(Instant at, String rule, String reason) {}

  /** One reading of a sidecar's {@code /status}: how its server starts, and its last fence. */
  record Reading(Optional<Boolean> startsReadOnly, Optional<Fence> lastFence) {}

  /**
   * What {@link #startsReadOnly} says, and the sidecar's last fence (empty before its first, or
   * from a sidecar too old to say), from one request.
   *
   * @throws IOException when the sidecar does not answer, or answers anything but a 200 with JSON
   */
  Reading read(String sidecarUrl) throws IOException, InterruptedException {
    JsonNode status = status(sidecarUrl);
    JsonNode starts = status.path("startsReadOnly");
    JsonNode fence = status.path("lastFence");
    Optional<Fence> lastFence = Optional.empty();
    if (fence.isObject() && fence.path("at").isTextual() && fence.path("rule").isTextual()) {
      try {
        lastFence = Optional.of(new Fence(Instant.parse(fence.path("at").textValue()), fence.path("rule").textValue(),
            fence.path("reason").asText("")));
      } catch (DateTimeParseException e) {
        throw new IOException("unreadable lastFence.at from " + sidecarUrl + ": " + e.getMessage(), e);
      }
    }
    return new Reading(starts.isBoolean() ? Optional.of(starts.booleanValue()) : Optional.empty(), lastFence);
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
