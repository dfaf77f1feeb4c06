package io.shipstream.failover.dev;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.DragonflyPlannedFailoverSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.DragonflySpec;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.testsupport.RedisServer;
import io.shipstream.failover.testsupport.TcpProxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A session store for the stack: a real redis-server per site, the first site's the master and
 * the other one its replica, one store pod per site in the mock cluster carrying the labels the
 * operator finds store pods by, and {@code spec.dragonfly} enabled with flavor redis. A test can
 * cut a replica's link the way a partition between the sites would.
 */
public final class RedisPair implements AutoCloseable {
  private final KubernetesClient kube;
  private final GroupRef group;
  private final Map<String, RedisServer> servers = new LinkedHashMap<>();
  private final Map<String, TcpProxy> links = new LinkedHashMap<>();

  private RedisPair(KubernetesClient kube, GroupRef group) {
    this.kube = kube;
    this.group = group;
  }

  /** Starts the pair for the two sites (the first is the master) and enables the store in the spec. */
  static RedisPair start(Path dir, KubernetesClient kube, GroupRef group, String masterSite, String replicaSite,
      String maxSyncWait, String onSyncTimeout) {
    RedisPair pair = new RedisPair(kube, group);
    try {
      RedisServer master = RedisServer.start(dir.resolve("redis"));
      pair.servers.put(masterSite, master);
      pair.servers.put(replicaSite, RedisServer.start(dir.resolve("redis"), master));
      pair.awaitInSync(replicaSite, master.port());
      pair.createPods(masterSite, replicaSite);
      pair.configure(maxSyncWait, onSyncTimeout);
      return pair;
    } catch (RuntimeException e) {
      pair.close();
      throw e;
    }
  }

  private void createPods(String masterSite, String replicaSite) {
    for (String site : List.of(masterSite, replicaSite)) {
      Map<String, String> labels = new LinkedHashMap<>();
      labels.put("app", "redis");
      labels.put("shipstream.io/group", group.name());
      labels.put("shipstream.io/store-site", site);
      labels.put("shipstream.io/store-role", site.equals(masterSite) ? "master" : "replica");
      labels.put("shipstream.io/traffic", site.equals(masterSite) ? "active" : "standby");
      kube.pods().inNamespace(group.namespace()).resource(new io.fabric8.kubernetes.api.model.PodBuilder()
          .withNewMetadata().withName("redis-" + site + "-0").withNamespace(group.namespace()).withLabels(labels)
          .endMetadata()
          .withNewSpec().addNewContainer().withName("redis").withImage("redis:7").endContainer().endSpec()
          .build()).create();
    }
  }

  /** Sets the sites' store endpoints and spec.dragonfly {enabled, redis, maxSyncWait, onSyncTimeout}. */
  public void configure(String maxSyncWait, String onSyncTimeout) {
    GroupApi.editSpec(kube, group, spec -> {
      List<SiteSpec> sites = new ArrayList<>();
      for (SiteSpec s : spec.sites()) {
        RedisServer store = servers.get(s.name());
        sites.add(store == null ? s
            : GroupSpecs.withEndpoints(s, s.mysql(), s.sidecar(), new SiteSpec.Endpoint(store.host(), store.port())));
      }
      return GroupSpecs.withDragonfly(GroupSpecs.withSites(spec, sites),
          new DragonflySpec(true, "redis", new DragonflyPlannedFailoverSpec(maxSyncWait, onSyncTimeout)));
    });
  }

  public RedisServer server(String site) {
    return servers.get(site);
  }

  /** The site whose server says role:master; empty when none or more than one does. */
  public Optional<String> masterSite() {
    List<String> masters = servers.entrySet().stream()
        .filter(e -> e.getValue().isRunning() && e.getValue().command("INFO", "replication").contains("role:master"))
        .map(Map.Entry::getKey).toList();
    return masters.size() == 1 ? Optional.of(masters.get(0)) : Optional.empty();
  }

  /** Whether the site's server is a replica of the other site's server with its link up. */
  public boolean replicates(String site, String fromSite) {
    String info = servers.get(site).command("INFO", "replication");
    return info.contains("role:slave") && info.contains("master_link_status:up")
        && info.contains("master_port:" + servers.get(fromSite).port() + "\r");
  }

  /**
   * Cuts the replica's replication link as a partition would: the replica is re-pointed at its
   * master through a {@link TcpProxy}, and once it is in sync the proxy drops the link and then
   * swallows every reconnection attempt. The replica stays a replica that never sees another
   * write, which is what the sync timeout is for. {@link #close} heals nothing: it ends it all.
   */
  public void cutReplicationLink(String replicaSite, String masterSite) {
    RedisServer master = servers.get(masterSite);
    TcpProxy link = TcpProxy.start(master.host(), master.port());
    TcpProxy previous = links.put(replicaSite, link);
    if (previous != null) {
      previous.close();
    }
    servers.get(replicaSite).command("REPLICAOF", link.host(), Integer.toString(link.port()));
    awaitInSync(replicaSite, link.port());
    link.blackhole();
  }

  /** The store pods' labels of a site, as {@code kubectl get pod --show-labels} shows them. */
  public Map<String, String> podLabels(String site) {
    return kube.pods().inNamespace(group.namespace()).withName("redis-" + site + "-0").get().getMetadata().getLabels();
  }

  private void awaitInSync(String replicaSite, int masterPort) {
    long until = System.nanoTime() + 10_000_000_000L;
    while (true) {
      String info = servers.get(replicaSite).command("INFO", "replication");
      if (info.contains("master_link_status:up") && info.contains("master_port:" + masterPort + "\r")) {
        return;
      }
      if (System.nanoTime() > until) {
        throw new IllegalStateException("the " + replicaSite + " store did not sync with port " + masterPort
            + " within 10 s");
      }
      Playground.sleep(20);
    }
  }

  @Override
  public void close() {
    links.values().forEach(TcpProxy::close);
    servers.values().forEach(RedisServer::close);
  }
}
