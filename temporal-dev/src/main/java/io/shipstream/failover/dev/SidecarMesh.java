package io.shipstream.failover.dev;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.sidecar.Sidecar;
import io.shipstream.failover.sidecar.SidecarConfig;
import io.shipstream.failover.sidecar.SidecarStatus;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.FreePorts;
import io.shipstream.failover.testsupport.MariaDbServer;
import io.shipstream.failover.testsupport.TcpProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One sidecar per site, in-process as the worker and the watcher are, each next to its site's
 * {@code mariadbd}. Every link a sidecar has (to the watcher's {@code /active-site}, to each peer's
 * {@code /peer/active-site}) goes through a loopback {@link TcpProxy} of its own, one per direction,
 * so {@link #partition} can cut one site off the watcher and every peer, both ways, as a network
 * partition would, without touching any process.
 *
 * <p>A site may run its sidecar as a process of its own instead ({@link SidecarProcess}: {@code
 * SidecarMain} in a new JVM, configured through the same environment), as in a pod: a test can
 * then freeze it or hang its fencing loop, and the {@link DevKubelet} the mesh starts for such
 * sites restarts it when the liveness probe of its pod fails, as a kubelet would. In-process
 * sidecars stay the default: they start in milliseconds, and a restart in-process could not kill
 * a hung loop the way {@code kill -9} does.
 */
public final class SidecarMesh implements AutoCloseable {
  /** The name of the watcher's end in {@link #links}. */
  private static final String WATCHER = "watcher";

  /** The sidecar knobs (spec.sidecar.leaseTimeout and peerCheckInterval). */
  public record Knobs(Duration leaseTimeout, Duration peerCheckInterval) {
    /**
     * Short, so a partition fences within seconds, yet four ticks per lease: one slow answer on a
     * loaded two-core machine never lets a healthy primary's lease run out.
     */
    public static Knobs playground() {
      return new Knobs(Duration.ofSeconds(2), Duration.ofMillis(500));
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

  private final Knobs knobs;
  private final String token;
  private final Map<String, Sidecar> sidecars = new LinkedHashMap<>();
  /** The sites whose sidecar runs as its own JVM. */
  private final Map<String, SidecarProcess> processes = new LinkedHashMap<>();
  /** The port each site's sidecar listens on, whichever way it runs; a restart keeps it. */
  private final Map<String, Integer> ports = new LinkedHashMap<>();
  private DevKubelet kubelet;
  /** Every directed link by (from, to); the watcher's end is named {@value #WATCHER}. */
  private final Map<String, Map<String, TcpProxy>> links = new LinkedHashMap<>();
  /**
   * The control plane's way to each sidecar (the worker's POST /tick and GET /status): the URL the
   * group's spec carries, so that {@link #partition} cuts it too.
   */
  private final Map<String, TcpProxy> controlLinks = new LinkedHashMap<>();

  private SidecarMesh(Knobs knobs, String token) {
    this.knobs = knobs;
    this.token = token;
  }

  /**
   * Starts a sidecar for each server, asking the watcher on {@code watcherPort} with the shared
   * {@code token}, and returns once every one has booted and heard from the watcher and every peer.
   */
  static SidecarMesh start(Map<String, DatabaseServer> servers, GroupRef group, int watcherPort, String token,
      Knobs knobs) {
    return start(servers, group, watcherPort, token, knobs, Set.of(), null, null, null);
  }

  /**
   * As above, with the sidecars of {@code ownJvm} as processes of their own (logs under {@code
   * logDir}), each watched by a {@link DevKubelet} that reads its probe from the site's pod
   * through {@code kube}, on {@code classpath} (null: this JVM's; another release's sidecar in the
   * upgrade drill).
   */
  static SidecarMesh start(Map<String, DatabaseServer> servers, GroupRef group, int watcherPort, String token,
      Knobs knobs, Set<String> ownJvm, Path logDir, KubernetesClient kube, String classpath) {
    if (!servers.keySet().containsAll(ownJvm)) {
      throw new IllegalArgumentException("no site " + ownJvm + " among " + servers.keySet());
    }
    SidecarMesh mesh = new SidecarMesh(knobs, token);
    try {
      servers.keySet().forEach(site -> mesh.ports.put(site, FreePorts.next()));
      for (String site : servers.keySet()) {
        Map<String, TcpProxy> out = new LinkedHashMap<>();
        out.put(WATCHER, TcpProxy.start(MariaDbServer.HOST, watcherPort));
        mesh.ports.forEach((peer, port) -> {
          if (!peer.equals(site)) {
            out.put(peer, TcpProxy.start(MariaDbServer.HOST, port));
          }
        });
        mesh.links.put(site, out);
      }
      servers.forEach((site, server) -> {
        Map<String, String> env = mesh.environment(site, server, group);
        if (ownJvm.contains(site)) {
          mesh.processes.put(site, SidecarProcess.start(site, env, logDir.resolve(site + ".log"),
              classpath == null ? System.getProperty("java.class.path") : classpath));
        } else {
          mesh.sidecars.put(site, Sidecar.start(SidecarConfig.from(env, new String[0])));
        }
      });
      mesh.ports.forEach((site, port) -> mesh.controlLinks.put(site, TcpProxy.start(MariaDbServer.HOST, port)));
      mesh.awaitSteady(Duration.ofSeconds(30));
      if (!ownJvm.isEmpty()) {
        mesh.kubelet = new DevKubelet(kube, group.namespace());
        mesh.processes.forEach((site, process) -> mesh.kubelet.watch(site, DevKubelet.podOf(site),
            new DevKubelet.Target() {
              @Override
              public int port() {
                return mesh.ports.get(site);
              }

              @Override
              public void restart() {
                process.restart();
              }
            }));
        // Started as a kubelet sees it: from here on the liveness probe runs.
        mesh.processes.keySet().forEach(site -> mesh.kubelet.awaitStarted(site, Duration.ofSeconds(60)));
      }
      return mesh;
    } catch (RuntimeException e) {
      mesh.close();
      throw e;
    }
  }

  /**
   * The sidecar's settings as a pod's environment gives them to {@code SidecarMain}: the same for
   * an in-process sidecar (read by the same {@link SidecarConfig#from}) and a process of its own.
   */
  private Map<String, String> environment(String site, DatabaseServer server, GroupRef group) {
    Map<String, TcpProxy> out = links.get(site);
    Map<String, String> env = new LinkedHashMap<>();
    env.put("SITE", site);
    env.put("GROUP", group.name());
    env.put("NAMESPACE", group.namespace());
    env.put("MYSQL_HOST", server.host());
    env.put("MYSQL_PORT", Integer.toString(server.port()));
    env.put("MYSQL_USER", MariaDbServer.ADMIN.user());
    env.put("MYSQL_PASSWORD", MariaDbServer.ADMIN.password());
    env.put("WATCHER_URL", url(out.get(WATCHER)).toString());
    env.put("PEER_URLS", out.entrySet().stream().filter(e -> !e.getKey().equals(WATCHER))
        .map(e -> url(e.getValue()).toString()).collect(Collectors.joining(",")));
    env.put("LEASE_TIMEOUT", knobs.leaseTimeout().toMillis() + "ms");
    env.put("PEER_CHECK_INTERVAL", knobs.peerCheckInterval().toMillis() + "ms");
    env.put("HTTP_HOST", MariaDbServer.HOST);
    env.put("HTTP_PORT", Integer.toString(ports.get(site)));
    env.put("AUTH_TOKEN", token);
    env.put("SPARE_USERS", MariaDbServer.REPLICATION.user());
    // A server with certificates requires secure transport: the sidecar checks it as the group does.
    server.caFile().ifPresent(ca -> {
      env.put("MYSQL_TLS_MODE", "verify-identity");
      env.put("MYSQL_TLS_CA_FILE", ca.toString());
    });
    return env;
  }

  public Knobs knobs() {
    return knobs;
  }

  /** The status of an in-process sidecar; see {@link #statusJson} for one that runs as its own JVM. */
  public SidecarStatus status(String site) {
    return sidecar(site).status();
  }

  /**
   * The site's {@code /status} as JSON, whichever way its sidecar runs: a process of its own is
   * asked over HTTP with the token (so this throws while it is down or frozen).
   */
  public JsonNode statusJson(String site) {
    try {
      if (sidecars.containsKey(site)) {
        return JSON.readTree(sidecar(site).status().toJson());
      }
      HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + MariaDbServer.HOST
          + ":" + port(site) + "/status")).header("Authorization", "Bearer " + token)
          .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException("the sidecar of " + site + " answered /status with " + response.statusCode());
      }
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException("the sidecar of " + site + " did not answer /status", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The port the site's sidecar serves /health, /status and /peer/* on. */
  public int port(String site) {
    Integer port = ports.get(site);
    if (port == null) {
      throw new IllegalArgumentException("no sidecar for site '" + site + "'");
    }
    return port;
  }

  /** The site's sidecar as the control plane reaches it: spec.sites[].sidecar.url. */
  public String controlUrl(String site) {
    port(site);
    return url(controlLinks.get(site)).toString();
  }

  /**
   * The site's sidecar when it runs as a process of its own ({@link FailoverStack#startSidecars(Knobs,
   * Set)}): freeze it, hang its fencing loop, kill it.
   */
  public SidecarProcess process(String site) {
    SidecarProcess process = processes.get(site);
    if (process == null) {
      throw new IllegalArgumentException("the sidecar of '" + site + "' does not run as its own JVM");
    }
    return process;
  }

  /** The kubelet stand-in that restarts the sidecars running as their own JVM; absent when none does. */
  public Optional<DevKubelet> kubelet() {
    return Optional.ofNullable(kubelet);
  }

  /**
   * Cuts the site's sidecar off the watcher, every peer and the worker, both ways: packets are dropped (the
   * connections hang until the callers' timeouts), as behind a real partition.
   */
  public void partition(String site) {
    port(site);
    linksOf(site).forEach(TcpProxy::blackhole);
  }

  /** Restores every link of the site's sidecar. */
  public void heal(String site) {
    port(site);
    linksOf(site).forEach(TcpProxy::heal);
  }

  /** The name {@link #links} gives the control plane's end: the watcher's /active-site, the worker's calls. */
  public static final String CONTROL_PLANE = "control-plane";

  /** One directed link: the end that opens its connections, the end that answers them, its proxy. */
  public record Link(String from, String to, TcpProxy proxy) {}

  /**
   * Every link of the mesh, each end a site or {@value #CONTROL_PLANE}: what {@link RegionNetwork}
   * cuts when a region goes dark (those with one end inside it).
   */
  public List<Link> links() {
    List<Link> all = new ArrayList<>();
    links.forEach((from, out) -> out.forEach((to, proxy) -> all.add(new Link(from, WATCHER.equals(to) ? CONTROL_PLANE
        : to, proxy))));
    controlLinks.forEach((site, proxy) -> all.add(new Link(CONTROL_PLANE, site, proxy)));
    return all;
  }

  /** The link the site's sidecar asks the watcher through: its WATCHER_URL points at it. */
  TcpProxy watcherLink(String site) {
    port(site);
    return links.get(site).get(WATCHER);
  }

  /** Booted, and the last tick heard from the watcher and every peer. */
  public boolean steady(String site) {
    return steady(statusJson(site));
  }

  private static boolean steady(JsonNode s) {
    boolean peersHeard = true;
    for (JsonNode peer : s.path("peers")) {
      peersHeard &= !peer.path("lastContact").isNull() && !peer.has("problem");
    }
    return "DONE".equals(s.path("boot").asText()) && !s.path("lastWatcherContact").isNull() && peersHeard;
  }

  private void awaitSteady(Duration timeout) {
    long until = System.nanoTime() + timeout.toNanos();
    // Steady, and running with the spec's timing, learned from the watcher, so that a test's
    // partition is fenced within the lease the emergency failover waits on.
    while (!ports.keySet().stream().allMatch(this::steadyOnTheSpecsTiming)) {
      if (System.nanoTime() > until) {
        throw new IllegalStateException("the sidecars did not all hear from the watcher and their peers within "
            + timeout + ": " + ports.keySet().stream().map(this::describe).toList());
      }
      Playground.sleep(20);
    }
  }

  private boolean steadyOnTheSpecsTiming(String site) {
    try {
      JsonNode s = statusJson(site);
      return steady(s) && s.path("leaseTimeoutMillis").asLong() == knobs.leaseTimeout().toMillis()
          && s.path("peerCheckIntervalMillis").asLong() == knobs.peerCheckInterval().toMillis();
    } catch (RuntimeException e) {
      // A process of its own still starting.
      return false;
    }
  }

  private String describe(String site) {
    try {
      return statusJson(site).toString();
    } catch (RuntimeException e) {
      return site + ": " + e.getMessage();
    }
  }

  private List<TcpProxy> linksOf(String site) {
    List<TcpProxy> all = new ArrayList<>(links.get(site).values());
    all.add(controlLinks.get(site));
    links.forEach((from, out) -> {
      if (!from.equals(site) && out.containsKey(site)) {
        all.add(out.get(site));
      }
    });
    return all;
  }

  private Sidecar sidecar(String site) {
    Sidecar sidecar = sidecars.get(site);
    if (sidecar == null && processes.containsKey(site)) {
      throw new IllegalStateException("the sidecar of '" + site + "' runs as its own JVM: ask statusJson");
    }
    if (sidecar == null) {
      throw new IllegalArgumentException("no sidecar for site '" + site + "'");
    }
    return sidecar;
  }

  private static URI url(TcpProxy proxy) {
    return URI.create("http://" + proxy.host() + ":" + proxy.port());
  }

  /** Stops the kubelet stand-in and the sidecars (MySQL is left as it is), then the links. */
  @Override
  public void close() {
    if (kubelet != null) {
      kubelet.close();
    }
    processes.values().forEach(SidecarProcess::close);
    sidecars.values().forEach(Sidecar::close);
    links.values().forEach(out -> out.values().forEach(TcpProxy::close));
    controlLinks.values().forEach(TcpProxy::close);
  }
}
