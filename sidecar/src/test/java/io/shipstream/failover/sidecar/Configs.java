package io.shipstream.failover.sidecar;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Sidecar configurations for tests, built the way production builds them: from the environment. */
final class Configs {
  static final String TOKEN = "test-token-6d1f0b";
  static final String MYSQL_PASSWORD = "test-mysql-pass-93a7";

  private Configs() {}

  static SidecarConfig config(String site, URI watcher, List<URI> peers, Duration lease, Duration interval) {
    return config(site, watcher, peers, lease, interval, Map.of());
  }

  static SidecarConfig config(String site, URI watcher, List<URI> peers, Duration lease, Duration interval,
      Map<String, String> extra) {
    Map<String, String> env = new HashMap<>();
    env.put("SITE", site);
    env.put("GROUP", "orders");
    env.put("NAMESPACE", "shop");
    env.put("MYSQL_USER", "failover");
    env.put("MYSQL_PASSWORD", MYSQL_PASSWORD);
    env.put("WATCHER_URL", watcher.toString());
    env.put("PEER_URLS", peers.stream().map(URI::toString).collect(Collectors.joining(",")));
    env.put("LEASE_TIMEOUT", lease.toMillis() + "ms");
    env.put("PEER_CHECK_INTERVAL", interval.toMillis() + "ms");
    env.put("HTTP_HOST", "127.0.0.1");
    env.put("HTTP_PORT", "0");
    env.put("AUTH_TOKEN", TOKEN);
    env.putAll(extra);
    return SidecarConfig.from(env, new String[0]);
  }

  /** A loopback URL nothing listens on: connections to it are refused at once. */
  static URI deadUrl() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return URI.create("http://127.0.0.1:" + socket.getLocalPort());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
