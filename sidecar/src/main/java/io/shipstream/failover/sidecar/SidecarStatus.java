package io.shipstream.failover.sidecar;

import io.shipstream.failover.sidecar.FencingDecision.Action;
import io.shipstream.failover.sidecar.FencingDecision.Boot;
import io.shipstream.failover.sidecar.FencingDecision.MysqlState;
import io.shipstream.failover.wire.SidecarStatusAnswer;
import io.shipstream.failover.wire.Wire;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What {@code GET /status} shows: one immutable snapshot, replaced after every tick. {@code mysql}
 * is a {@link MysqlState}: a failover counts READ_ONLY, STARTUP_READ_ONLY and STOPPED as proof that
 * the server takes no writes, never UNREACHABLE or HUNG. {@code leaseTimeout} and {@code
 * peerCheckInterval} are the ones the sidecar runs with: an emergency failover waits out the longer
 * of this lease and the spec's before it trusts the lease alone. {@code lastTickCompletedAt} and
 * {@code healthBound} are what {@code /health} compares (see {@link
 * io.shipstream.failover.model.SidecarLiveness#healthBound}). {@code groupDeletedAt} is set once the
 * watcher said the group was deleted: the sidecar then holds its server as it is ({@code
 * "groupDeleted":true}).
 */
public record SidecarStatus(
    String site,
    String namespace,
    String group,
    Optional<ActiveSiteView> view,
    String viewSource,
    boolean neverActive,
    Optional<Instant> lastWatcherContact,
    List<Link> peers,
    Instant leaseExpiresAt,
    Duration leaseTimeout,
    Duration peerCheckInterval,
    MysqlState mysql,
    String flavor,
    Optional<Boolean> startsReadOnly,
    Optional<Long> serverPid,
    Boot boot,
    Action lastAction,
    Optional<Instant> lastFenceAt,
    long ticks,
    Optional<String> ownFence,
    boolean leaseLive,
    Optional<Instant> lastTickCompletedAt,
    Duration healthBound,
    Optional<Duration> processStartToFirstTick,
    Optional<LastFence> lastFence,
    Optional<Instant> groupDeletedAt) {

  /**
   * The sidecar's last fence (or stop of a hung server): when, by which rule ({@link
   * Action#rule}, or "stop"), and why. The sidecar has no Kubernetes client: the watcher reads this
   * and writes the Event (SiteFencedBySidecar), once per fence.
   */
  public record LastFence(Instant at, String rule, String reason) {}

  /** One peer as last seen. */
  public record Link(String endpoint, Optional<Instant> lastContact, String problem) {}

  /** The JSON of {@code GET /status} and {@code POST /tick} ({@link SidecarStatusAnswer}). */
  public String toJson() {
    return Wire.write(answer());
  }

  SidecarStatusAnswer answer() {
    SidecarStatusAnswer.View viewAnswer = view.map(v -> new SidecarStatusAnswer.View(v.activeSite(),
        v.observedAt().toString(), viewSource, v.fencedSites())).orElse(null);
    List<SidecarStatusAnswer.Peer> peerAnswers = peers.stream()
        .map(link -> new SidecarStatusAnswer.Peer(link.endpoint(), time(link.lastContact()), link.problem()))
        .toList();
    return new SidecarStatusAnswer(site, namespace, group, viewAnswer, neverActive, time(lastWatcherContact),
        peerAnswers, leaseExpiresAt.toString(), leaseTimeout.toMillis(), peerCheckInterval.toMillis(), mysql.name(),
        flavor,
        // A server configured to start writable takes writes after a crash before anything decides it
        // is the primary: the watcher reports a false here as a Warning.
        startsReadOnly.orElse(null), serverPid.orElse(null), boot.name(), lastAction.name(), time(lastFenceAt), ticks,
        // The rule of the sidecar's own fence while it stands ("rule2": its lease ran out), and whether
        // its lease holds now: the watcher lifts a standing rule-2 fence of the active site once contact
        // is back and nothing else explains the read-only (no failover, every other site behind it).
        ownFence.orElse(null), leaseLive,
        // /health fails once the last completed tick is older than the bound: the kubelet then restarts
        // the sidecar, which fences at boot.
        time(lastTickCompletedAt), healthBound.toMillis(), processStartToFirstTick.map(Duration::toMillis).orElse(null),
        lastFence.map(f -> new SidecarStatusAnswer.Fence(f.at().toString(), f.rule(), f.reason())).orElse(null),
        // The watcher said the group was deleted (its tombstone): this sidecar neither fences nor unfences.
        groupDeletedAt.isPresent(), time(groupDeletedAt));
  }

  private static String time(Optional<Instant> time) {
    return time.map(Instant::toString).orElse(null);
  }
}
