package io.shipstream.failover.sidecar;

import io.shipstream.failover.model.Durations;
import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.mysql.SessionTls;
import io.shipstream.failover.runtime.ConfigReader;
import io.shipstream.failover.runtime.ControlPlaneTls;
import io.shipstream.failover.runtime.Logging;
import io.shipstream.failover.runtime.Setting;
import io.shipstream.failover.runtime.SharedToken;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The sidecar's settings, read like every process's ({@link ConfigReader}): from the environment
 * with {@code --name=value} flags on top (flags win; {@code --lease-timeout=2s} sets LEASE_TIMEOUT).
 * Names: SITE, GROUP, NAMESPACE, MYSQL_HOST (127.0.0.1), MYSQL_PORT (3306), MYSQL_USER, MYSQL_PASSWORD
 * or MYSQL_PASSWORD_FILE, WATCHER_URL, PEER_URLS (comma-separated), LEASE_TIMEOUT (20s),
 * PEER_CHECK_INTERVAL (5s) (both only until the watcher first answers with the group's
 * spec.sidecar, see {@link Timing}), HTTP_HOST (0.0.0.0), HTTP_PORT (9180, 0 = any free port),
 * AUTH_TOKEN or AUTH_TOKEN_FILE (the group's own credential, re-read when the file changes),
 * TLS_CERT_FILE, TLS_KEY_FILE, TLS_CA_FILE and HTTPS_PORT (9443) ({@link ControlPlaneTls}: with a
 * certificate mounted, the authenticated endpoints move to HTTPS_PORT and the URLs must be https),
 * SPARE_USERS (accounts whose sessions a fence leaves alone besides
 * MYSQL_USER, e.g. the replication account), LOG_FORMAT (text or json, as for the other processes),
 * MYSQL_TLS_MODE (disabled | required | verify-ca | verify-identity; preferred is refused) with
 * MYSQL_TLS_CA_FILE, MYSQL_TLS_CERT_FILE, MYSQL_TLS_KEY_FILE: the TLS of its sessions to the local
 * server, from its own mounts, because it must fence at boot before the watcher answers.
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
    SharedToken token,
    Set<String> spareUsers,
    SessionTls mysqlTls,
    ControlPlaneTls tls,
    int httpsPort) {

  /** Without TLS to the local server nor for the control plane. */
  public SidecarConfig(String site, String group, String namespace, String mysqlHost, int mysqlPort, String mysqlUser,
      String mysqlPassword, URI watcherUrl, List<URI> peerUrls, Duration leaseTimeout, Duration peerCheckInterval,
      String httpHost, int httpPort, SharedToken token, Set<String> spareUsers) {
    this(site, group, namespace, mysqlHost, mysqlPort, mysqlUser, mysqlPassword, watcherUrl, peerUrls, leaseTimeout,
        peerCheckInterval, httpHost, httpPort, token, spareUsers, SessionTls.NONE);
  }

  /** Without TLS for the control plane. */
  public SidecarConfig(String site, String group, String namespace, String mysqlHost, int mysqlPort, String mysqlUser,
      String mysqlPassword, URI watcherUrl, List<URI> peerUrls, Duration leaseTimeout, Duration peerCheckInterval,
      String httpHost, int httpPort, SharedToken token, Set<String> spareUsers, SessionTls mysqlTls) {
    this(site, group, namespace, mysqlHost, mysqlPort, mysqlUser, mysqlPassword, watcherUrl, peerUrls, leaseTimeout,
        peerCheckInterval, httpHost, httpPort, token, spareUsers, mysqlTls, ControlPlaneTls.none(), DEFAULT_HTTPS_PORT);
  }

  /** Without TLS to the local server. */
  public SidecarConfig(String site, String group, String namespace, String mysqlHost, int mysqlPort, String mysqlUser,
      String mysqlPassword, URI watcherUrl, List<URI> peerUrls, Duration leaseTimeout, Duration peerCheckInterval,
      String httpHost, int httpPort, SharedToken token, Set<String> spareUsers, ControlPlaneTls tls, int httpsPort) {
    this(site, group, namespace, mysqlHost, mysqlPort, mysqlUser, mysqlPassword, watcherUrl, peerUrls, leaseTimeout,
        peerCheckInterval, httpHost, httpPort, token, spareUsers, SessionTls.NONE, tls, httpsPort);
  }

  /** Where the authenticated endpoints are served when a certificate is mounted. */
  static final int DEFAULT_HTTPS_PORT = 9443;
  private static final String FROM_A_SECRET = "from a Secret (a flag is visible in ps and in the pod spec)";
  /** Every setting, in the order {@code --help} and the errors list them. */
  static final List<Setting> SETTINGS = Stream.of(
      List.of(
          Setting.of("SITE", null),
          Setting.of("GROUP", null),
          Setting.of("NAMESPACE", null),
          Setting.of("MYSQL_HOST", "127.0.0.1"),
          Setting.of("MYSQL_PORT", "3306"),
          Setting.of("MYSQL_USER", null),
          Setting.envOnly("MYSQL_PASSWORD", null, FROM_A_SECRET),
          Setting.of("MYSQL_PASSWORD_FILE", null),
          Setting.of("WATCHER_URL", null),
          Setting.of("PEER_URLS", null),
          Setting.of("LEASE_TIMEOUT", "20s"),
          Setting.of("PEER_CHECK_INTERVAL", "5s"),
          Setting.of("HTTP_HOST", "0.0.0.0"),
          Setting.of("HTTP_PORT", "9180")),
      SharedToken.SETTINGS,
      ControlPlaneTls.settings(DEFAULT_HTTPS_PORT),
      List.of(Setting.of("SPARE_USERS", null), Logging.LOG_FORMAT_SETTING),
      List.of(Setting.of("MYSQL_TLS_MODE", "disabled"), Setting.of("MYSQL_TLS_CA_FILE", null),
          Setting.of("MYSQL_TLS_CERT_FILE", null), Setting.of("MYSQL_TLS_KEY_FILE", null)))
      .flatMap(List::stream).toList();

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
    mysqlTls = mysqlTls == null ? SessionTls.NONE : mysqlTls;
    tls = tls == null ? ControlPlaneTls.none() : tls;
    List<String> problems = new ArrayList<>();
    checkKnobs(leaseTimeout, peerCheckInterval, problems);
    if (!problems.isEmpty()) {
      throw new InvalidConfigException(problems);
    }
  }

  /** Reads the environment ({@code System.getenv()} in production) and the command line. */
  public static SidecarConfig from(Map<String, String> env, String[] args) {
    ConfigReader r = ConfigReader.read("sidecar", SETTINGS, env, args);
    String site = r.required("SITE");
    String group = r.required("GROUP");
    String namespace = r.required("NAMESPACE");
    String mysqlHost = r.get("MYSQL_HOST");
    int mysqlPort = r.port("MYSQL_PORT");
    String mysqlUser = r.required("MYSQL_USER");
    String mysqlPassword = r.secret("MYSQL_PASSWORD");
    URI watcherUrl = url(r, "WATCHER_URL", r.required("WATCHER_URL"));
    List<URI> peers = new ArrayList<>();
    for (String peer : r.list("PEER_URLS")) {
      URI parsed = url(r, "PEER_URLS", peer);
      if (parsed != null) {
        peers.add(parsed);
      }
    }
    Duration lease = r.parse("LEASE_TIMEOUT", Durations::parse);
    Duration interval = r.parse("PEER_CHECK_INTERVAL", Durations::parse);
    String httpHost = r.get("HTTP_HOST");
    int httpPort = r.port("HTTP_PORT");
    SharedToken token = SharedToken.read(r);
    if (SharedToken.unset(r)) {
      r.error(SharedToken.required("the peer and watcher endpoints need a shared token"));
    }
    if (r.get("MYSQL_PASSWORD") == null && blank(r.get("MYSQL_PASSWORD_FILE"))) {
      r.error("MYSQL_PASSWORD or MYSQL_PASSWORD_FILE is required");
    }
    ControlPlaneTls tls = ControlPlaneTls.read(r);
    int httpsPort = r.port(ControlPlaneTls.HTTPS_PORT);
    if (tls.serving()) {
      // A sidecar that serves HTTPS sends its token only over HTTPS: a plaintext URL would carry it in clear.
      if (watcherUrl != null && !"https".equals(watcherUrl.getScheme())) {
        r.error("WATCHER_URL must be an https URL when TLS_CERT_FILE is set (the token would travel in clear)");
      }
      peers.stream().filter(p -> !"https".equals(p.getScheme())).findFirst().ifPresent(p -> r.error(
          "PEER_URLS must be https URLs when TLS_CERT_FILE is set, not " + Endpoints.describe(p)));
    }
    List<String> knobs = new ArrayList<>();
    checkKnobs(lease, interval, knobs);
    knobs.forEach(r::error);
    Logging.format(r);
    SessionTls mysqlTls = SessionTls.NONE;
    try {
      mysqlTls = SessionTls.fromFiles(r.get("MYSQL_TLS_MODE"), r.get("MYSQL_TLS_CA_FILE"), r.get("MYSQL_TLS_CERT_FILE"),
          r.get("MYSQL_TLS_KEY_FILE"));
    } catch (IllegalArgumentException e) {
      r.error("MYSQL_TLS_*: " + e.getMessage());
    }
    if (!r.errors().isEmpty()) {
      throw new InvalidConfigException(r.errors());
    }
    return new SidecarConfig(site, group, namespace, mysqlHost, mysqlPort, mysqlUser, mysqlPassword, watcherUrl,
        peers, lease, interval, httpHost, httpPort, token, Set.copyOf(r.list("SPARE_USERS")), mysqlTls, tls,
        httpsPort);
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

  private static boolean blank(String value) {
    return value == null || value.isBlank();
  }

  private static URI url(ConfigReader r, String name, String value) {
    if (value == null) {
      return null;
    }
    try {
      URI uri = new URI(value.strip());
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
        r.error(name + " must be an http(s) URL with a host, not '" + Endpoints.describe(uri) + "'");
        return null;
      }
      if (uri.getUserInfo() != null) {
        r.error(name + " must not carry credentials in the URL; the token is sent as a bearer header");
        return null;
      }
      return uri;
    } catch (URISyntaxException e) {
      r.error(name + " is not a URL: " + e.getReason());
      return null;
    }
  }

  @Override
  public String toString() {
    return "SidecarConfig[site=" + site + ", group=" + namespace + "/" + group + ", mysql=" + mysqlHost + ":"
        + mysqlPort
        + " as " + mysqlUser + ", watcher=" + Endpoints.describe(watcherUrl) + ", peers="
        + peerUrls.stream().map(Endpoints::describe).toList() + ", leaseTimeout=" + Durations.format(leaseTimeout)
        + ", peerCheckInterval=" + Durations.format(peerCheckInterval) + ", http=" + httpHost + ":" + httpPort
        + (tls.serving() ? ", https=" + httpHost + ":" + httpsPort : "") + ", spareUsers=" + spareUsers + "]";
  }
}
