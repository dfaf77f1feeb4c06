package io.shipstream.failover.sidecar;

import java.net.URI;

/** How an endpoint is named in logs, metrics and the status page: never with a path, query or credentials. */
final class Endpoints {
  private Endpoints() {}

  static String describe(URI uri) {
    if (uri == null) {
      return "(none)";
    }
    if (uri.getHost() == null) {
      return "(not a URL)";
    }
    return uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort());
  }

  /** {@code base} with {@code path} appended, keeping any path prefix the base URL has. */
  static URI resolve(URI base, String pathAndQuery) {
    String prefix = base.toString().replaceAll("/+$", "");
    return URI.create(prefix + pathAndQuery);
  }
}
