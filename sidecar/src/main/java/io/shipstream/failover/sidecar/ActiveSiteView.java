package io.shipstream.failover.sidecar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Objects;

/**
 * What the watcher last said about a group: the active site and when it read that from the
 * resource's status. A sidecar hands its view on to its peers, and the newest observation wins,
 * which is how a sidecar cut off from the watcher still learns of a failover.
 */
public record ActiveSiteView(String activeSite, Instant observedAt) {
  private static final ObjectMapper JSON = new ObjectMapper();

  public ActiveSiteView {
    if (activeSite == null || activeSite.isBlank()) {
      throw new IllegalArgumentException("activeSite is required");
    }
    Objects.requireNonNull(observedAt, "observedAt");
  }

  /** Whether this view was observed strictly after {@code other} (or there is no other). */
  public boolean newerThan(ActiveSiteView other) {
    return other == null || observedAt.isAfter(other.observedAt);
  }

  public boolean names(String site) {
    return activeSite.equals(site);
  }

  /** The JSON the watcher serves and the sidecar re-serves: {@code {"activeSite":..,"observedAt":..}}. */
  public String toJson() {
    ObjectNode node = JSON.createObjectNode();
    node.put("activeSite", activeSite);
    node.put("observedAt", observedAt.toString());
    return node.toString();
  }

  /**
   * Reads the JSON; {@code observedAt} is RFC 3339 with any offset. Unknown fields are ignored, so
   * a newer watcher can add some.
   *
   * @throws IllegalArgumentException when the body is not such a view
   */
  public static ActiveSiteView parse(byte[] body) {
    return from(object(body));
  }

  /** The view in a JSON object's {@code activeSite} and {@code observedAt}. */
  static ActiveSiteView from(JsonNode node) {
    JsonNode site = node.get("activeSite");
    JsonNode at = node.get("observedAt");
    if (site == null || !site.isTextual() || at == null || !at.isTextual()) {
      throw new IllegalArgumentException("expected the text fields activeSite and observedAt");
    }
    try {
      return new ActiveSiteView(site.asText(), OffsetDateTime.parse(at.asText()).toInstant());
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("observedAt '" + at.asText() + "' is not an RFC 3339 time", e);
    }
  }

  /** The body as a JSON object. */
  static JsonNode object(byte[] body) {
    JsonNode node;
    try {
      node = JSON.readTree(body);
    } catch (IOException e) {
      throw new IllegalArgumentException("not JSON", e);
    }
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException("expected a JSON object");
    }
    return node;
  }
}
