package io.shipstream.failover.sidecar;

import io.shipstream.failover.wire.ActiveSiteAnswer;
import io.shipstream.failover.wire.Wire;
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
 * {@code stale} is how long before the answer the watcher last confirmed its cache against the API
 * server ({@code staleMillis}; zero from a watcher that does not say): the contact counts as of
 * then, so a watcher replica cut off from the API server, which keeps answering from a cache it
 * cannot know is stale, stops keeping this sidecar's lease.
 */
record WatcherAnswer(Optional<ActiveSiteView> view, boolean neverActive, Optional<Timing> timing, boolean fresh,
    Optional<Instant> groupDeletedAt, Duration stale) {

  WatcherAnswer(Optional<ActiveSiteView> view, boolean neverActive, Optional<Timing> timing, boolean fresh) {
    this(view, neverActive, timing, fresh, Optional.empty(), Duration.ZERO);
  }

  /**
   * Reads the JSON ({@link ActiveSiteAnswer}); unknown fields are ignored, so a newer watcher can add some.
   *
   * @throws IllegalArgumentException when the body is neither a view nor a never-active answer
   */
  static WatcherAnswer parse(byte[] body) {
    ActiveSiteAnswer answer = Wire.read(body, ActiveSiteAnswer.class);
    // Both values as positive whole milliseconds (anything else reads as null), or nothing: half a
    // timing is none.
    Optional<Timing> timing = answer.leaseTimeoutMillis() == null || answer.peerCheckIntervalMillis() == null
        ? Optional.empty()
        : Optional.of(new Timing(Duration.ofMillis(answer.leaseTimeoutMillis()),
            Duration.ofMillis(answer.peerCheckIntervalMillis())));
    boolean fresh = answer.saysFresh();
    // Positive whole milliseconds, or none (anything else reads as null): a contact as of now.
    Duration stale = answer.staleMillis() == null ? Duration.ZERO : Duration.ofMillis(answer.staleMillis());
    if (answer.saysDeleted() && answer.activeSite() == null) {
      return new WatcherAnswer(Optional.empty(), false, timing, fresh, Optional.of(deletedAt(answer.deletedAt())),
          stale);
    }
    if (answer.saysNeverActive() && answer.activeSite() == null) {
      return new WatcherAnswer(Optional.empty(), true, timing, fresh, Optional.empty(), stale);
    }
    return new WatcherAnswer(Optional.of(ActiveSiteView.of(answer.activeSite(), answer.observedAt(),
        answer.fencedSites())), false, timing, fresh, Optional.empty(), stale);
  }

  private static Instant deletedAt(String at) {
    if (at == null) {
      throw new IllegalArgumentException("a deleted group's answer needs the text field deletedAt");
    }
    try {
      return OffsetDateTime.parse(at).toInstant();
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("deletedAt '" + at + "' is not an RFC 3339 time", e);
    }
  }
}
