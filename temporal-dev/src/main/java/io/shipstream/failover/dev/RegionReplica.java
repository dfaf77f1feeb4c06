package io.shipstream.failover.dev;

import io.shipstream.failover.testsupport.TcpProxy;
import java.net.URI;
import java.util.List;

/**
 * A watcher and a worker of the control plane ({@link ControlPlane.Replica}), or a watcher alone,
 * placed in a region of a {@link RegionStack}: their links to Temporal and to the API server go
 * through that region's links to the control plane's region, so darkening the region cuts them
 * off while they keep running. Closing it stops the replica and removes its links, so that the
 * next drill's darkening finds none of them.
 *
 * @param attempts the activity attempts its worker began (none without a worker)
 */
record RegionReplica(ControlPlane.Replica replica, ActivityAttempts attempts, Runnable unlink)
    implements AutoCloseable {
  /**
   * Starts the replica in {@code region} as {@code region}'s, with a worker (recording the stack's
   * kill timeline and its own attempts) when {@code worker}; a watcher alone otherwise.
   */
  static RegionReplica place(RegionStack regions, String region, boolean worker) {
    FailoverStack stack = regions.stack();
    RegionNetwork network = regions.network();
    ControlPlane control = stack.controlPlane();
    URI api = URI.create(stack.api().client().getConfiguration().getMasterUrl());
    String[] temporal = control.temporalTarget().split(":");
    String who = (worker ? "watcher and worker in " : "watcher in ") + region;
    TcpProxy apiLink = network.linkToControlPlane(region, who + " -> API server", api.getHost(), api.getPort());
    TcpProxy temporalLink = network.linkToControlPlane(region, who + " -> Temporal", temporal[0],
        Integer.parseInt(temporal[1]));
    ActivityAttempts attempts = new ActivityAttempts();
    try {
      ControlPlane.Replica replica = control.startReplica(region, temporalLink.host() + ":" + temporalLink.port(),
          apiLink.httpUrl(), worker ? List.of(regions.timeline(), attempts) : null);
      return new RegionReplica(replica, attempts, () -> {
        network.unlink(apiLink);
        network.unlink(temporalLink);
      });
    } catch (RuntimeException e) {
      network.unlink(apiLink);
      network.unlink(temporalLink);
      throw e;
    }
  }

  @Override
  public void close() {
    replica.close();
    unlink.run();
  }
}
