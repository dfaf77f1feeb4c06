package io.shipstream.failover.sidecar;

import io.shipstream.failover.model.Durations;
import io.shipstream.failover.model.GroupConfig;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The sidecar's settings, from the environment with {@code --name=value} flags on top (flags win;
 * {@code --lease-timeout=2s} sets LEASE_TIMEOUT). Names: SITE, GROUP, NAMESPACE, MYSQL_HOST
 * (127.0.0.1), MYSQL_PORT (3306), MYSQL_USER, MYSQL_PASSWORD or MYSQL_PASSWORD_FILE, WATCHER_URL,
 * PEER_URLS (comma-separated), LEASE_TIMEOUT (20s), PEER_CHECK_INTERVAL (5s) (both only until the
 * watcher first answers with the group's spec.sidecar, see {@link Timing}), HTTP_HOST (0.0.0.0),
 * HTTP_PORT (9180, 0 = any free port), AUTH_TOKEN or AUTH_TOKEN_FILE, SPARE_USERS (accounts whose
 * sessions a fence leaves alone besides MYSQL_USER, e.g. the replication account).
 *
 * <p>Secrets are refused as flags, because a command line is visible to every process on the node;
 * {@link #toString} never shows them.
 */
public record SidecarConfig(
    String site,
    String group,
    String namespace,
    String mysqlHost,
    int mysqlPort,
    String mysqlUser,
    String mysqlPassword,
    URI watcherUrl,
    List<URI> peerUrls,
    Duration leaseTimeout,
    Duration peerCheckInterval,
    String httpHost,
    int httpPort,
    BearerToken token,
    Set<String> spareUsers) {

  private static final Set<String> SECRET_FLAGS = Set.of("MYSQL_PASSWORD", "AUTH_TOKEN");
  private static final Set<String> KNOWN = Set.of("SITE", "GROUP", "NAMESPACE", "MYSQL_HOST", "MYSQL_PORT",
      "MYSQL_USER", "MYSQL_PASSWORD", "MYSQL_PASSWORD_FILE", "WATCHER_URL", "PEER_URLS", "LEASE_TIMEOUT",
      "PEER_CHECK_INTERVAL", "HTTP_HOST", "HTTP_PORT", "AUTH_TOKEN", "AUTH_TOKEN_FILE", "SPARE_USERS");

  /** Thrown with every problem found, so a bad Deployment is fixed in one edit. */
  public static final class InvalidConfigException extends IllegalArgumentException {
    private final List<String> problems;

    InvalidConfigException(List<String> problems) {
      super("invalid sidecar configuration: " + String.join("; ", problems));
      this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
      return problems;
    }
  }

  public SidecarConfig {
    Objects.requireNonNull(site, "site");
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(mysqlUser, "mysqlUser");
    Objects.requireNonNull(watcherUrl, "watcherUrl");
    Objects.requireNonNull(leaseTimeout, "leaseTimeout");
    Objects.requireNonNull(peerCheckInterval, "peerCheckInterval");
    Objects.requireNonNull(token, "token");
    peerUrls = List.copyOf(peerUrls);
    spareUsers = Set.copyOf(spareUsers);
    List<String> problems = new ArrayList<>();
    checkKnobs(leaseTimeout, peerCheckInterval, problems);
    if (!problems.isEmpty()) {
      throw new InvalidConfigException(problems);
    }
  }

  /** Reads the environment ({@code System.getenv()} in production) and the command line. */
  public static SidecarConfig from(Map<String, String> env, String[] args) {
    List<String> problems = new ArrayList<>();
    Map<String, String> v = new HashMap<>();
    env.forEach((name, value) -> {
      if (KNOWN.contains(name)) {
        v.put(name, value);
      }
    });
    for (String arg : args) {
      if (!arg.startsWith("--") || !arg.contains("=")) {
        problems.add("expected --name=value, got '" + redactArg(arg) + "'");
        continue;
      }
      String name = arg.substring(2, arg.indexOf('=')).toUpperCase(Locale.ROOT).replace('-', '_');
      if (SECRET_FLAGS.contains(name)) {
        problems.add("--" + arg.substring(2, arg.indexOf('=')) + " is refused: pass secrets as " + name
            + " in the environment or as a file with " + name + "_FILE");
      } else if (!KNOWN.contains(name)) {
        problems.add("unknown flag --" + arg.substring(2, arg.indexOf('=')));
      } else {
        v.put(name, arg.substring(arg.indexOf('=') + 1));
      }
    }
    String site = required(v, "SITE", problems);
    String group = required(v, "GROUP", problems);
    String namespace = required(v, "NAMESPACE", problems);
    String mysqlHost = v.getOrDefault("MYSQL_HOST", "127.0.0.1");
    int mysqlPort = port(v, "MYSQL_PORT", 3306, problems);
    String mysqlUser = required(v, "MYSQL_USER", problems);
    String mysqlPassword = secret(v, "MYSQL_PASSWORD", problems);
    URI watcherUrl = url("WATCHER_URL", required(v, "WATCHER_URL", problems), problems);
    List<URI> peers = new ArrayList<>();
    for (String peer : split(v.get("PEER_URLS"))) {
      URI parsed = url("PEER_URLS", peer, problems);
      if (parsed != null) {
        peers.add(parsed);
      }
    }
    Duration lease = duration(v, "LEASE_TIMEOUT", "20s", problems);
    Duration interval = duration(v, "PEER_CHECK_INTERVAL", "5s", problems);
    String httpHost = v.getOrDefault("HTTP_HOST", "0.0.0.0");
    int httpPort = port(v, "HTTP_PORT", 9180, problems);
    String token = secret(v, "AUTH_TOKEN", problems);
    if (token != null && token.isEmpty()) {
      problems.add("AUTH_TOKEN is empty: the peer and watcher endpoints need a shared token");
    } else if (absent(v, "AUTH_TOKEN")) {
      problems.add("AUTH_TOKEN or AUTH_TOKEN_FILE is required: the peer and watcher endpoints need a shared token");
    }
    if (absent(v, "MYSQL_PASSWORD")) {
      problems.add("MYSQL_PASSWORD or MYSQL_PASSWORD_FILE is required");
    }
    checkKnobs(lease, interval, problems);
    if (!problems.isEmpty()) {
      throw new InvalidConfigException(problems);
    }
    return new SidecarConfig(site, group, namespace, mysqlHost, mysqlPort, mysqlUser, mysqlPassword, watcherUrl,
        peers, lease, interval, httpHost, httpPort, BearerToken.of(token), Set.copyOf(split(v.get("SPARE_USERS"))));
  }

  /**
   * The same limits the resource's spec is held to: a lease shorter than two checks would expire
   * between two healthy checks, and a zero interval would spin.
   */
  static void checkKnobs(Duration lease, Duration interval, List<String> problems) {
    if (interval != null && interval.compareTo(GroupConfig.MIN_PEER_CHECK_INTERVAL) < 0) {
      problems.add("PEER_CHECK_INTERVAL (" + Durations.format(interval) + ") must be at least "
          + Durations.format(GroupConfig.MIN_PEER_CHECK_INTERVAL));
    }
    if (lease != null && lease.compareTo(GroupConfig.MIN_LEASE_TIMEOUT) < 0) {
      problems.add("LEASE_TIMEOUT (" + Durations.format(lease) + ") must be at least "
          + Durations.format(GroupConfig.MIN_LEASE_TIMEOUT));
    }
    if (lease != null && interval != null && lease.compareTo(interval.multipliedBy(2)) <= 0) {
      problems.add("LEASE_TIMEOUT (" + Durations.format(lease) + ") must be more than twice PEER_CHECK_INTERVAL ("
          + Durations.format(interval) + ")");
    }
  }

  /** The request timeout of the environment's interval (see {@link Timing#requestTimeout}). */
  public Duration requestTimeout() {
    return Timing.of(this).requestTimeout();
  }

  private static String required(Map<String, String> v, String name, List<String> problems) {
    String value = v.get(name);
    if (value == null || value.isBlank()) {
      problems.add(name + " is required");
      return null;
    }
    return value.strip();
  }

  /** A secret from NAME or from the file NAME_FILE names (the way a Secret volume is mounted). */
  private static String secret(Map<String, String> v, String name, List<String> problems) {
    String file = v.get(name + "_FILE");
    if (file != null && !file.isBlank()) {
      try {
        return Files.readString(Path.of(file.strip()), StandardCharsets.UTF_8).strip();
      } catch (IOException | RuntimeException e) {
        problems.add(name + "_FILE " + file.strip() + " cannot be read (" + e.getClass().getSimpleName() + ")");
        return null;
      }
    }
    return v.get(name);
  }

  private static boolean absent(Map<String, String> v, String name) {
    return v.get(name) == null && (v.get(name + "_FILE") == null || v.get(name + "_FILE").isBlank());
  }

  private static int port(Map<String, String> v, String name, int dflt, List<String> problems) {
    String value = v.get(name);
    if (value == null || value.isBlank()) {
      return dflt;
    }
    try {
      int port = Integer.parseInt(value.strip());
      if (port < 0 || port > 65535) {
        problems.add(name + " " + port + " is not a port");
      }
      return port;
    } catch (NumberFormatException e) {
      problems.add(name + " must be a number, not '" + value + "'");
      return dflt;
    }
  }

  private static Duration duration(Map<String, String> v, String name, String dflt, List<String> problems) {
    String value = v.getOrDefault(name, dflt);
    try {
      return Durations.parse(value);
    } catch (IllegalArgumentException e) {
      problems.add(name + ": " + e.getMessage());
      return null;
    }
  }

  private static URI url(String name, String value, List<String> problems) {
    if (value == null) {
      return null;
    }
    try {
      URI uri = new URI(value.strip());
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
        problems.add(name + " must be an http(s) URL with a host, not '" + Endpoints.describe(uri) + "'");
        return null;
      }
      if (uri.getUserInfo() != null) {
        problems.add(name + " must not carry credentials in the URL; the token is sent as a bearer header");
        return null;
      }
      return uri;
    } catch (URISyntaxException e) {
      problems.add(name + " is not a URL: " + e.getReason());
      return null;
    }
  }

  private static List<String> split(String list) {
    if (list == null || list.isBlank()) {
      return List.of();
    }
    return Arrays.stream(list.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
  }

  private static String redactArg(String arg) {
    return arg.length() > 40 ? arg.substring(0, 40) + "..." : arg;
  }

  @Override
  public String toString() {
    return "SidecarConfig[site=" + site + ", group=" + namespace + "/" + group + ", mysql=" + mysqlHost + ":" + mysqlPort
        + " as " + mysqlUser + ", watcher=" + Endpoints.describe(watcherUrl) + ", peers="
        + peerUrls.stream().map(Endpoints::describe).toList() + ", leaseTimeout=" + Durations.format(leaseTimeout)
        + ", peerCheckInterval=" + Durations.format(peerCheckInterval) + ", http=" + httpHost + ":" + httpPort
        + ", spareUsers=" + spareUsers + "]";
  }
}
