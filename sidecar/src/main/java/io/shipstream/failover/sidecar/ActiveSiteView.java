package io.shipstream.failover.sidecar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What the watcher last said about a group: the active site, the sites a DBA fenced ({@code
 * status.fencedSites}, held read-only whatever else holds), and when it read that from the
 * resource's status. A sidecar hands its view on to its peers, and the newest observation wins,
 * which is how a sidecar cut off from the watcher still learns of a failover or a fence.
 */
public record ActiveSiteView(String activeSite, Instant observedAt, List<String> fencedSites) {
  private static final ObjectMapper JSON = new ObjectMapper();

  public ActiveSiteView {
    if (activeSite == null || activeSite.isBlank()) {
      throw new IllegalArgumentException("activeSite is required");
    }
    Objects.requireNonNull(observedAt, "observedAt");
    fencedSites = fencedSites == null ? List.of() : List.copyOf(fencedSites);
  }

  /** A view with no fenced site. */
  public ActiveSiteView(String activeSite, Instant observedAt) {
    this(activeSite, observedAt, List.of());
  }

  /** Whether a DBA fenced {@code site}: it is kept read-only, even when it is the active site. */
  public boolean fences(String site) {
    return fencedSites.contains(site);
  }

  /** Whether this view was observed strictly after {@code other} (or there is no other). */
  public boolean newerThan(ActiveSiteView other) {
    return other == null || observedAt.isAfter(other.observedAt);
  }

  public boolean names(String site) {
    return activeSite.equals(site);
  }

  /**
   * The JSON the watcher serves and the sidecar re-serves: {@code
   * {"activeSite":..,"observedAt":..,"fencedSites":[..]}} ({@code fencedSites} only when some are).
   */
  public String toJson() {
    ObjectNode node = JSON.createObjectNode();
    node.put("activeSite", activeSite);
    node.put("observedAt", observedAt.toString());
    if (!fencedSites.isEmpty()) {
      ArrayNode fenced = node.putArray("fencedSites");
      fencedSites.forEach(fenced::add);
    }
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
    JsonNode fenced = node.get("fencedSites");
    List<String> fencedSites = new ArrayList<>();
    if (fenced != null && !fenced.isNull()) {
      if (!fenced.isArray()) {
        throw new IllegalArgumentException("fencedSites must be an array of site names");
      }
      for (JsonNode s : fenced) {
        if (!s.isTextual()) {
          throw new IllegalArgumentException("fencedSites must be an array of site names");
        }
        fencedSites.add(s.asText());
      }
    }
    try {
      return new ActiveSiteView(site.asText(), OffsetDateTime.parse(at.asText()).toInstant(), fencedSites);
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
