package io.shipstream.failover.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

/**
 * {@code GET /peer/active-site}, sidecar to sidecar: the view a sidecar last took from the
 * watcher (or a peer), handed on so that a sidecar cut off from the watcher still learns of a
 * failover or a fence. {@code observedAt} is RFC 3339 (any offset); {@code fencedSites} is left
 * out when empty. A sidecar without a view answers 204 with no body.
 */
@JsonPropertyOrder({"activeSite", "observedAt", "fencedSites"})
public record PeerView(
    String activeSite,
    String observedAt,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> fencedSites) {}
