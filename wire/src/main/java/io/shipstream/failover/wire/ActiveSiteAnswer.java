package io.shipstream.failover.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.time.Instant;
import java.util.List;

/**
 * {@code GET /active-site}, watcher to sidecar: what the group's status says (see the watcher's
 * {@code ActiveSiteHandler} for when each answer is given, and the sidecar's {@code WatcherAnswer}
 * for how it is read). One of three shapes, each with {@code observedAt} (RFC 3339, when the
 * watcher read the status):
 *
 * <ul>
 *   <li>a view: {@code activeSite}, and {@code fencedSites} when a DBA fenced some;
 *   <li>a group that has never had an active site: {@code "activeSite":null,"neverActive":true};
 *   <li>a deleted group (its tombstone): {@code "activeSite":null,"groupDeleted":true,"deletedAt":..}.
 * </ul>
 *
 * <p>{@code activeSite} is always written (null in the last two); every other field is left out
 * when it has no value. {@code leaseTimeoutMillis} and {@code peerCheckIntervalMillis} are the
 * spec's sidecar timing (both or neither; a watcher whose spec does not resolve sends neither);
 * {@code fresh} is true only when the group was read from the API server for this answer.
 * {@code staleMillis} (since 0.2.0) is how long before this answer the watcher last confirmed its
 * cache against the API server: its answer holds nothing written since, so a sidecar counts the
 * contact as of then, and a watcher cut off from the API server stops keeping leases within a
 * check of the cut. Left out of a fresh answer (read from the API server for it) and by 0.1.0's
 * watchers; 0.1.0's sidecars ignore it.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"activeSite", "neverActive", "groupDeleted", "deletedAt", "fencedSites", "observedAt",
    "leaseTimeoutMillis", "peerCheckIntervalMillis", "fresh", "staleMillis"})
public record ActiveSiteAnswer(
    @JsonInclude(JsonInclude.Include.ALWAYS) String activeSite,
    Boolean neverActive,
    Boolean groupDeleted,
    String deletedAt,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> fencedSites,
    String observedAt,
    @JsonDeserialize(using = WholeMillis.class) Long leaseTimeoutMillis,
    @JsonDeserialize(using = WholeMillis.class) Long peerCheckIntervalMillis,
    Boolean fresh,
    @JsonDeserialize(using = WholeMillis.class) Long staleMillis) {

  /** The status names {@code activeSite}. */
  public static ActiveSiteAnswer active(String activeSite, List<String> fencedSites, Instant observedAt) {
    return new ActiveSiteAnswer(activeSite, null, null, null, fencedSites, observedAt.toString(), null, null, null,
        null);
  }

  /** The group has never recorded an active site: the watcher is about to adopt it. */
  public static ActiveSiteAnswer neverActive(List<String> fencedSites, Instant observedAt) {
    return new ActiveSiteAnswer(null, true, null, null, fencedSites, observedAt.toString(), null, null, null, null);
  }

  /** The group was deleted at {@code deletedAt}, as its tombstone says. */
  public static ActiveSiteAnswer deleted(Instant deletedAt, Instant observedAt) {
    return new ActiveSiteAnswer(null, null, true, deletedAt.toString(), null, observedAt.toString(), null, null, null,
        null);
  }

  /** This answer with the spec's sidecar timing. */
  public ActiveSiteAnswer withTiming(long leaseTimeoutMillis, long peerCheckIntervalMillis) {
    return new ActiveSiteAnswer(activeSite, neverActive, groupDeleted, deletedAt, fencedSites, observedAt,
        leaseTimeoutMillis, peerCheckIntervalMillis, fresh, staleMillis);
  }

  /** This answer marked as read from the API server for this request. */
  public ActiveSiteAnswer markedFresh() {
    return new ActiveSiteAnswer(activeSite, neverActive, groupDeleted, deletedAt, fencedSites, observedAt,
        leaseTimeoutMillis, peerCheckIntervalMillis, true, null);
  }

  /** This answer from a cache last confirmed against the API server {@code millis} before it. */
  public ActiveSiteAnswer withStaleness(long millis) {
    return new ActiveSiteAnswer(activeSite, neverActive, groupDeleted, deletedAt, fencedSites, observedAt,
        leaseTimeoutMillis, peerCheckIntervalMillis, fresh, Math.max(0, millis));
  }

  /** Whether the watcher said the group has never had an active site. */
  public boolean saysNeverActive() {
    return Boolean.TRUE.equals(neverActive);
  }

  /** Whether the watcher said the group was deleted. */
  public boolean saysDeleted() {
    return Boolean.TRUE.equals(groupDeleted);
  }

  /** Whether the watcher said it read the group from the API server for this answer. */
  public boolean saysFresh() {
    return Boolean.TRUE.equals(fresh);
  }
}
