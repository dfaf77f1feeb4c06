package io.shipstream.failover.watcher;

import static io.shipstream.failover.watcher.Http.get;
import static io.shipstream.failover.watcher.Http.sample;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.testsupport.TcpProxy;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two watcher replicas against one mock API server and one Temporal: only the holder of the
 * Lease turns annotations into workflows, and when it shuts down the other takes over and handles
 * the next request. Lease timings are a few hundred milliseconds instead of seconds.
 */
class WatcherLeaderElectionTest {
  private static final String LEASE_NAMESPACE = "failover-system";
  private static final GroupRef ORDERS = new GroupRef(MockCluster.NAMESPACE, "orders");
  private static final GroupRef BILLING = new GroupRef(MockCluster.NAMESPACE, "billing");
  private static final String STARTED = "bloodraven_planned_failover_requests_total{outcome=\"started\"}";
  private static final String WAITING = "bloodraven_planned_failover_requests_total{outcome=\"already_running\"}";
  private static final Duration TAKEOVER = Duration.ofSeconds(10);

  @RegisterExtension
  final WatcherRig rig = new WatcherRig(RecordingPlannedFailover.class);
  private final MockCluster cluster = rig.cluster;
  private WatcherApp first;
  private WatcherApp second;

  @BeforeEach
  void start() {
    RecordingPlannedFailover.clear();
  }

  private WatcherApp replica(String identity) {
    return rig.start(config(identity));
  }

  @Test
  void onlyTheLeaderStartsWorkflowsAndTheOtherTakesOverWhenItShutsDown() throws Exception {
    first = replica("watcher-a");
    Http.await("watcher-a leads", TAKEOVER, first::isLeader);
    second = replica("watcher-b");
    Http.await("watcher-b has synced", TAKEOVER, second::isReady);
    assertThat(holder()).isEqualTo("watcher-a");

    rig.createGroupRequesting(ORDERS, "pdx");
    Http.await("the orders failover ran", TAKEOVER, () -> RecordingPlannedFailover.runsFor("orders") == 1);
    // Give the standby every chance to act wrongly: several of its retry periods.
    Thread.sleep(1000);

    assertThat(RecordingPlannedFailover.runsFor("orders")).as("one workflow, from the leader only").isEqualTo(1);
    assertThat(second.isLeader()).isFalse();
    assertThat(sample(metrics(first), "bloodraven_watcher_is_leader")).isEqualTo(1.0);
    assertThat(sample(metrics(first), STARTED)).isEqualTo(1.0);
    assertThat(sample(metrics(second), "bloodraven_watcher_is_leader")).isEqualTo(0.0);
    assertThat(sample(metrics(second), STARTED)).isZero();
    assertThat(sample(metrics(second), WAITING)).as("the standby does not even try").isZero();
    assertThat(second.group(ORDERS)).as("the standby's cache is warm for /active-site").isPresent();

    // The workflow removes the annotation when it ends; the stand-in does not, so the test does.
    removeAnnotation(ORDERS);
    Http.await("the leader saw the annotation go", TAKEOVER,
        () -> first.group(ORDERS).map(g -> PlannedFailoverRequests.annotation(g) == null).orElse(false));
    first.requests().awaitQueued();

    first.close();
    Http.await("watcher-b takes over", TAKEOVER, second::isLeader);
    assertThat(holder()).isEqualTo("watcher-b");

    rig.createGroupRequesting(BILLING, "iad");
    Http.await("the billing failover ran", TAKEOVER, () -> RecordingPlannedFailover.runsFor("billing") == 1);
    second.requests().awaitQueued();

    assertThat(RecordingPlannedFailover.runsFor("orders")).as("the old request is not started again").isEqualTo(1);
    assertThat(sample(metrics(second), STARTED)).isEqualTo(1.0);
    assertThat(sample(metrics(second), "bloodraven_watcher_is_leader")).isEqualTo(1.0);
  }

  @Test
  void aReplicaThatLosesTheLeaseStopsActingAndCampaignsAgain() throws Exception {
    first = replica("watcher-a");
    Http.await("watcher-a leads", TAKEOVER, first::isLeader);

    // Another holder appears on the Lease (an operator's edit, or a partition that let it expire):
    // the next renewal finds it and the replica must stop acting at once.
    KubernetesClient kube = cluster.client();
    // The leader renews meanwhile, so the edit may meet a newer resourceVersion (409): read and edit again.
    for (int attempt = 1;; attempt++) {
      try {
        kube.leases().inNamespace(LEASE_NAMESPACE).withName("failover-watcher")
            .edit(l -> {
              l.getSpec().setHolderIdentity("someone-else");
              return l;
            });
        break;
      } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 5) {
          throw e;
        }
      }
    }
    Http.await("watcher-a stops leading", TAKEOVER, () -> !first.isLeader());
    assertThat(first.requests()).isNull();

    // someone-else never renews, so once the Lease expires watcher-a takes it back.
    Http.await("watcher-a leads again", TAKEOVER, first::isLeader);
    rig.createGroupRequesting(ORDERS, "pdx");
    Http.await("the orders failover ran", TAKEOVER, () -> RecordingPlannedFailover.runsFor("orders") == 1);
  }

  /**
   * A failed renewal of the Lease fails that attempt only: with its writes refused for less than
   * the renew deadline the replica keeps leading throughout and acts as before.
   */
  @Test
  void aFailedLeaseRenewalFailsThatAttemptOnly() throws Exception {
    first = replica("watcher-a");
    Http.await("watcher-a leads", TAKEOVER, first::isLeader);
    java.util.regex.Pattern lease = java.util.regex.Pattern.compile(".*/leases/failover-watcher(\\?.*)?");

    // Shorter than the 1.5 s renew deadline: three or so of the 200 ms retries fail.
    MockCluster.Refusal brief = cluster.refuseWrites(lease, 503, Duration.ofMillis(700));
    long until = System.nanoTime() + Duration.ofMillis(1200).toNanos();
    boolean ledThroughout = true;
    while (System.nanoTime() < until) {
      ledThroughout &= first.isLeader();
      Thread.sleep(10);
    }
    assertThat(brief.refused()).as("renewals were refused").isPositive();
    assertThat(ledThroughout).as("still leading through the refused renewals").isTrue();
    rig.createGroupRequesting(ORDERS, "pdx");
    Http.await("the orders failover ran", TAKEOVER, () -> RecordingPlannedFailover.runsFor("orders") == 1);
  }

  /**
   * A leader cut off from the API server (its packets dropped, as in a region outage) stops acting
   * by its renew deadline, before the standby may take the Lease: fabric8's elector checks the
   * deadline only between renewal attempts, and an attempt against a silent API server first waits
   * out the client's request timeouts (about 20 s), so without a watchdog of our own both replicas
   * acted for most of that.
   */
  @Test
  void aLeaderCutOffFromTheApiServerStopsActingBeforeTheStandbyTakesOver() throws Exception {
    java.net.URI api = java.net.URI.create(cluster.client().getConfiguration().getMasterUrl());
    try (TcpProxy path = TcpProxy.start(api.getHost(), api.getPort());
        KubernetesClient cutOff = new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(
            new io.fabric8.kubernetes.client.ConfigBuilder(cluster.client().getConfiguration())
                .withMasterUrl(path.httpUrl().toString()).build())
            .build()) {
      first = rig.start(config("watcher-a"), cutOff);
      Http.await("watcher-a leads", TAKEOVER, first::isLeader);
      second = replica("watcher-b");
      Http.await("watcher-b has synced", TAKEOVER, second::isReady);

      path.drop();
      long cut = System.nanoTime();
      long firstStopped = -1;
      long secondLed = -1;
      while (secondLed < 0 && System.nanoTime() - cut < TAKEOVER.toNanos()) {
        long now = System.nanoTime();
        if (firstStopped < 0 && !first.isLeader()) {
          firstStopped = now;
        }
        if (second.isLeader()) {
          secondLed = now;
        }
        Thread.sleep(5);
      }
      assertThat(secondLed).as("watcher-b took the Lease").isPositive();
      assertThat(firstStopped).as("watcher-a stopped acting before watcher-b led (%d ms after the cut)",
          (secondLed - cut) / 1_000_000).isPositive().isLessThan(secondLed);
      path.heal();
    }
  }

  private static WatcherConfig config(String identity) {
    return WatcherConfig.defaults().withTopologyMonitor(false).withLeaderElection(new LeaderElectionSettings(true,
        "failover-watcher", LEASE_NAMESPACE, identity, Duration.ofSeconds(2), Duration.ofMillis(1500),
        Duration.ofMillis(200)));
  }

  private void removeAnnotation(GroupRef ref) {
    cluster.client().resources(MysqlFailoverGroup.class).inNamespace(ref.namespace()).withName(ref.name())
        .edit(g -> {
          g.getMetadata().getAnnotations().remove(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION);
          return g;
        });
  }

  private String holder() {
    Lease lease = cluster.client().leases().inNamespace(LEASE_NAMESPACE).withName("failover-watcher").get();
    return lease.getSpec().getHolderIdentity();
  }

  private static String metrics(WatcherApp app) throws Exception {
    return get(app.httpPort(), "/metrics").body();
  }
}
