package io.shipstream.failover.watcher;

import io.shipstream.failover.model.Durations;
import io.shipstream.failover.runtime.ConfigReader;
import io.shipstream.failover.runtime.ControlPlaneTls;
import io.shipstream.failover.runtime.Logging;
import io.shipstream.failover.runtime.ProbeServer;
import io.shipstream.failover.runtime.Setting;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.temporal.TemporalSettings;
import io.shipstream.failover.workflows.TaskQueues;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * The watcher's settings, from the environment with {@code --name=value} flags on top (flags win),
 * read by the runtime module's {@link ConfigReader}; {@link #usage} lists them all. Besides the
 * Temporal connection (shared with the worker): TASK_QUEUE, WATCH_NAMESPACES (comma-separated,
 * empty = all), HTTP_HOST (the interface of the HTTP port: 0.0.0.0, every interface, as a pod
 * needs it for the kubelet and the sidecars; 127.0.0.1 where nothing outside the machine may call
 * it, as in the dev stack), HTTP_PORT, the Lease settings (LEADER_ELECTION, LEASE_NAME, LEASE_NAMESPACE or POD_NAMESPACE,
 * POD_NAME as the holder identity, LEASE_DURATION, LEASE_RENEW_DEADLINE, LEASE_RETRY_PERIOD), and
 * the sidecars' shared token for {@code /active-site} (AUTH_TOKEN_FILE, or AUTH_TOKEN from the
 * environment only: the fallback for groups that name no {@code spec.sidecar.tokenSecretRef}),
 * TLS_CERT_FILE, TLS_KEY_FILE, TLS_CA_FILE and HTTPS_PORT (8443) ({@link ControlPlaneTls}: with a
 * certificate, {@code /active-site} is served on HTTPS_PORT only, and the sidecars' {@code /status}
 * is read over https verified with TLS_CA_FILE), and TOPOLOGY_MONITOR: whether the leader polls every site and starts
 * emergency failovers, on by default (the chart grants the watcher {@code get} on Secrets in the
 * groups' namespaces, since the monitor logs in with each group's credentials Secret). Embedders
 * that only want annotations handled, such as tests, turn it off with
 * {@link #withTopologyMonitor}. AUTOMATIC_FAILOVER (on by default): whether the monitor acts on
 * what it sees (emergency failovers, fencing a split brain or a writable non-promotable site,
 * bringing back an old primary); off, it only keeps the groups adopted, routed and their
 * conditions written, and a human decides every failover.
 *
 * @param activeSiteToken null: {@code /active-site} is not served (embedded use without sidecars)
 */
public record WatcherConfig(
    TemporalSettings temporal,
    String taskQueue,
    List<String> watchNamespaces,
    String httpHost,
    int httpPort,
    LeaderElectionSettings leaderElection,
    SharedToken activeSiteToken,
    String logFormat,
    boolean topologyMonitor,
    boolean automaticFailover,
    ControlPlaneTls tls,
    int httpsPort) {

  public WatcherConfig {
    tls = tls == null ? ControlPlaneTls.none() : tls;
  }

  static final String TASK_QUEUE = "TASK_QUEUE";
  static final String WATCH_NAMESPACES = "WATCH_NAMESPACES";
  static final String HTTP_HOST = "HTTP_HOST";
  static final String HTTP_PORT = "HTTP_PORT";
  static final String LEADER_ELECTION = "LEADER_ELECTION";
  static final String LEASE_NAME = "LEASE_NAME";
  static final String LEASE_NAMESPACE = "LEASE_NAMESPACE";
  static final String POD_NAMESPACE = "POD_NAMESPACE";
  static final String POD_NAME = "POD_NAME";
  static final String LEASE_DURATION = "LEASE_DURATION";
  static final String LEASE_RENEW_DEADLINE = "LEASE_RENEW_DEADLINE";
  static final String LEASE_RETRY_PERIOD = "LEASE_RETRY_PERIOD";
  static final String TOPOLOGY_MONITOR = "TOPOLOGY_MONITOR";
  static final String AUTOMATIC_FAILOVER = "AUTOMATIC_FAILOVER";

  private static final List<Setting> SETTINGS = settings();

  private static List<Setting> settings() {
    List<Setting> s = new ArrayList<>(TemporalSettings.ADDRESS_SETTINGS);
    s.add(Setting.of(TASK_QUEUE, TaskQueues.FAILOVER));
    s.addAll(TemporalSettings.SECURITY_SETTINGS);
    s.add(Setting.of(WATCH_NAMESPACES, null));
    s.add(Setting.of(HTTP_HOST, ProbeServer.ANY));
    s.add(Setting.of(HTTP_PORT, "8080"));
    s.add(Setting.of(LEADER_ELECTION, "true"));
    s.add(Setting.of(LEASE_NAME, LeaderElectionSettings.DEFAULT_LEASE_NAME));
    s.add(Setting.of(LEASE_NAMESPACE, null));
    s.add(Setting.of(POD_NAMESPACE, null));
    s.add(Setting.of(POD_NAME, null));
    s.add(Setting.of(LEASE_DURATION, "15s"));
    s.add(Setting.of(LEASE_RENEW_DEADLINE, "10s"));
    s.add(Setting.of(LEASE_RETRY_PERIOD, "2s"));
    s.addAll(SharedToken.SETTINGS);
    s.addAll(ControlPlaneTls.settings(8443));
    s.add(Setting.of(TOPOLOGY_MONITOR, "true"));
    s.add(Setting.of(AUTOMATIC_FAILOVER, "true"));
    s.add(Logging.LOG_FORMAT_SETTING);
    return List.copyOf(s);
  }

  /**
   * Every default, for embedding the watcher (the playground, tests): no {@code /active-site}
   * token, and the HTTP port 0 (a free one, see {@link WatcherApp#httpPort}) rather than 8080, so
   * that two stacks on one machine do not collide.
   */
  public static WatcherConfig defaults() {
    return from(Map.of(), new String[0]).withHttpPort(0);
  }

  /**
   * Reads the known variables from {@code env} and then the flags; throws
   * {@link IllegalArgumentException} naming every bad or unknown setting. Without a token,
   * {@code /active-site} is not served; {@link WatcherApp#main} insists on one.
   */
  public static WatcherConfig from(Map<String, String> env, String[] args) {
    ConfigReader r = ConfigReader.read("watcher", SETTINGS, env, args);
    TemporalSettings temporal = TemporalSettings.read(r);
    String taskQueue = r.required(TASK_QUEUE);
    List<String> namespaces = r.list(WATCH_NAMESPACES);
    String host = r.parse(HTTP_HOST, WatcherConfig::interfaceAddress);
    int port = r.port(HTTP_PORT);
    LeaderElectionSettings election = leaderElection(r);
    SharedToken token = SharedToken.read(r);
    String logFormat = Logging.format(r);
    Boolean monitor = r.bool(TOPOLOGY_MONITOR);
    Boolean automatic = r.bool(AUTOMATIC_FAILOVER);
    ControlPlaneTls tls = ControlPlaneTls.read(r);
    int httpsPort = r.port(ControlPlaneTls.HTTPS_PORT);
    r.check();
    return new WatcherConfig(temporal, taskQueue, namespaces, host, port, election, token, logFormat,
        !Boolean.FALSE.equals(monitor), !Boolean.FALSE.equals(automatic), tls, httpsPort);
  }

  /**
   * An IP address (or localhost), checked now so that a typo fails with the setting's name rather
   * than as a bind error. Names are refused: an interface is an address, and resolving a name here
   * would make the configuration depend on DNS.
   */
  private static String interfaceAddress(String host) {
    boolean literal = host.contains(":") || host.matches("\\d{1,3}(\\.\\d{1,3}){3}")
        && java.util.Arrays.stream(host.split("\\.")).allMatch(octet -> Integer.parseInt(octet) <= 255);
    if (literal || host.equals("localhost")) {
      try {
        InetAddress.getByName(host);
        return host;
      } catch (UnknownHostException e) {
        // Reported below, with what is expected.
      }
    }
    throw new IllegalArgumentException("expected an IP address, e.g. 127.0.0.1 (0.0.0.0 is every interface)");
  }

  private static LeaderElectionSettings leaderElection(ConfigReader r) {
    Boolean enabled = r.bool(LEADER_ELECTION);
    String leaseName = r.required(LEASE_NAME);
    String namespace = r.get(LEASE_NAMESPACE) != null ? r.get(LEASE_NAMESPACE) : r.get(POD_NAMESPACE);
    String identity = r.get(POD_NAME) != null ? r.get(POD_NAME) : hostIdentity();
    Duration lease = r.parse(LEASE_DURATION, Durations::parse);
    Duration renew = r.parse(LEASE_RENEW_DEADLINE, Durations::parse);
    Duration retry = r.parse(LEASE_RETRY_PERIOD, Durations::parse);
    if (lease != null && renew != null && retry != null) {
      String problem = LeaderElectionSettings.checkTimings(lease, renew, retry);
      if (problem != null) {
        r.error(problem);
      }
    }
    return new LeaderElectionSettings(!Boolean.FALSE.equals(enabled), leaseName, namespace, identity, lease, renew,
        retry);
  }

  /**
   * Outside a pod (no POD_NAME) the host name alone could be shared by two watchers on one
   * machine, and two candidates with one identity would both believe they lead.
   */
  private static String hostIdentity() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "watcher";
    }
    return host + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** One line per setting, for {@code --help} and for configuration errors. */
  public static String usage() {
    return ConfigReader.usage(SETTINGS);
  }

  /** Listens on {@code host}'s interface only, e.g. 127.0.0.1 where nothing else may call the watcher. */
  public WatcherConfig withHttpHost(String host) {
    return with(c -> c.httpHost = host);
  }

  public WatcherConfig withHttpPort(int port) {
    return with(c -> c.httpPort = port);
  }

  public WatcherConfig withLeaderElection(LeaderElectionSettings election) {
    return with(c -> c.leaderElection = election);
  }

  public WatcherConfig withActiveSiteToken(SharedToken token) {
    return with(c -> c.activeSiteToken = token);
  }

  /** HTTPS for /active-site on {@code httpsPort} (0: a free one) when {@code tls} has a certificate. */
  public WatcherConfig withTls(ControlPlaneTls tls, int httpsPort) {
    return with(c -> {
      c.tls = tls;
      c.httpsPort = httpsPort;
    });
  }

  public WatcherConfig withWatchNamespaces(List<String> namespaces) {
    return with(c -> c.watchNamespaces = List.copyOf(namespaces));
  }

  public WatcherConfig withTopologyMonitor(boolean enabled) {
    return with(c -> c.topologyMonitor = enabled);
  }

  /** Whether the monitor acts on what it sees, or only adopts, routes and reports. */
  public WatcherConfig withAutomaticFailover(boolean enabled) {
    return with(c -> c.automaticFailover = enabled);
  }

  /** A copy with {@code change} made to it: each wither names only what it changes. */
  private WatcherConfig with(Consumer<Copy> change) {
    Copy copy = new Copy(this);
    change.accept(copy);
    return copy.build();
  }

  /** The settings of a config as mutable fields, for {@link #with}. */
  private static final class Copy {
    TemporalSettings temporal;
    String taskQueue;
    List<String> watchNamespaces;
    String httpHost;
    int httpPort;
    LeaderElectionSettings leaderElection;
    SharedToken activeSiteToken;
    String logFormat;
    boolean topologyMonitor;
    boolean automaticFailover;
    ControlPlaneTls tls;
    int httpsPort;

    Copy(WatcherConfig c) {
      tls = c.tls;
      httpsPort = c.httpsPort;
      temporal = c.temporal;
      taskQueue = c.taskQueue;
      watchNamespaces = c.watchNamespaces;
      httpHost = c.httpHost;
      httpPort = c.httpPort;
      leaderElection = c.leaderElection;
      activeSiteToken = c.activeSiteToken;
      logFormat = c.logFormat;
      topologyMonitor = c.topologyMonitor;
      automaticFailover = c.automaticFailover;
    }

    WatcherConfig build() {
      return new WatcherConfig(temporal, taskQueue, watchNamespaces, httpHost, httpPort, leaderElection,
          activeSiteToken, logFormat, topologyMonitor, automaticFailover, tls, httpsPort);
    }
  }
}
