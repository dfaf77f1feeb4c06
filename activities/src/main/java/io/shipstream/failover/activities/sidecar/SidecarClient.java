package io.shipstream.failover.activities.sidecar;

import io.shipstream.failover.runtime.ControlPlaneTls;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.wire.SidecarStatusAnswer;
import io.shipstream.failover.wire.SidecarStatusClient;
import io.shipstream.failover.wire.Wire;
import io.shipstream.failover.workflows.activities.SidecarActivities.Snapshot;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The sidecar's two endpoints the workflows use, {@code POST /tick} (a fencing tick now, answering
 * the fresh status) and {@code GET /status}, both asked with the group's shared token. Every
 * request is short: a sidecar that does not answer within a second is asked again on the next
 * poll rather than waited for.
 */
final class SidecarClient {
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(1);

  private final SidecarStatusClient client;
  /** The credential of the group asked about, per request; null sends none. */
  private final Supplier<SharedToken> tokens;

  /** @param token the sidecars' shared token; null sends none, which a sidecar refuses */
  SidecarClient(SharedToken token) {
    this(() -> token, ControlPlaneTls.none());
  }

  /** {@code tokens}: the credential of the group asked about; https URLs verified with {@code tls}'s CA. */
  SidecarClient(Supplier<SharedToken> tokens, ControlPlaneTls tls) {
    this.tokens = tokens;
    this.client = new SidecarStatusClient(
        HttpClient.newBuilder().connectTimeout(REQUEST_TIMEOUT).sslContext(tls.clientContext()).build(),
        REQUEST_TIMEOUT);
  }

  /**
   * A sidecar that turned the request away. Its message is the whole sentence the activity
   * reports, since what to fix (the worker's token) matters more than the exception's type.
   */
  static final class Refused extends IOException {
    Refused(String message) {
      super(message);
    }
  }

  /** The status after a tick run now; an older sidecar without the endpoint answers its current status. */
  Snapshot tick(URI base) throws IOException, InterruptedException {
    SharedToken token = tokens.get();
    HttpResponse<String> response = client.send(base.toString(), "/tick", true, authorization(token));
    if (response.statusCode() == 404 || response.statusCode() == 405) {
      return status(base);
    }
    return parse(response, token != null);
  }

  Snapshot status(URI base) throws IOException, InterruptedException {
    SharedToken token = tokens.get();
    return parse(client.send(base.toString(), "/status", false, authorization(token)), token != null);
  }

  /** A failed request in a few words for an activity's answer: the exception's kind and its message. */
  static String problem(Exception e) {
    return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
  }

  /** The client itself, for the sidecars' other endpoints ({@code GET /answers}). */
  SidecarStatusClient statusClient() {
    return client;
  }

  /** The credential of the group asked about; null: none. */
  SharedToken token() {
    return tokens.get();
  }

  private static String authorization(SharedToken token) {
    return token == null ? null : token.authorization();
  }

  static Snapshot parse(HttpResponse<String> response, boolean tokenSent) throws IOException {
    String body;
    try {
      body = SidecarStatusClient.body(response);
    } catch (SidecarStatusClient.Refused e) {
      throw new Refused(tokenSent
          ? "the sidecar refused the token (" + e.status() + "): the group's spec.sidecar.tokenSecretRef "
              + "Secret must hold the token its sidecars have (or, naming none, the worker's AUTH_TOKEN_FILE or "
              + "AUTH_TOKEN the sidecars' shared token)"
          : "the sidecar refused the request (" + e.status() + "): the worker has no sidecar token; "
              + "set AUTH_TOKEN_FILE or AUTH_TOKEN to the sidecars' shared token");
    }
    return parse(body);
  }

  /**
   * The fields of the sidecar's status the proof rests on. The timing is null from an older
   * sidecar that does not report it (or reports anything but positive whole milliseconds).
   */
  static Snapshot parse(String body) throws IOException {
    SidecarStatusAnswer status;
    try {
      status = Wire.read(body, SidecarStatusAnswer.class);
    } catch (IllegalArgumentException e) {
      throw new IOException("unreadable sidecar status: " + e.getMessage(), e);
    }
    String activeSite = status.view() == null ? null : status.view().activeSite();
    return new Snapshot(status.site(), activeSite, status.mysql(), status.ticks() == null ? -1 : status.ticks(),
        status.leaseTimeoutMillis(), status.peerCheckIntervalMillis());
  }
}
