package io.shipstream.failover.watcher;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The informers on {@code MysqlFailoverGroup}: one for all namespaces, or one per watched
 * namespace. Every replica runs them, leader or not, because every replica answers
 * {@code /active-site} from this cache.
 */
final class GroupCache implements AutoCloseable {
  private static final long RESYNC_MILLIS = 60_000;

  private final List<SharedIndexInformer<MysqlFailoverGroup>> informers;

  private GroupCache(List<SharedIndexInformer<MysqlFailoverGroup>> informers) {
    this.informers = informers;
  }

  /** Starts the informers and returns once each has listed its groups. */
  static GroupCache start(KubernetesClient kube, List<String> namespaces) {
    var resources = kube.resources(MysqlFailoverGroup.class);
    List<SharedIndexInformer<MysqlFailoverGroup>> informers = new ArrayList<>();
    if (namespaces.isEmpty()) {
      informers.add(resources.inAnyNamespace().runnableInformer(RESYNC_MILLIS));
    } else {
      for (String ns : namespaces) {
        informers.add(resources.inNamespace(ns).runnableInformer(RESYNC_MILLIS));
      }
    }
    GroupCache cache = new GroupCache(informers);
    try {
      for (var informer : informers) {
        informer.start().toCompletableFuture().join();
      }
    } catch (RuntimeException e) {
      cache.close();
      throw e;
    }
    return cache;
  }

  /** Whether every informer has synced: the readiness of the watcher. */
  boolean synced() {
    return informers.stream().allMatch(SharedIndexInformer::hasSynced);
  }

  Optional<MysqlFailoverGroup> get(GroupRef ref) {
    for (var informer : informers) {
      MysqlFailoverGroup g = informer.getStore().getByKey(ref.namespace() + "/" + ref.name());
      if (g != null) {
        return Optional.of(g);
      }
    }
    return Optional.empty();
  }

  /** Adds a handler; a running informer first hands it every cached group as added. */
  void addHandler(ResourceEventHandler<MysqlFailoverGroup> handler) {
    informers.forEach(i -> i.addEventHandler(handler));
  }

  void removeHandler(ResourceEventHandler<MysqlFailoverGroup> handler) {
    informers.forEach(i -> i.removeEventHandler(handler));
  }

  @Override
  public void close() {
    informers.forEach(SharedIndexInformer::stop);
  }
}
