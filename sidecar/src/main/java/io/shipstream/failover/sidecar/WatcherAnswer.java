package io.shipstream.failover.sidecar;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * The watcher's {@code /active-site} answer: a view naming the active site, or word that the group
 * has never had one ({@code "neverActive":true}, while the watcher adopts it), and the group's
 * {@link Timing} when the watcher sends it (an older watcher does not). {@code fresh} is the
 * watcher's word that it read the group from the API server for this answer, not from its cache
 * ({@code "fresh":true}, sent only to a request that asked for it); a watcher too old to read one
 * answers from its cache and does not say so. {@code groupDeletedAt} is the watcher's word that the
 * group was deleted ({@code "groupDeleted":true,"deletedAt":..}, from the tombstone its finalizer
 * wrote): never inferred from a 404, which a broken informer or an unwatched namespace gives too.
 */
record WatcherAnswer(Optional<ActiveSiteView> view, boolean neverActive, Optional<Timing> timing, boolean fresh,
    Optional<Instant> groupDeletedAt) {

  WatcherAnswer(Optional<ActiveSiteView> view, boolean neverActive, Optional<Timing> timing, boolean fresh) {
    this(view, neverActive, timing, fresh, Optional.empty());
  }

  /**
   * Reads the JSON; unknown fields are ignored, so a newer watcher can add some.
   *
   * @throws IllegalArgumentException when the body is neither a view nor a never-active answer
   */
  static WatcherAnswer parse(byte[] body) {
    JsonNode node = ActiveSiteView.object(body);
    Optional<Timing> timing = timing(node);
    JsonNode site = node.get("activeSite");
    boolean fresh = node.path("fresh").asBoolean(false);
    if (node.path("groupDeleted").asBoolean(false) && (site == null || site.isNull())) {
      return new WatcherAnswer(Optional.empty(), false, timing, fresh, Optional.of(deletedAt(node)));
    }
    if (node.path("neverActive").asBoolean(false) && (site == null || site.isNull())) {
      return new WatcherAnswer(Optional.empty(), true, timing, fresh);
    }
    return new WatcherAnswer(Optional.of(ActiveSiteView.from(node)), false, timing, fresh);
  }

  private static Instant deletedAt(JsonNode node) {
    JsonNode at = node.get("deletedAt");
    if (at == null || !at.isTextual()) {
      throw new IllegalArgumentException("a deleted group's answer needs the text field deletedAt");
    }
    try {
      return OffsetDateTime.parse(at.asText()).toInstant();
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("deletedAt '" + at.asText() + "' is not an RFC 3339 time", e);
    }
  }

  /** Both values as positive whole milliseconds, or nothing: half a timing is none. */
  private static Optional<Timing> timing(JsonNode node) {
    JsonNode lease = node.get("leaseTimeoutMillis");
    JsonNode interval = node.get("peerCheckIntervalMillis");
    if (lease == null || !lease.canConvertToLong() || !lease.isIntegralNumber() || lease.asLong() <= 0
        || interval == null || !interval.isIntegralNumber() || !interval.canConvertToLong() || interval.asLong() <= 0) {
      return Optional.empty();
    }
    return Optional.of(new Timing(Duration.ofMillis(lease.asLong()), Duration.ofMillis(interval.asLong())));
  }
}
