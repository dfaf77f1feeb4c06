package io.shipstream.failover.watcher.topology;

import io.shipstream.failover.kube.SidecarCredentials;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.topology.LeaseFenceRelease;
import io.shipstream.failover.runtime.ControlPlaneTls;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.wire.SidecarStatusAnswer;
import io.shipstream.failover.wire.SidecarStatusClient;
import io.shipstream.failover.wire.Wire;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads {@code startsReadOnly}, the sidecar's last fence and its own standing fence from a sidecar's {@code GET
 * /status}, presenting the group's credential (or the install's shared token for a group that names
 * none), over https verified with TLS_CA_FILE where the sidecar's URL says so. Requests are short:
 * a sidecar that does not answer is asked again at the next check.
 */
public final class SidecarStatusReader {
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);

  private final SidecarStatusClient client;
  /** The credential a group's sidecars are asked with; null sends none. */
  private final Function<GroupRef, SharedToken> tokens;

  /** With a null {@code token}, requests carry no Authorization header. */
  public SidecarStatusReader(SharedToken token) {
    this(group -> token, ControlPlaneTls.none());
  }

  /**
   * Each group's sidecars asked with that group's credential ({@code tokens} may throw {@link
   * CredentialUnavailable}); https URLs verified with {@code tls}'s CA.
   */
  SidecarStatusReader(Function<GroupRef, SharedToken> tokens, ControlPlaneTls tls) {
    this.tokens = tokens;
    this.client = new SidecarStatusClient(
        HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).sslContext(tls.clientContext()).build(),
        REQUEST_TIMEOUT);
  }

  /** The sidecar turned this group's credential away (401 or 403). */
  static final class Refused extends IOException {
    final int status;

    Refused(int status, String message) {
      super(message);
      this.status = status;
    }
  }

  /** The group's credential cannot be read (its Secret or key is missing, or not readable). */
  static final class CredentialUnavailable extends IOException {
    CredentialUnavailable(String message) {
      super(message);
    }
  }

  /**
   * The sidecar's {@code startsReadOnly}: empty while it does not know (or, being older, does not
   * say).
   *
   * @throws IOException when the sidecar does not answer, or answers anything but a 200 with JSON
   */
  Optional<Boolean> startsReadOnly(String sidecarUrl) throws IOException, InterruptedException {
    return Optional.ofNullable(status(null, sidecarUrl).startsReadOnly());
  }

  /**
   * The sidecar's own fence that stands ({@code ownFence}, null: none) and whether its lease holds
   * ({@code leaseLive}); empty from a sidecar too old to say.
   *
   * @throws IOException when the sidecar does not answer, or answers anything but a 200 with JSON
   */
  Optional<LeaseFenceRelease.SidecarFence> ownFence(GroupRef group, String sidecarUrl)
      throws IOException, InterruptedException {
    SidecarStatusAnswer status = status(group, sidecarUrl);
    // A sidecar writes ownFence (null while none stands) wherever it writes leaseLive: both came in
    // one release, so a leaseLive is the sign that ownFence's null means "none" and not "too old".
    if (status.leaseLive() == null) {
      return Optional.empty();
    }
    return Optional.of(new LeaseFenceRelease.SidecarFence(status.ownFence(), status.leaseLive()));
  }

  /** A sidecar's last fence, as its {@code /status} says ({@code lastFence}). */
  record Fence(Instant at, String rule, String reason) {}

  /** One reading of a sidecar's {@code /status}: how its server starts, and its last fence. */
  record Reading(Optional<Boolean> startsReadOnly, Optional<Fence> lastFence) {}

  /**
   * What {@link #startsReadOnly} says, and the sidecar's last fence (empty before its first, or
   * from a sidecar too old to say), from one request.
   *
   * @throws IOException when the sidecar does not answer, or answers anything but a 200 with JSON
   */
  Reading read(String sidecarUrl) throws IOException, InterruptedException {
    return read(null, sidecarUrl);
  }

  /** {@link #read(String)} with {@code group}'s credential. */
  Reading read(GroupRef group, String sidecarUrl) throws IOException, InterruptedException {
    SidecarStatusAnswer status = status(group, sidecarUrl);
    SidecarStatusAnswer.Fence fence = status.lastFence();
    Optional<Fence> lastFence = Optional.empty();
    if (fence != null && fence.at() != null && fence.rule() != null) {
      try {
        lastFence = Optional.of(new Fence(Instant.parse(fence.at()), fence.rule(),
            fence.reason() == null ? "" : fence.reason()));
      } catch (DateTimeParseException e) {
        throw new IOException("unreadable lastFence.at from " + sidecarUrl + ": " + e.getMessage(), e);
      }
    }
    return new Reading(Optional.ofNullable(status.startsReadOnly()), lastFence);
  }

  private SidecarStatusAnswer status(GroupRef group, String sidecarUrl) throws IOException, InterruptedException {
    SharedToken token;
    try {
      token = tokens.apply(group);
    } catch (SidecarCredentials.UnavailableException e) {
      throw new CredentialUnavailable(e.getMessage());
    }
    HttpResponse<String> response = client.send(sidecarUrl, "/status", false,
        token == null ? null : token.authorization());
    String body;
    try {
      body = SidecarStatusClient.body(response);
    } catch (SidecarStatusClient.Refused e) {
      throw new Refused(e.status(), "the sidecar at " + response.uri().getHost() + " refused the group's "
          + "credential (HTTP " + e.status() + ")");
    }
    try {
      return Wire.read(body, SidecarStatusAnswer.class);
    } catch (IllegalArgumentException e) {
      throw new IOException("unreadable status from " + response.uri().getHost() + ": " + e.getMessage(), e);
    }
  }
}
