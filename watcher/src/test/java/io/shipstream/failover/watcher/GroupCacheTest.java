package io.shipstream.failover.watcher;

import static io.shipstream.failover.watcher.Http.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.testsupport.TcpProxy;
import io.shipstream.failover.watcher.groups.GroupChanges;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The group cache against the mock API server: one object it cannot read neither stops it nor
 * hides the other groups, and it is current again after its watch was cut or its informer stopped.
 * Before the untyped informer, the first test's malformed object stopped the typed informer for
 * good ({@code watch failed for shipstream.io/v1alpha1/mysqlfailovergroups, will stop}).
 */
class GroupCacheTest {
  private static final GroupRef ORDERS = new GroupRef(MockCluster.NAMESPACE, "orders");
  private static final GroupRef BAD = new GroupRef(MockCluster.NAMESPACE, "bad");

  private final MockCluster cluster = MockCluster.start();
  private final Recording changes = new Recording();
  private GroupCache cache;
  private TcpProxy proxy;
  private KubernetesClient proxied;

  @AfterEach
  void close() {
    if (cache != null) {
      cache.close();
    }
    if (proxied != null) {
      proxied.close();
    }
    if (proxy != null) {
      proxy.close();
    }
    cluster.close();
  }

  @Test
  void aMalformedGroupIsReadAsInvalidAndEveryOtherGroupIsStillWatched() throws Exception {
    createOrders();
    cache = GroupCache.start(cluster.client(), List.of());
    cache.addHandler(changes);

    createRaw(cluster.client(),
        """
        {"apiVersion":"shipstream.io/v1alpha1","kind":"MysqlFailoverGroup","metadata":{"name":"bad","namespace":"shop"},
         "spec":{"sites":[{"name":"a","mysql":{"host":"h","port":3306}}],"frobnicate":true,"failureThreshold":"three"}}""");
    await("the malformed group is in the cache", Duration.ofSeconds(10), () -> cache.get(BAD).isPresent());
    cluster.setStatus(ORDERS, MysqlFailoverGroupStatus.empty().withActiveSite("iad"));

    await("a change of another group after it is seen", Duration.ofSeconds(10),
        () -> cache.get(ORDERS).map(g -> g.getStatus() != null && "iad".equals(g.getStatus().activeSite()))
            .orElse(false));
    assertThat(cache.watching()).isTrue();
    assertThat(changes.changed).contains(ORDERS, BAD);
    MysqlFailoverGroup bad = cache.get(BAD).orElseThrow();
    assertThat(bad.getSpec()).isNull();
    assertThat(bad.statusUnreadable()).isFalse();
    assertThat(bad.unreadable()).singleElement().asString()
        .startsWith("spec.failureThreshold: cannot be read (").contains("\"three\"");
    assertThat(cache.get(ORDERS).orElseThrow().unreadable()).isEmpty();
  }

  @Test
  void anUnknownFieldAloneIsIgnored() throws Exception {
    cache = GroupCache.start(cluster.client(), List.of());
    createRaw(cluster.client(), """
        {"apiVersion":"shipstream.io/v1alpha1","kind":"MysqlFailoverGroup","metadata":{"name":"bad","namespace":"shop"},
         "spec":{"sites":[{"name":"a","mysql":{"host":"h","port":3306},"weight":3}],"frobnicate":true}}""");
    await("the group is in the cache", Duration.ofSeconds(10), () -> cache.get(BAD).isPresent());

    MysqlFailoverGroup read = cache.get(BAD).orElseThrow();
    assertThat(read.unreadable()).isEmpty();
    assertThat(read.getSpec().sites()).singleElement().satisfies(s -> assertThat(s.mysql().port()).isEqualTo(3306));
  }

  @Test
  void aStatusItCannotReadIsMarkedSoAndLeftOut() throws Exception {
    cache = GroupCache.start(cluster.client(), List.of());
    createRaw(cluster.client(), """
        {"apiVersion":"shipstream.io/v1alpha1","kind":"MysqlFailoverGroup","metadata":{"name":"bad","namespace":"shop"},
         "spec":{"sites":[{"name":"a"}]}}""");
    // Through the status subresource, as a real server only accepts it: a newer writer's status.
    cluster.client().genericKubernetesResources(ResourceDefinitionContext.fromResourceType(MysqlFailoverGroup.class))
        .inNamespace(MockCluster.NAMESPACE).withName("bad").subresource("status").patch(
            io.fabric8.kubernetes.client.dsl.base.PatchContext.of(io.fabric8.kubernetes.client.dsl.base.PatchType.JSON),
            "[{\"op\":\"add\",\"path\":\"/status\",\"value\":{\"activeSite\":\"a\",\"sites\":\"all of them\"}}]");
    await("the status is in the cache", Duration.ofSeconds(10),
        () -> cache.get(BAD).map(MysqlFailoverGroup::statusUnreadable).orElse(false));

    MysqlFailoverGroup read = cache.get(BAD).orElseThrow();
    assertThat(read.statusUnreadable()).isTrue();
    assertThat(read.getStatus()).isNull();
    assertThat(read.getSpec()).isNotNull();
    assertThat(read.unreadable()).singleElement().asString().startsWith("status.sites: cannot be read (");
  }

  @Test
  void whileItsWatchIsCutItIsNotCurrentAndAfterwardsItSeesWhatChangedMeanwhile() throws Exception {
    createOrders();
    cache = proxiedCache();
    cache.addHandler(changes);
    assertThat(cache.watching()).isTrue();

    proxy.refuse();
    await("not watching while the API server is out of reach", Duration.ofSeconds(10), () -> !cache.watching());
    cluster.setStatus(ORDERS, MysqlFailoverGroupStatus.empty().withActiveSite("pdx"));
    changes.changed.clear();
    Thread.sleep(500);
    assertThat(cache.watching()).isFalse();
    proxy.heal();

    await("watching again", Duration.ofSeconds(30), cache::watching);
    await("the change made meanwhile is seen and handed on", Duration.ofSeconds(10),
        () -> changes.changed.contains(ORDERS) && cache.get(ORDERS).map(MysqlFailoverGroup::getStatus)
            .map(MysqlFailoverGroupStatus::activeSite).filter("pdx"::equals).isPresent());
  }

  /**
   * An informer does not notice a watch whose packets are dropped (a partition): it goes on saying
   * it watches while the statuses change without it. The list that checks the cache does not
   * answer either, so within the limit the cache is no longer current, and once the API server is
   * back it is confirmed again.
   */
  @Test
  void aCacheCutOffSilentlyIsStaleWithinTheLimitThoughItsInformerStillSaysItWatches() throws Exception {
    createOrders();
    cache = proxiedCache();
    await("confirmed against the API server", Duration.ofSeconds(10),
        () -> cache.staleness().compareTo(GroupCache.CHECK_INTERVAL.multipliedBy(4)) < 0);

    proxy.drop();
    cluster.setStatus(ORDERS, MysqlFailoverGroupStatus.empty().withActiveSite("pdx"));
    await("stale past the limit", GroupCache.STALE_LIMIT.plusSeconds(10), () -> !cache.watching());
    assertThat(cache.staleness()).isGreaterThan(GroupCache.STALE_LIMIT);
    assertThat(cache.informers()).as("the informers have not noticed").allMatch(i -> i.isWatching());
    assertThat(cache.get(ORDERS).map(MysqlFailoverGroup::getStatus).map(MysqlFailoverGroupStatus::activeSite))
        .as("what it would still answer").isNotEqualTo(Optional.of("pdx"));

    proxy.heal();
    await("current again", Duration.ofSeconds(40), cache::watching);
    await("with the change", Duration.ofSeconds(10), () -> cache.get(ORDERS).map(MysqlFailoverGroup::getStatus)
        .map(MysqlFailoverGroupStatus::activeSite).filter("pdx"::equals).isPresent());
  }

  /** Status writes one after another do not keep the check from confirming the cache. */
  @Test
  void aCacheThatFollowsAStreamOfWritesStaysConfirmed() throws Exception {
    createOrders();
    cache = GroupCache.start(cluster.client(), List.of());
    long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
    Duration worst = Duration.ZERO;
    int i = 0;
    while (System.nanoTime() < end) {
      cluster.setStatus(ORDERS, MysqlFailoverGroupStatus.empty().withActiveSite(i++ % 2 == 0 ? "pdx" : "iad"));
      Duration stale = cache.staleness();
      worst = stale.compareTo(worst) > 0 ? stale : worst;
      assertThat(cache.watching()).isTrue();
      Thread.sleep(20);
    }
    assertThat(worst).as("after %d writes", i).isLessThan(GroupCache.STALE_LIMIT);
  }

  @Test
  void aResourceVersionIsAtLeastAnotherAsANumberOrWhenEqual() {
    assertThat(GroupCache.atLeast("120", "120")).isTrue();
    assertThat(GroupCache.atLeast("121", "120")).isTrue();
    assertThat(GroupCache.atLeast("99", "120")).isFalse();
    assertThat(GroupCache.atLeast("abc", "abc")).isTrue();
    assertThat(GroupCache.atLeast("abd", "abc")).as("opaque and different: not known to be later").isFalse();
    assertThat(GroupCache.atLeast(null, "1")).isFalse();
  }

  @Test
  void aStoppedInformerIsReplacedAndTheNewOneCatchesUp() throws Exception {
    createOrders();
    java.util.concurrent.atomic.AtomicInteger restarts = new java.util.concurrent.atomic.AtomicInteger();
    cache = GroupCache.start(cluster.client(), List.of(), restarts::incrementAndGet);
    cache.addHandler(changes);
    var first = cache.informers().get(0);

    first.stop();
    cluster.setStatus(ORDERS, MysqlFailoverGroupStatus.empty().withActiveSite("pdx"));
    changes.changed.clear();
    assertThat(cache.watching()).isFalse();

    await("a new informer watches", Duration.ofSeconds(10), cache::watching);
    assertThat(cache.informers().get(0)).isNotSameAs(first);
    assertThat(restarts.get()).isEqualTo(1);
    await("the change made meanwhile is seen and handed on", Duration.ofSeconds(10),
        () -> changes.changed.contains(ORDERS) && cache.get(ORDERS).map(MysqlFailoverGroup::getStatus)
            .map(MysqlFailoverGroupStatus::activeSite).filter("pdx"::equals).isPresent());
  }

  /** A cache whose every request to the API server goes through {@link #proxy}, to be cut. */
  private GroupCache proxiedCache() {
    proxy = TcpProxy.start("127.0.0.1", java.net.URI.create(cluster.client().getConfiguration().getMasterUrl())
        .getPort());
    proxied = new KubernetesClientBuilder().withConfig(new ConfigBuilder(cluster.client().getConfiguration())
        .withMasterUrl(proxy.httpUrl().toString()).build()).build();
    return GroupCache.start(proxied, List.of());
  }

  private void createOrders() {
    cluster.createGroup("orders", List.of(MockCluster.site("orders", "iad", "10.0.1.10"),
        MockCluster.site("orders", "pdx", "10.0.2.10")));
  }

  /** Created as kubectl create --validate=false would: the mock, like that, takes any JSON. */
  private static void createRaw(KubernetesClient client, String json) {
    var context = ResourceDefinitionContext.fromResourceType(MysqlFailoverGroup.class);
    client.genericKubernetesResources(context).inNamespace(MockCluster.NAMESPACE)
        .resource(client.getKubernetesSerialization().unmarshal(json, GenericKubernetesResource.class)).create();
  }

  private static final class Recording implements GroupChanges {
    final Set<GroupRef> changed = ConcurrentHashMap.newKeySet();
    final Set<GroupRef> deleted = ConcurrentHashMap.newKeySet();

    @Override
    public void changed(GroupRef ref) {
      changed.add(ref);
    }

    @Override
    public void deleted(GroupRef ref) {
      deleted.add(ref);
    }
  }
}
