package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.shipstream.failover.kube.DnsRecords;
import io.shipstream.failover.kube.NodeTaints;
import io.shipstream.failover.kube.SiteRoles;
import io.shipstream.failover.kube.Tombstones;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.topology.GroupDeletion;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.WriteLoad;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityInput;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityOutput;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Deleting a group (issue 31, item 4), on real MariaDB servers, sidecars and the Temporal dev
 * server, with the mock API server standing in for Kubernetes: the mock never garbage-collects, so
 * what is checked is what a real API server's collector acts on, the ownerReferences.
 */
class GroupDeletionIT extends StackPerTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  /**
   * The group's finalizer removes its taint from every node, leaves the primary Service and the
   * DNSEndpoint in place without the group as their owner (so a real API server's garbage
   * collector keeps them), writes the tombstone and lets the group go; the application still
   * writes to the primary through its Service.
   */
  @Test
  void afterDeletionTheTaintsAreGoneAndTheRoutingStaysWithoutTheGroupAsOwner() throws Exception {
    start(Flavor.MARIADB, FailoverStack.Options.threeSites());
    GroupRef ref = stack.api().ref();
    KubernetesClient kube = stack.api().client();
    String key = NodeTaints.taintKey(ref);
    awaitThat(() -> tainted(kube, "pdx", key) && tainted(kube, "dr", key), "pdx and dr tainted");
    String uid = stack.api().resource().getMetadata().getUid();
    awaitThat(() -> ownedBy(primaryService(kube, ref), uid) && ownedBy(dnsEndpoint(kube, ref), uid),
        "the routing owned by the group, as created");
    awaitThat(() -> GroupDeletion.hasFinalizer(stack.api().resource()), "the watcher's finalizer on the group");

    delete(kube, ref);
    awaitThat(() -> stack.api().resource() == null, "the group deleted");

    for (String site : List.of("iad", "pdx", "dr")) {
      assertThat(tainted(kube, site, key)).as("the taint on %s's node", site).isFalse();
    }
    assertThat(primaryService(kube, ref)).as("the primary Service stays").isNotNull();
    assertThat(ownedBy(primaryService(kube, ref), uid)).as("without the group as owner").isFalse();
    assertThat(dnsEndpoint(kube, ref)).as("the DNSEndpoint stays").isNotNull();
    assertThat(ownedBy(dnsEndpoint(kube, ref), uid)).as("without the group as owner").isFalse();
    assertThat(new Tombstones(kube).read(ref)).map(Tombstones.Tombstone::uid).contains(uid);
    assertThat(stack.api().eventMessages("GroupFinalized")).singleElement().asString()
        .contains(GroupApi.nodeOf("pdx")).contains(GroupApi.nodeOf("dr")).contains(SiteRoles.serviceName(ref));
    assertThat(stack.api().routedSite()).as("the Service still selects the primary's pod").contains("iad");
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrl)) {
      load.awaitAcknowledged(5, WAIT);
    }
    assertThat(stack.writableSites()).containsExactly("iad");
  }

  /**
   * Told by the watcher that the group was deleted (the tombstone), every sidecar says so in
   * {@code /status} and touches its server no more: a replica made writable by hand is not fenced
   * (rule 1), and the primary cut off from the watcher and every peer beyond its lease is not
   * fenced either (rule 2).
   */
  @Test
  void theSidecarsHoldTheirServersOnTheTombstone() {
    start(Flavor.MARIADB, FailoverStack.Options.threeSites());
    SidecarMesh mesh = stack.startSidecars(SidecarMesh.Knobs.playground());
    GroupRef ref = stack.api().ref();
    awaitThat(() -> GroupDeletion.hasFinalizer(stack.api().resource()), "the watcher's finalizer on the group");

    delete(stack.api().client(), ref);
    awaitThat(() -> stack.api().resource() == null, "the group deleted");
    for (String site : List.of("iad", "pdx", "dr")) {
      awaitThat(() -> mesh.statusJson(site).path("groupDeleted").asBoolean(false), site + "'s sidecar told");
      assertThat(mesh.statusJson(site).path("groupDeletedAt").isTextual()).isTrue();
    }

    DatabaseServer pdx = stack.server("pdx");
    DatabaseServer iad = stack.server("iad");
    pdx.setReadOnly(false);
    mesh.partition("iad");
    try {
      // Four ticks and the lease: rule 1 would have fenced pdx on the first, rule 2 iad after the lease.
      Duration knobs = mesh.knobs().leaseTimeout().plus(mesh.knobs().peerCheckInterval().multipliedBy(4));
      Playground.sleep(knobs.toMillis());
      assertThat(pdx.isReadOnly()).as("pdx, made writable by hand, is not fenced").isFalse();
      assertThat(iad.isReadOnly()).as("iad, cut off beyond its lease, is not fenced").isFalse();
      JsonNode pdxStatus = mesh.statusJson("pdx");
      assertThat(pdxStatus.path("groupDeleted").asBoolean()).isTrue();
      assertThat(pdxStatus.path("lastAction").asText()).isEqualTo("NONE");
      assertThat(pdxStatus.path("lastFenceAt").isNull()).as("never fenced").isTrue();
      assertThat(mesh.statusJson("iad").path("lastFenceAt").isNull()).isTrue();
    } finally {
      mesh.heal("iad");
    }
  }

  /**
   * A group gone without its tombstone (its finalizer removed by hand while no watcher ran: what a
   * broken informer or an unwatched namespace shows too) is a 404 to the sidecars, which is no
   * answer: they go on by the view they hold, and a replica made writable by hand is fenced by
   * rule 1 as before.
   */
  @Test
  void onAPlain404WithoutATombstoneTheSidecarsBehaveAsBefore() {
    start(Flavor.MARIADB, FailoverStack.Options.threeSites());
    SidecarMesh mesh = stack.startSidecars(SidecarMesh.Knobs.playground());
    GroupRef ref = stack.api().ref();
    KubernetesClient kube = stack.api().client();

    stack.controlPlane().killWatcher();
    kube.resources(MysqlFailoverGroup.class).inNamespace(ref.namespace()).withName(ref.name()).edit(g -> {
      g.getMetadata().setFinalizers(null);
      return g;
    });
    delete(kube, ref);
    awaitThat(() -> stack.api().resource() == null, "the group deleted");
    stack.controlPlane().startWatcher();
    assertThat(new Tombstones(kube).read(ref)).isEmpty();

    DatabaseServer pdx = stack.server("pdx");
    pdx.setReadOnly(false);
    awaitThat(pdx::isReadOnly, "pdx, made writable by hand, fenced by rule 1");
    // The sidecar publishes its status when its tick ends, after the server is read-only.
    awaitThat(() -> "rule1".equals(mesh.statusJson("pdx").path("lastFence").path("rule").asText()),
        "pdx's sidecar showing its fence");
    JsonNode status = mesh.statusJson("pdx");
    assertThat(status.path("groupDeleted").asBoolean(false)).as("a 404 is no deletion").isFalse();
    assertThat(status.path("lastFence").path("rule").asText()).isEqualTo("rule1");
    assertThat(status.path("view").path("activeSite").asText()).isEqualTo("iad");
    assertThat(stack.server("iad").isReadOnly()).isFalse();
  }

  /**
   * Deleting the group while a planned failover waits for its target to catch up (WaitingForLag,
   * before Promoting) cancels the failover: its rollback makes the fenced source writable again,
   * nothing is promoted, and only then is the group finalized.
   */
  @Test
  void deletionBeforePromotingCancelsTheFailoverAndTheRollbackUnfencesTheSource() throws Exception {
    start(Flavor.MARIADB, FailoverStack.Options.threeSites());
    GroupRef ref = stack.api().ref();
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    awaitThat(() -> GroupDeletion.hasFinalizer(stack.api().resource()), "the watcher's finalizer on the group");
    // pdx applies each transaction 60 s late: the failover waits in WaitingForLag.
    pdx.delayReplication(60);
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere)) {
      load.awaitAcknowledged(20, WAIT);
      stack.api().annotate("pdx");
      awaitThat(iad::isReadOnly, "iad fenced by the failover");
    }
    String runId = stack.api().resource().getStatus().workflow().runId();

    delete(stack.api().client(), ref);
    awaitThat(() -> stack.api().resource() == null, "the group finalized once the failover ended");

    PlannedFailoverStatus result = stack.controlPlane().client()
        .newUntypedWorkflowStub(ref.workflowId(), Optional.of(runId), Optional.empty())
        .getResult(10, TimeUnit.SECONDS, PlannedFailoverStatus.class);
    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).isEqualTo("Cancelled");
    assertThat(result.message()).contains("the group is being deleted");
    assertThat(iad.isReadOnly()).as("the source unfenced by the rollback").isFalse();
    assertThat(pdx.isReadOnly()).as("nothing promoted").isTrue();
    assertThat(pdx.replicaStatus().sourcePort()).isEqualTo(iad.port());
    assertThat(stack.api().eventMessages("GroupDeletionWaiting")).anySatisfy(m -> assertThat(m)
        .contains("asked the failover " + runId));
    assertThat(tainted(stack.api().client(), "pdx", NodeTaints.taintKey(ref))).isFalse();
  }

  /**
   * Deleting the group while the failover is in Promoting does not cancel it (it may already have
   * made the target writable): the group stays, held by its finalizer, until the failover has
   * ended, and only then are the taints removed.
   */
  @Test
  void deletionAtPromotingWaitsForTheFailoverToEnd() throws Exception {
    HeldActivity promote = new HeldActivity("Promote");
    FailoverStack.Options options = FailoverStack.Options.threeSites();
    start(Flavor.MARIADB, options);
    stack.controlPlane().addWorkerInterceptor(promote);
    stack.controlPlane().killWorker();
    stack.controlPlane().startWorker();
    GroupRef ref = stack.api().ref();
    awaitThat(() -> GroupDeletion.hasFinalizer(stack.api().resource()), "the watcher's finalizer on the group");

    stack.api().annotate("pdx");
    assertThat(promote.reached.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the failover at Promote").isTrue();
    String runId = stack.api().resource().getStatus().workflow().runId();
    // The run's own word: the status on the resource lags it while the application's writes are stopped.
    assertThat(stack.controlPlane().client().newUntypedWorkflowStub(ref.workflowId(), Optional.of(runId),
        Optional.empty()).query("status", PlannedFailoverStatus.class).phase()).isEqualTo("Promoting");
    try {
      delete(stack.api().client(), ref);
      awaitThat(() -> stack.api().eventMessages("GroupDeletionWaiting").stream()
          .anyMatch(m -> m.contains("waiting for the failover " + runId)), "the finalizer waiting");
      Playground.sleep(2_000);
      MysqlFailoverGroup held = stack.api().resource();
      assertThat(held).as("held by its finalizer while the failover runs").isNotNull();
      assertThat(held.getMetadata().getDeletionTimestamp()).isNotNull();
      assertThat(stack.api().eventMessages("GroupDeletionWaiting")).noneMatch(m -> m.contains("asked the failover"));
    } finally {
      promote.release.countDown();
    }
    awaitThat(() -> stack.api().resource() == null, "the group finalized once the failover ended");

    PlannedFailoverStatus result = stack.controlPlane().client()
        .newUntypedWorkflowStub(ref.workflowId(), Optional.of(runId), Optional.empty())
        .getResult(10, TimeUnit.SECONDS, PlannedFailoverStatus.class);
    assertThat(result.phase()).as(result.message()).isEqualTo("Succeeded");
    assertThat(stack.server("pdx").isReadOnly()).as("pdx promoted").isFalse();
    assertThat(stack.server("iad").isReadOnly()).isTrue();
    for (String site : List.of("iad", "pdx", "dr")) {
      assertThat(tainted(stack.api().client(), site, NodeTaints.taintKey(ref))).as("the taint on %s's node", site)
          .isFalse();
    }
  }

  /** Holds every attempt of one activity type until released: the failover stays in that step. */
  private static final class HeldActivity extends ActivityObserver {
    final String type;
    final CountDownLatch reached = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    HeldActivity(String type) {
      this.type = type;
    }

    @Override
    protected ActivityOutput observe(ActivityExecutionContext context, ActivityInput input,
        Function<ActivityInput, ActivityOutput> proceed) {
      if (type.equals(context.getInfo().getActivityType())) {
        reached.countDown();
        try {
          // Bounded well inside the activity's own timeout, should the test never release it.
          release.await(8, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return proceed.apply(input);
    }
  }

  private static void delete(KubernetesClient kube, GroupRef ref) {
    kube.resources(MysqlFailoverGroup.class).inNamespace(ref.namespace()).withName(ref.name()).delete();
  }

  private static boolean tainted(KubernetesClient kube, String site, String key) {
    List<Taint> taints = kube.nodes().withName(GroupApi.nodeOf(site)).get().getSpec().getTaints();
    return taints != null && taints.stream().anyMatch(t -> key.equals(t.getKey()));
  }

  private static HasMetadata primaryService(KubernetesClient kube, GroupRef ref) {
    return kube.services().inNamespace(ref.namespace()).withName(SiteRoles.serviceName(ref)).get();
  }

  private static GenericKubernetesResource dnsEndpoint(KubernetesClient kube, GroupRef ref) {
    return kube.genericKubernetesResources(DnsRecords.CONTEXT).inNamespace(ref.namespace())
        .withName(DnsRecords.endpointName(ref)).get();
  }

  private static boolean ownedBy(HasMetadata object, String uid) {
    List<OwnerReference> owners = object == null ? null : object.getMetadata().getOwnerReferences();
    return owners != null && owners.stream().anyMatch(o -> uid.equals(o.getUid()));
  }

  private void awaitThat(BooleanSupplier condition, String what) {
    Await.until(stack, condition, WAIT, what);
  }
}
