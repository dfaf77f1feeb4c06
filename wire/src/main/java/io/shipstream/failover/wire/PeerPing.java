package io.shipstream.failover.wire;

/**
 * {@code GET /peer/ping}, sidecar to sidecar: the sidecar's site. A peer asks it only of a
 * sidecar too old to serve {@code /peer/active-site}, and reads only its 200.
 */
public record PeerPing(String site) {}
