package io.shipstream.failover.sidecar;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shipstream.failover.sidecar.FencingDecision.Action;
import io.shipstream.failover.sidecar.FencingDecision.Boot;
import io.shipstream.failover.sidecar.FencingDecision.MysqlState;
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

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The sidecar's last fence (or stop of a hung server): when, by which rule ({@link
   * Action#rule}, or "stop"), and why. The sidecar has no Kubernetes client: the watcher reads this
   * and writes the Event (SiteFencedBySidecar), once per fence.
   */
  public record LastFence(Instant at, String rule, String reason) {}

  /** One peer as last seen. */
  public record Link(String endpoint, Optional<Instant> lastContact, String problem) {}

  public String toJson() {
    ObjectNode node = JSON.createObjectNode();
    node.put("site", site);
    node.put("namespace", namespace);
    node.put("group", group);
    view.ifPresentOrElse(v -> {
      ObjectNode viewNode = node.putObject("view");
      viewNode.put("activeSite", v.activeSite());
      viewNode.put("observedAt", v.observedAt().toString());
      viewNode.put("source", viewSource);
      ArrayNode fenced = viewNode.putArray("fencedSites");
      v.fencedSites().forEach(fenced::add);
    }, () -> node.putNull("view"));
    node.put("neverActive", neverActive);
    putTime(node, "lastWatcherContact", lastWatcherContact);
    ArrayNode peerNodes = node.putArray("peers");
    for (Link link : peers) {
      ObjectNode peerNode = peerNodes.addObject();
      peerNode.put("endpoint", link.endpoint());
      putTime(peerNode, "lastContact", link.lastContact());
      if (link.problem() != null) {
        peerNode.put("problem", link.problem());
      }
    }
    node.put("leaseExpiresAt", leaseExpiresAt.toString());
    node.put("leaseTimeoutMillis", leaseTimeout.toMillis());
    node.put("peerCheckIntervalMillis", peerCheckInterval.toMillis());
    node.put("mysql", mysql.name());
    node.put("flavor", flavor);
    // A server configured to start writable takes writes after a crash before anything decides it
    // is the primary: the watcher reports a false here as a Warning.
    startsReadOnly.ifPresentOrElse(v -> node.put("startsReadOnly", v), () -> node.putNull("startsReadOnly"));
    serverPid.ifPresentOrElse(v -> node.put("serverPid", v), () -> node.putNull("serverPid"));
    node.put("boot", boot.name());
    node.put("lastAction", lastAction.name());
    putTime(node, "lastFenceAt", lastFenceAt);
    node.put("ticks", ticks);
    // The rule of the sidecar's own fence while it stands ("rule2": its lease ran out), and whether
    // its lease holds now: the watcher lifts a standing rule-2 fence of the active site once contact
    // is back and nothing else explains the read-only (no failover, every other site behind it).
    ownFence.ifPresentOrElse(v -> node.put("ownFence", v), () -> node.putNull("ownFence"));
    node.put("leaseLive", leaseLive);
    // /health fails once the last completed tick is older than the bound: the kubelet then restarts
    // the sidecar, which fences at boot.
    putTime(node, "lastTickCompletedAt", lastTickCompletedAt);
    node.put("healthBoundMillis", healthBound.toMillis());
    processStartToFirstTick.ifPresentOrElse(v -> node.put("processStartToFirstTickMillis", v.toMillis()),
        () -> node.putNull("processStartToFirstTickMillis"));
    lastFence.ifPresentOrElse(f -> {
      ObjectNode fence = node.putObject("lastFence");
      fence.put("at", f.at().toString());
      fence.put("rule", f.rule());
      fence.put("reason", f.reason());
    }, () -> node.putNull("lastFence"));
    // The watcher said the group was deleted (its tombstone): this sidecar neither fences nor unfences.
    node.put("groupDeleted", groupDeletedAt.isPresent());
    putTime(node, "groupDeletedAt", groupDeletedAt);
    return node.toString();
  }

  private static void putTime(ObjectNode node, String field, Optional<Instant> time) {
    time.ifPresentOrElse(t -> node.put(field, t.toString()), () -> node.putNull(field));
  }
}
