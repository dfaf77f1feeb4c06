package io.shipstream.failover.wire;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The one client of a sidecar's status endpoints, {@code GET /status} and {@code POST /tick} (which
 * answers the status after a tick), for the workers' proof and the watcher's checks: the request
 * with the caller's credential, and its answer as a {@link SidecarStatusAnswer} or a failure. The
 * callers word a refusal for their readers (the worker's token, the group's credential) and read
 * the answer's fields they need.
 */
public final class SidecarStatusClient {
  private final HttpClient http;
  private final Duration requestTimeout;

  /** {@code http}: the caller's, with its connect timeout and its CA for https sidecars. */
  public SidecarStatusClient(HttpClient http, Duration requestTimeout) {
    this.http = http;
    this.requestTimeout = requestTimeout;
  }

  /** The sidecar turned the credential away: HTTP 401 or 403. */
  public static final class Refused extends IOException {
    private final int status;

    Refused(int status, URI uri) {
      super("HTTP " + status + " from " + uri);
      this.status = status;
    }

    public int status() {
      return status;
    }
  }

  /**
   * Sends {@code path} ({@code /status} or {@code /tick}) to the sidecar at {@code baseUrl} (with
   * or without a trailing slash), as a POST without a body or a GET, with {@code authorization} as
   * the Authorization header (null: none). The answer as it came, whatever its status.
   */
  public HttpResponse<String> send(String baseUrl, String path, boolean post, String authorization)
      throws IOException, InterruptedException {
    String root = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(root + path)).timeout(requestTimeout);
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    request = post ? request.POST(HttpRequest.BodyPublishers.noBody()) : request.GET();
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /**
   * The body of a 200 answer.
   *
   * @throws Refused for a 401 or a 403
   * @throws IOException for any other status but 200
   */
  public static String body(HttpResponse<String> response) throws IOException {
    if (response.statusCode() == 401 || response.statusCode() == 403) {
      throw new Refused(response.statusCode(), response.uri());
    }
    if (response.statusCode() != 200) {
      throw new IOException("HTTP " + response.statusCode() + " from " + response.uri());
    }
    return response.body();
  }
}
