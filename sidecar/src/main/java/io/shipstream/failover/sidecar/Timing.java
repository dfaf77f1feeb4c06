package io.shipstream.failover.sidecar;

import io.shipstream.failover.model.SidecarLiveness;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The lease and the tick interval a sidecar runs with. The group's spec ({@code
 * spec.sidecar.leaseTimeout}, {@code peerCheckInterval}) is the one source: the emergency workflow
 * waits on it before it makes a candidate writable, so a sidecar with a longer lease would fence an
 * isolated old primary too late. The watcher hands it over in every {@code /active-site} answer;
 * LEASE_TIMEOUT and PEER_CHECK_INTERVAL only hold until the first one.
 */
record Timing(Duration leaseTimeout, Duration peerCheckInterval) {
  /** The longest a request may take, whatever the interval (and the first poll's timeout). */
  static final Duration MAX_REQUEST_TIMEOUT = SidecarLiveness.MAX_REQUEST_TIMEOUT;
  private static final Duration MIN_REQUEST_TIMEOUT = Duration.ofMillis(50);

  Timing {
    Objects.requireNonNull(leaseTimeout, "leaseTimeout");
    Objects.requireNonNull(peerCheckInterval, "peerCheckInterval");
  }

  /** The environment's values: the defaults until the watcher first answers. */
  static Timing of(SidecarConfig config) {
    return new Timing(config.leaseTimeout(), config.peerCheckInterval());
  }

  /** What is wrong with these values for a sidecar, by the limits the spec is held to; empty when nothing. */
  List<String> problems() {
    List<String> problems = new ArrayList<>();
    SidecarConfig.checkKnobs(leaseTimeout, peerCheckInterval, problems);
    return problems;
  }

  /**
   * How long one request to the watcher or a peer may take: short enough that a tick with every
   * link cut still fits in one interval, so a partition is detected on time.
   */
  Duration requestTimeout() {
    Duration half = peerCheckInterval.dividedBy(2);
    return half.compareTo(MIN_REQUEST_TIMEOUT) < 0 ? MIN_REQUEST_TIMEOUT
        : half.compareTo(MAX_REQUEST_TIMEOUT) > 0 ? MAX_REQUEST_TIMEOUT : half;
  }

  /**
   * How long the fencing loop may go without completing a tick before {@code /health} fails: see
   * {@link SidecarLiveness#healthBound}, which the control plane adds up with the pod's probe and
   * the boot fence to bound how long a hung sidecar may leave its server unguarded.
   */
  Duration healthBound() {
    return SidecarLiveness.healthBound(peerCheckInterval);
  }
}
