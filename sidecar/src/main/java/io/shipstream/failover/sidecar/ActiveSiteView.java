package io.shipstream.failover.sidecar;

import io.shipstream.failover.wire.PeerView;
import io.shipstream.failover.wire.Wire;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Objects;

/**
 * What the watcher last said about a group: the active site, the sites a DBA fenced ({@code
 * status.fencedSites}, held read-only whatever else holds), and when it read that from the
 * resource's status. A sidecar hands its view on to its peers, and the newest observation wins,
 * which is how a sidecar cut off from the watcher still learns of a failover or a fence.
 */
public record ActiveSiteView(String activeSite, Instant observedAt, List<String> fencedSites) {
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
   * The JSON the sidecar serves its peers ({@link PeerView}): {@code
   * {"activeSite":..,"observedAt":..,"fencedSites":[..]}} ({@code fencedSites} only when some are).
   */
  public String toJson() {
    return Wire.write(new PeerView(activeSite, observedAt.toString(), fencedSites));
  }

  /**
   * Reads a peer's view; {@code observedAt} is RFC 3339 with any offset. Unknown fields are
   * ignored, so a newer sidecar can add some.
   *
   * @throws IllegalArgumentException when the body is not such a view
   */
  public static ActiveSiteView parse(byte[] body) {
    PeerView view = Wire.read(body, PeerView.class);
    return of(view.activeSite(), view.observedAt(), view.fencedSites());
  }

  /**
   * The view in the fields of a peer's or the watcher's answer.
   *
   * @throws IllegalArgumentException when either text field is missing, a fenced site is null, or
   *     {@code observedAt} is not RFC 3339
   */
  static ActiveSiteView of(String activeSite, String observedAt, List<String> fencedSites) {
    if (activeSite == null || observedAt == null) {
      throw new IllegalArgumentException("expected the text fields activeSite and observedAt");
    }
    if (fencedSites != null && fencedSites.contains(null)) {
      throw new IllegalArgumentException("fencedSites must be an array of site names");
    }
    try {
      return new ActiveSiteView(activeSite, OffsetDateTime.parse(observedAt).toInstant(), fencedSites);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("observedAt '" + observedAt + "' is not an RFC 3339 time", e);
    }
  }
}
