package io.shipstream.failover.dev;

import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.TcpProxy;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Regions on the one-machine stack: each site lives in a region, the control plane (Temporal, the
 * worker, the watcher) in a region of its own or beside a site, and every connection that crosses
 * a region boundary goes through a {@link TcpProxy} of that pair of regions, so {@link #darken}
 * cuts a whole region off at once while its processes keep running:
 *
 * <ul>
 *   <li>the control plane to each server (the spec's {@code mysql} endpoint points at the proxy),
 *   <li>each replica to its source ({@link #replicate}),
 *   <li>the sidecars to the watcher, to each other, and the worker to them ({@link SidecarMesh#links}); a
 *       sidecar sent to a watcher replica placed in a region ({@link #routeWatcher}) reaches it
 *       through a link of that pair of regions, never cut when both ends are in one region,
 *   <li>an application's writer in one region to a server in another ({@link #jdbcUrl}).
 * </ul>
 *
 * <p>A link with both ends in one region is direct, so a writer placed inside the dark region
 * still reaches its own server, and the {@code WritableWatch} probes (direct connections) see
 * each server from inside its region. The cut drops packets ({@link TcpProxy#drop}): nobody is
 * told, every end finds out through its own timeouts, as behind a real partition.
 *
 * <p>Known gap: a replica the product re-points itself (after a failover, a rejoin) replicates
 * through the spec's endpoint, the control plane's link to its source; {@link #rehomeReplication}
 * moves it to its own region's link, as the harness does between drills. The control plane's own
 * links (to Temporal and the API server) are in-process and not proxied, so its region cannot be
 * darkened ({@link #darken} refuses). A replica of the watcher and the worker placed in another
 * region reaches Temporal and the API server through that region's links ({@link
 * #linkToControlPlane}), so darkening its region cuts it off; its links to the servers and the
 * sidecars are the spec's, the control plane region's (the spec holds one endpoint per site), so
 * while it still leads it sees the servers as the control plane region does.
 */
public final class RegionNetwork implements AutoCloseable {
  /** One proxied link between two regions: who opens its connections, what it reaches, its proxy. */
  public record Link(String fromRegion, String toRegion, String what, TcpProxy proxy) {}

  private final FailoverStack stack;
  private final Map<String, String> regionOfSite;
  private final String controlPlaneRegion;
  private final List<Link> links = new CopyOnWriteArrayList<>();
  /** Writer and replication links by (from region, site), made on first use. */
  private final Map<String, TcpProxy> toServer = new ConcurrentHashMap<>();
  private final Set<String> dark = ConcurrentHashMap.newKeySet();
  /** When each dark region went dark (System.nanoTime). */
  private final Map<String, Long> darkSince = new ConcurrentHashMap<>();
  /** When each region that was dark was last lit again (System.nanoTime). */
  private final Map<String, Long> litAgain = new ConcurrentHashMap<>();

  private RegionNetwork(FailoverStack stack, Map<String, String> regionOfSite, String controlPlaneRegion) {
    this.stack = stack;
    this.regionOfSite = Map.copyOf(regionOfSite);
    this.controlPlaneRegion = controlPlaneRegion;
  }

  /**
   * Puts every site of {@code stack} in its region ({@code regionOfSite}; a site not named is a
   * region of its own, named after it) and the control plane in {@code controlPlaneRegion}, and
   * routes every cross-region link through a proxy: the control plane's way to each server, the
   * replicas' to the active primary, and the sidecars' links when the stack runs them (start
   * them first). Returns once the replicas have caught up through their new links.
   */
  public static RegionNetwork build(FailoverStack stack, Map<String, String> regionOfSite, String controlPlaneRegion) {
    Map<String, String> regions = new LinkedHashMap<>();
    stack.servers().keySet().forEach(site -> regions.put(site, regionOfSite.getOrDefault(site, site)));
    RegionNetwork network = new RegionNetwork(stack, regions, controlPlaneRegion);
    try {
      network.proxyControlPlane();
      stack.sidecars()
          .ifPresent(mesh -> mesh.links().forEach(l -> network.links.add(new Link(network.regionOf(l.from()),
              network.regionOf(l.to()), "sidecar " + l.from() + " -> " + l.to(), l.proxy()))));
      network.rehomeReplication();
      return network;
    } catch (RuntimeException e) {
      network.close();
      throw e;
    }
  }

  /** The region of a site, or of {@link SidecarMesh#CONTROL_PLANE}. */
  public String regionOf(String siteOrControlPlane) {
    if (SidecarMesh.CONTROL_PLANE.equals(siteOrControlPlane)) {
      return controlPlaneRegion;
    }
    String region = regionOfSite.get(siteOrControlPlane);
    if (region == null) {
      throw new IllegalArgumentException("no site " + siteOrControlPlane + " among " + regionOfSite.keySet());
    }
    return region;
  }

  public String controlPlaneRegion() {
    return controlPlaneRegion;
  }

  /**
   * Drops every packet on every link with one end in {@code region}; links inside it go on. The
   * control plane's region is refused: its links to Temporal and the API server are not proxied.
   */
  public void darken(String region) {
    if (region.equals(controlPlaneRegion)) {
      throw new IllegalArgumentException("the control plane lives in " + region + " and its Temporal and API links are"
          + " not proxied: darkening it would leave it talking to itself");
    }
    dark.add(region);
    darkSince.put(region, System.nanoTime());
    crossing(region).forEach(TcpProxy::drop);
  }

  /** The System.nanoTime at which {@code region} last went dark; -1 if it never did. */
  public long darkSince(String region) {
    return darkSince.getOrDefault(region, -1L);
  }

  /** The System.nanoTime at which {@code region}, dark before, was last lit again; -1 if it never was. */
  public long litAgain(String region) {
    return litAgain.getOrDefault(region, -1L);
  }

  /**
   * A link from {@code region} to an endpoint of the control plane's region ({@code host:port}:
   * Temporal's frontend, the API server), for a watcher or worker placed in {@code region}; dark
   * while either end is. {@link #unlink} removes it again.
   */
  public TcpProxy linkToControlPlane(String region, String what, String host, int port) {
    TcpProxy proxy = TcpProxy.start(host, port);
    if (dark.contains(region) || dark.contains(controlPlaneRegion)) {
      proxy.drop();
    }
    links.add(new Link(region, controlPlaneRegion, what, proxy));
    return proxy;
  }

  /** Closes a link {@link #linkToControlPlane} made and forgets it. */
  public void unlink(TcpProxy proxy) {
    links.removeIf(l -> l.proxy() == proxy);
    proxy.close();
  }

  /**
   * Sends the sidecar of {@code site} to the watcher at {@code watcher} in {@code region} (a
   * {@link ControlPlane.Replica} placed there) instead of the stack's, as a Service in front of
   * every watcher replica does when that replica is the one it reaches: the sidecar keeps its
   * URL, the link behind it changes its far end ({@link TcpProxy#retarget}) and its regions, so
   * that it is cut only when one of them goes dark. {@link #routeWatcherHome} undoes it.
   */
  public void routeWatcher(String site, String region, InetSocketAddress watcher) {
    route(site, region, "sidecar " + site + " -> watcher in " + region, watcher.getHostString(), watcher.getPort());
  }

  /** Sends the sidecar of {@code site} to the stack's own watcher again, in the control plane's region. */
  public void routeWatcherHome(String site) {
    route(site, controlPlaneRegion, "sidecar " + site + " -> " + SidecarMesh.CONTROL_PLANE, FailoverStack.LOOPBACK,
        stack.controlPlane().watcherPort());
  }

  private void route(String site, String region, String what, String host, int port) {
    TcpProxy proxy = stack.sidecars().orElseThrow(() -> new IllegalStateException("the stack runs no sidecars"))
        .watcherLink(site);
    links.replaceAll(l -> l.proxy() == proxy ? new Link(regionOf(site), region, what, proxy) : l);
    proxy.retarget(host, port);
    boolean cut = !region.equals(regionOf(site)) && (dark.contains(region) || dark.contains(regionOf(site)));
    if (cut) {
      proxy.drop();
    } else if (proxy.mode() != TcpProxy.Mode.FORWARD) {
      proxy.heal();
    }
  }

  /** Forwards again on every link of {@code region} whose other end is not dark. */
  public void restore(String region) {
    if (dark.remove(region)) {
      litAgain.put(region, System.nanoTime());
    }
    for (Link l : links) {
      boolean touches = l.fromRegion().equals(region) || l.toRegion().equals(region);
      if (touches && !dark.contains(l.fromRegion()) && !dark.contains(l.toRegion())) {
        l.proxy().heal();
      }
    }
  }

  public boolean isDark(String region) {
    return dark.contains(region);
  }

  /** Every link with exactly one end in {@code region}. */
  private List<TcpProxy> crossing(String region) {
    List<TcpProxy> out = new ArrayList<>();
    for (Link l : links) {
      if (l.fromRegion().equals(region) != l.toRegion().equals(region)) {
        out.add(l.proxy());
      }
    }
    return out;
  }

  /**
   * The JDBC URL a client in {@code fromRegion} reaches {@code site}'s server with: direct inside
   * its region, through the pair's proxy from elsewhere (dark if either region is).
   */
  public String jdbcUrl(String fromRegion, String site) {
    DatabaseServer server = stack.server(site);
    if (fromRegion.equals(regionOf(site))) {
      return server.jdbcUrl();
    }
    TcpProxy proxy = serverLink(fromRegion, site, "client in " + fromRegion + " -> " + site);
    return server.jdbcUrl().replace(server.host() + ":" + server.port(), proxy.host() + ":" + proxy.port());
  }

  /** As {@link #jdbcUrl} to the site the primary Service routes to now; throws while none is. */
  public String routedJdbcUrl(String fromRegion) {
    String site = stack.api().routedSite().orElseThrow(() -> new IllegalStateException("no pod is labelled primary"));
    return jdbcUrl(fromRegion, site);
  }

  /** Makes {@code replica} replicate from {@code source} through the link between their regions. */
  public void replicate(String replica, String source) {
    DatabaseServer server = stack.server(source);
    String[] hostPort = hostPort(replica, source);
    stack.server(replica).startReplicationFrom(hostPort[0], Integer.parseInt(hostPort[1]));
    stack.server(replica).awaitCaughtUpWith(server, Duration.ofSeconds(30));
  }

  /**
   * Every server that replicates from the active site, except through its own region's link (the
   * product re-points replicas through the spec's endpoint, the control plane's link), is moved to
   * its region's link.
   */
  public void rehomeReplication() {
    String active = stack.api().resource().getStatus().activeSite();
    stack.servers().forEach((site, server) -> {
      if (site.equals(active)) {
        return;
      }
      var status = server.replicaStatus();
      String[] expected = hostPort(site, active);
      if (!status.running() || status.sourcePort() != Integer.parseInt(expected[1])) {
        replicate(site, active);
      }
    });
  }

  private String[] hostPort(String replica, String source) {
    DatabaseServer server = stack.server(source);
    if (regionOf(replica).equals(regionOf(source))) {
      return new String[] {server.host(), Integer.toString(server.port())};
    }
    TcpProxy proxy = serverLink(regionOf(replica), source, "replication " + source + " -> " + replica);
    return new String[] {proxy.host(), Integer.toString(proxy.port())};
  }

  private TcpProxy serverLink(String fromRegion, String site, String what) {
    return toServer.computeIfAbsent(fromRegion + "->" + site, k -> {
      DatabaseServer server = stack.server(site);
      TcpProxy proxy = TcpProxy.start(server.host(), server.port());
      if (dark.contains(fromRegion) || dark.contains(regionOf(site))) {
        proxy.drop();
      }
      links.add(new Link(fromRegion, regionOf(site), what, proxy));
      return proxy;
    });
  }

  /**
   * The control plane reaches every server through its region's link: the spec's endpoints point
   * at those proxies, as the worker's activities and the watcher's polls take them from the spec.
   */
  private void proxyControlPlane() {
    Map<String, TcpProxy> proxies = new LinkedHashMap<>();
    stack.servers().forEach((site, server) -> {
      TcpProxy proxy = TcpProxy.start(server.host(), server.port());
      proxies.put(site, proxy);
      links.add(new Link(controlPlaneRegion, regionOf(site), "control plane -> " + site, proxy));
    });
    stack.api().editSpec(spec -> GroupSpecs.withSites(spec, spec.sites().stream().map(s -> GroupSpecs.withEndpoints(s,
        new SiteSpec.Endpoint(proxies.get(s.name()).host(), proxies.get(s.name()).port()), s.sidecar(), s.dragonfly()))
        .toList()));
    // The monitor restarts its polls on the changed spec.
    Playground.sleep(2_000);
  }

  /** Every link, for a test to inspect. */
  public List<Link> links() {
    return List.copyOf(links);
  }

  /** Closes the proxies this network made (the sidecars' belong to their mesh). */
  @Override
  public void close() {
    for (Link l : links) {
      if (!l.what().startsWith("sidecar ")) {
        l.proxy().close();
      }
    }
  }
}
