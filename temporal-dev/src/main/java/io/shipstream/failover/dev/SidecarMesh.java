package io.shipstream.failover.dev;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.sidecar.FencingDecision.Boot;
import io.shipstream.failover.sidecar.Sidecar;
import io.shipstream.failover.sidecar.SidecarConfig;
import io.shipstream.failover.sidecar.SidecarStatus;
import io.shipstream.failover.testsupport.FreePorts;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.MariaDbServer;
import io.shipstream.failover.testsupport.TcpProxy;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One sidecar per site, in-process as the worker and the watcher are, each next to its site's
 * {@code mariadbd}. Every link a sidecar has (to the watcher's {@code /active-site}, to each peer's
 * {@code /peer/active-site}) goes through a loopback {@link TcpProxy} of its own, one per direction,
 * so {@link #partition} can cut one site off the watcher and every peer, both ways, as a network
 * partition would, without touching any process.
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

  private final Knobs knobs;
  private final Map<String, Sidecar> sidecars = new LinkedHashMap<>();
  /** Every directed link by (from, to); the watcher's end is named {@value #WATCHER}. */
  private final Map<String, Map<String, TcpProxy>> links = new LinkedHashMap<>();
  /**
   * The control plane's way to each sidecar (the worker's POST /tick and GET /status): the URL the
   * group's spec carries, so that {@link #partition} cuts it too.
   */
  private final Map<String, TcpProxy> controlLinks = new LinkedHashMap<>();

  private SidecarMesh(Knobs knobs) {
    this.knobs = knobs;
  }

  /**
   * Starts a sidecar for each server, asking the watcher on {@code watcherPort} with the shared
   * {@code token}, and returns once every one has booted and heard from the watcher and every peer.
   */
  static SidecarMesh start(Map<String, DatabaseServer> servers, GroupRef group, int watcherPort, String token,
      Knobs knobs) {
    SidecarMesh mesh = new SidecarMesh(knobs);
    try {
      Map<String, Integer> ports = new LinkedHashMap<>();
      servers.keySet().forEach(site -> ports.put(site, FreePorts.next()));
      for (String site : servers.keySet()) {
        Map<String, TcpProxy> out = new LinkedHashMap<>();
        out.put(WATCHER, TcpProxy.start(MariaDbServer.HOST, watcherPort));
        ports.forEach((peer, port) -> {
          if (!peer.equals(site)) {
            out.put(peer, TcpProxy.start(MariaDbServer.HOST, port));
          }
        });
        mesh.links.put(site, out);
      }
      servers.forEach((site, server) -> {
        Map<String, TcpProxy> out = mesh.links.get(site);
        List<URI> peers = new ArrayList<>();
        out.forEach((to, proxy) -> {
          if (!to.equals(WATCHER)) {
            peers.add(url(proxy));
          }
        });
        SidecarConfig config = new SidecarConfig(site, group.name(), group.namespace(), server.host(), server.port(),
            MariaDbServer.ADMIN.user(), MariaDbServer.ADMIN.password(), url(out.get(WATCHER)), peers,
            knobs.leaseTimeout(), knobs.peerCheckInterval(), MariaDbServer.HOST, ports.get(site),
            SharedToken.of(token), Set.of(MariaDbServer.REPLICATION.user()));
        mesh.sidecars.put(site, Sidecar.start(config));
      });
      ports.forEach((site, port) -> mesh.controlLinks.put(site, TcpProxy.start(MariaDbServer.HOST, port)));
      mesh.awaitSteady(Duration.ofSeconds(30));
      return mesh;
    } catch (RuntimeException e) {
      mesh.close();
      throw e;
    }
  }

  public Knobs knobs() {
    return knobs;
  }

  public SidecarStatus status(String site) {
    return sidecar(site).status();
  }

  /** The port the site's sidecar serves /health, /status and /peer/* on. */
  public int port(String site) {
    return sidecar(site).port();
  }

  /** The site's sidecar as the control plane reaches it: spec.sites[].sidecar.url. */
  public String controlUrl(String site) {
    sidecar(site);
    return url(controlLinks.get(site)).toString();
  }

  /**
   * Cuts the site's sidecar off the watcher, every peer and the worker, both ways: packets are dropped (the
   * connections hang until the callers' timeouts), as behind a real partition.
   */
  public void partition(String site) {
    sidecar(site);
    linksOf(site).forEach(TcpProxy::blackhole);
  }

  /** Restores every link of the site's sidecar. */
  public void heal(String site) {
    sidecar(site);
    linksOf(site).forEach(TcpProxy::heal);
  }

  /** Booted, and the last tick heard from the watcher and every peer. */
  public boolean steady(String site) {
    SidecarStatus s = status(site);
    return s.boot() == Boot.DONE && s.lastWatcherContact().isPresent()
        && s.peers().stream().allMatch(p -> p.lastContact().isPresent() && p.problem() == null);
  }

  private void awaitSteady(Duration timeout) {
    long until = System.nanoTime() + timeout.toNanos();
    // Steady, and running with the spec's timing, learned from the watcher, so that a test's
    // partition is fenced within the lease the emergency failover waits on.
    while (!sidecars.keySet().stream().allMatch(site -> steady(site)
        && status(site).leaseTimeout().equals(knobs.leaseTimeout())
        && status(site).peerCheckInterval().equals(knobs.peerCheckInterval()))) {
      if (System.nanoTime() > until) {
        throw new IllegalStateException("the sidecars did not all hear from the watcher and their peers within "
            + timeout + ": " + sidecars.keySet().stream().map(s -> status(s).toJson()).toList());
      }
      Playground.sleep(20);
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
    if (sidecar == null) {
      throw new IllegalArgumentException("no sidecar for site '" + site + "'");
    }
    return sidecar;
  }

  private static URI url(TcpProxy proxy) {
    return URI.create("http://" + proxy.host() + ":" + proxy.port());
  }

  /** Stops the sidecars (MySQL is left as it is), then the links. */
  @Override
  public void close() {
    sidecars.values().forEach(Sidecar::close);
    links.values().forEach(out -> out.values().forEach(TcpProxy::close));
    controlLinks.values().forEach(TcpProxy::close);
  }
}
