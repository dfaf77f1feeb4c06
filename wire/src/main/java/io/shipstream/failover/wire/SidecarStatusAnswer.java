package io.shipstream.failover.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.util.List;

/**
 * {@code GET /status} and {@code POST /tick}, sidecar to worker and watcher: one snapshot of the
 * sidecar, replaced after every tick (the sidecar's {@code SidecarStatus} says what each field
 * means). Every field is written, null when it has no value, except a peer's {@code problem}; a
 * field is null to a reader too when an older sidecar does not send it. Times are RFC 3339;
 * {@code mysql}, {@code boot} and {@code lastAction} are the names of the sidecar's states, read
 * as text so that a newer sidecar's new state is no unreadable answer.
 *
 * <p>Who reads what: the worker's {@code SidecarClient} reads {@code site}, {@code view.activeSite},
 * {@code mysql}, {@code ticks}, {@code leaseTimeoutMillis} and {@code peerCheckIntervalMillis} (the
 * proof that an old primary takes no writes); the watcher's {@code SidecarStatusReader} reads
 * {@code startsReadOnly}, {@code lastFence}, {@code ownFence} and {@code leaseLive}.
 */
@JsonPropertyOrder({"site", "namespace", "group", "view", "neverActive", "lastWatcherContact", "peers",
    "leaseExpiresAt", "leaseTimeoutMillis", "peerCheckIntervalMillis", "mysql", "flavor", "startsReadOnly",
    "serverPid", "boot", "lastAction", "lastFenceAt", "ticks", "ownFence", "leaseLive", "lastTickCompletedAt",
    "healthBoundMillis", "processStartToFirstTickMillis", "lastFence", "groupDeleted", "groupDeletedAt"})
public record SidecarStatusAnswer(
    String site,
    String namespace,
    String group,
    View view,
    Boolean neverActive,
    String lastWatcherContact,
    List<Peer> peers,
    String leaseExpiresAt,
    @JsonDeserialize(using = WholeMillis.class) Long leaseTimeoutMillis,
    @JsonDeserialize(using = WholeMillis.class) Long peerCheckIntervalMillis,
    String mysql,
    String flavor,
    Boolean startsReadOnly,
    Long serverPid,
    String boot,
    String lastAction,
    String lastFenceAt,
    Long ticks,
    String ownFence,
    Boolean leaseLive,
    String lastTickCompletedAt,
    Long healthBoundMillis,
    Long processStartToFirstTickMillis,
    Fence lastFence,
    Boolean groupDeleted,
    String groupDeletedAt) {

  /** The view the sidecar acts on, and where it came from ({@code source}: "watcher", a peer, "none"). */
  @JsonPropertyOrder({"activeSite", "observedAt", "source", "fencedSites"})
  public record View(String activeSite, String observedAt, String source, List<String> fencedSites) {}

  /** One peer as last seen; {@code problem} is left out while there is none. */
  @JsonPropertyOrder({"endpoint", "lastContact", "problem"})
  public record Peer(String endpoint, String lastContact, @JsonInclude(JsonInclude.Include.NON_NULL) String problem) {}

  /** The sidecar's last fence (or stop of a hung server): when, by which rule, and why. */
  @JsonPropertyOrder({"at", "rule", "reason"})
  public record Fence(String at, String rule, String reason) {}
}
