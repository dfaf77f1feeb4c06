package io.shipstream.failover.watcher;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The watcher process: informers on {@code MysqlFailoverGroup} that turn annotations into
 * failover workflows. Wired by hand in {@link #start}, so tests and the playground run the very
 * same code with their own clients.
 */
public final class WatcherApp implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WatcherApp.class);
  private static final long RESYNC_MILLIS = 60_000;

  private final List<SharedIndexInformer<MysqlFailoverGroup>> informers;
  private final PlannedFailoverRequests requests;

  private WatcherApp(List<SharedIndexInformer<MysqlFailoverGroup>> informers, PlannedFailoverRequests requests) {
    this.informers = informers;
    this.requests = requests;
  }

  public static WatcherApp start(WatcherConfig config, KubernetesClient kube, WorkflowClient temporal) {
    FailoverStarter starter = new FailoverStarter(temporal, config.taskQueue(), config.searchAttributes());
    RequestRejections rejections = new RequestRejections(kube, Clock.systemUTC());
    List<SharedIndexInformer<MysqlFailoverGroup>> informers = new ArrayList<>();
    var resources = kube.resources(MysqlFailoverGroup.class);
    // The lookup reads the informers' caches, which are filled before the first event is handled.
    PlannedFailoverRequests requests = new PlannedFailoverRequests(starter, rejections,
        ref -> cached(informers, ref));
    if (config.watchNamespaces().isEmpty()) {
      informers.add(resources.inAnyNamespace().runnableInformer(RESYNC_MILLIS));
    } else {
      for (String ns : config.watchNamespaces()) {
        informers.add(resources.inNamespace(ns).runnableInformer(RESYNC_MILLIS));
      }
    }
    for (var informer : informers) {
      informer.addEventHandler(requests);
      informer.start().toCompletableFuture().join();
    }
    log.info("watching MysqlFailoverGroups in {}", config.watchNamespaces().isEmpty() ? "all namespaces"
        : config.watchNamespaces());
    return new WatcherApp(informers, requests);
  }

  /** Whether every informer has synced its cache: the readiness of the watcher. */
  public boolean ready() {
    return informers.stream().allMatch(SharedIndexInformer::hasSynced);
  }

  /** The cached resource, for the HTTP endpoints. */
  public Optional<MysqlFailoverGroup> group(GroupRef ref) {
    return cached(informers, ref);
  }

  private static Optional<MysqlFailoverGroup> cached(List<SharedIndexInformer<MysqlFailoverGroup>> informers,
      GroupRef ref) {
    for (var informer : informers) {
      MysqlFailoverGroup g = informer.getStore().getByKey(ref.namespace() + "/" + ref.name());
      if (g != null) {
        return Optional.of(g);
      }
    }
    return Optional.empty();
  }

  @Override
  public void close() {
    informers.forEach(SharedIndexInformer::stop);
    requests.close();
  }

  public static void main(String[] args) throws InterruptedException {
    WatcherConfig config = WatcherConfig.from(System.getenv(), args);
    KubernetesClient kube = new KubernetesClientBuilder().build();
    WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
        .setTarget(config.temporalAddress()).build());
    WorkflowClient temporal = WorkflowClient.newInstance(stubs, WorkflowClientOptions.newBuilder()
        .setNamespace(config.temporalNamespace()).build());
    WatcherApp app = start(config, kube, temporal);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      app.close();
      stubs.shutdown();
      kube.close();
    }, "watcher-shutdown"));
    Thread.currentThread().join();
  }
}
