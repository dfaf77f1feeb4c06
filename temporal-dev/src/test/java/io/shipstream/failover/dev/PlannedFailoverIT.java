package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.WriteLoad;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Planned failover end to end: three real mariadbd processes replicating with GTIDs (iad and pdx,
 * which trade places, and a dr-only dr that must follow whichever is primary), the mock API server, the Temporal dev server, the real worker and watcher, and a client writing rows all the
 * time. Everything is asserted the way an operator would check it: the resource's status, the rows
 * on the new primary, the servers' read-only flags and replication, and the placement objects.
 */
@ExtendWith(StoredGroupsFitTheCrd.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PlannedFailoverIT extends StackPerClass {
  static final Duration END = Duration.ofSeconds(60);


  @BeforeAll
  static void start() {
    stack = FailoverStack.start(work, FailoverStack.Options.threeSites());
  }

  /** The README promises that the dev stack runs on 127.0.0.1: the watcher's port included. */
  @Test
  @Order(0)
  void theWatcherListensOnLoopbackOnly() {
    assertThat(stack.controlPlane().watcherAddress()).hasValueSatisfying(address -> {
      assertThat(address.getAddress().isLoopbackAddress()).as("%s", address).isTrue();
      assertThat(address.getAddress().isAnyLocalAddress()).isFalse();
    });
    assertThat(stack.controlPlane().temporalTarget()).startsWith("127.0.0.1:");
  }

  @Test
  @Order(1)
  void badAnnotationsFailWithAClearReasonAndNoFence() {
    try (WriteLoad load = newLoad()) {
      load.awaitAcknowledged(20, Duration.ofSeconds(10));
      record Case(String annotation, String reason) {}
      for (Case c : List.of(new Case("sfo", "UnknownSite"), new Case("iad", "AlreadyActive"),
          new Case("pdx:maxLagWait=abc", "InvalidAnnotation"), new Case("", "InvalidAnnotation"))) {
        String before = Instant.now().toString();
        stack.api().annotate(c.annotation());
        PlannedFailoverStatus s = stack.waits().plannedEnd(before, END);
        assertThat(s.phase()).as(c.annotation()).isEqualTo("Failed");
        assertThat(s.reason()).as(c.annotation()).isEqualTo(c.reason());
        assertThat(s.message()).as(c.annotation()).isNotBlank();
        assertThat(stack.api().annotation()).as("annotation cleared").isEmpty();
        assertThat(stack.server("iad").isReadOnly()).as("no fence after " + c.annotation()).isFalse();
      }
      int before = load.acknowledgedCount();
      load.awaitAcknowledged(before + 20, Duration.ofSeconds(10));
      load.stop();
      assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo("iad");
      assertThat(load.errors()).as("writes never failed: nothing was fenced").isZero();
      assertNothingLost(load, "iad");
    }
  }

  @Test
  @Order(2)
  void plannedSwitchoverUnderWriteLoad() {
    try (WriteLoad load = newLoad()) {
      load.awaitAcknowledged(50, Duration.ofSeconds(10));
      PlannedFailoverStatus s = failOver("pdx");
      int afterFailover = load.acknowledgedCount();
      load.awaitAcknowledged(afterFailover + 50, Duration.ofSeconds(10));
      load.stop();

      assertThat(s.phase()).isEqualTo("Succeeded");
      assertThat(s.target()).isEqualTo("pdx");
      assertThat(s.sourcePrimary()).isEqualTo("iad");
      assertThat(s.transactionsLost()).isZero();
      assertThat(s.sourceGtidAtFence()).isNotBlank();
      assertThat(s.targetGtidAtPromotion()).isNotBlank();
      assertThat(s.durationSeconds()).isNotNull();
      assertThat(s.message()).startsWith("promoted pdx, 0 transactions lost");
      assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo("pdx");
      assertThat(stack.api().resource().getStatus().promotionGtidExecuted()).isEqualTo(s.targetGtidAtPromotion());
      assertThat(stack.api().resource().getStatus().workflow().workflowId()).isEqualTo("mysqlfailovergroup/shop/orders");

      assertNothingLost(load, "pdx");
      assertServers("pdx", "iad");
      assertPlacement("pdx", "iad");
      // The group the watcher adopted is Ready again, with pdx its writable primary.
      Await.until(stack, () -> stack.api().resource().getStatus().conditions() != null && stack.api().resource().getStatus()
          .conditions().stream().anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True")
              && c.getMessage().startsWith("pdx ")), Duration.ofSeconds(15), "Ready=True with pdx the primary");
    }
  }

  @Test
  @Order(3)
  void laggingTargetTimesOutAndRollsBackLeavingEverythingAsItWas() {
    Sites sites = Sites.withTargetDelayedBy(60);
    try (WriteLoad load = newLoad()) {
      load.awaitAcknowledged(30, Duration.ofSeconds(10));
      String dnsBefore = dnsTarget();
      PlannedFailoverStatus s = failOver(sites.target() + ":maxLagWait=2s");
      awaitMoreWritesThenStop(load);

      assertThat(s.phase()).isEqualTo("Failed");
      assertThat(s.reason()).isEqualTo("LagTimeout");
      assertThat(s.message()).contains("rolled back");
      assertThat(sites.lagging().isReadOnly()).as("target untouched").isTrue();
      assertThat(dnsTarget()).isEqualTo(dnsBefore);
      assertRolledBack(sites, load);
    }
  }

  @Test
  @Order(4)
  void workerKilledDuringWaitingForLagStillSucceeds() {
    // The target applies every transaction 5 s late: WaitingForLag lasts about that long.
    Sites sites = Sites.withTargetDelayedBy(5);
    try (WriteLoad load = newLoad()) {
      load.awaitAcknowledged(30, Duration.ofSeconds(10));
      String before = annotateAndAwaitWaitingForLag(sites.target());
      // Kill the worker once it sits in the wait activity. A workflow task handed to a poll that
      // dies at that very moment is only re-dispatched after the workflow task timeout (10 s, on
      // the test server as on a real one), so the kill avoids the instants the status writes are
      // in flight, keeping the test's duration predictable.
      sleep(Duration.ofSeconds(1));
      stack.controlPlane().killWorker();
      stack.controlPlane().startWorker();
      PlannedFailoverStatus s = stack.waits().plannedEnd(before, END);
      awaitMoreWritesThenStop(load);

      assertThat(s.phase()).isEqualTo("Succeeded");
      assertThat(s.transactionsLost()).isZero();
      assertNothingLost(load, sites.target());
      assertServers(sites.target(), sites.active());
      assertPlacement(sites.target(), sites.active());
    }
  }

  @Test
  @Order(5)
  void tenFailoversBackAndForthLoseNothing() {
    List<Double> durations = new ArrayList<>();
    try (WriteLoad load = newLoad()) {
      load.awaitAcknowledged(30, Duration.ofSeconds(10));
      for (int i = 0; i < 10; i++) {
        String target = other(stack.api().resource().getStatus().activeSite());
        PlannedFailoverStatus s = failOver(target);
        assertThat(s.phase()).as("failover %d to %s: %s", i, target, s.message()).isEqualTo("Succeeded");
        assertThat(s.transactionsLost()).isZero();
        durations.add(s.durationSeconds());
        int after = load.acknowledgedCount();
        load.awaitAcknowledged(after + 10, Duration.ofSeconds(10));
      }
      load.stop();
      String active = stack.api().resource().getStatus().activeSite();
      assertNothingLost(load, active);
      assertServers(active, other(active));
      assertPlacement(active, other(active));
    }
    assertThat(durations).hasSize(10);
  }

  @Test
  @Order(6)
  void anAnnotationChangedDuringWaitingForLagRollsBackAtOnceAndTheNewValueIsANewRequest() {
    Sites sites = Sites.withTargetDelayedBy(60);
    try (WriteLoad load = newLoad()) {
      load.awaitAcknowledged(30, Duration.ofSeconds(10));
      annotateAndAwaitWaitingForLag(sites.target() + ":maxLagWait=10m");
      String replacedAt = Instant.now().toString();
      long changed = System.nanoTime();
      stack.api().annotate(sites.active());
      PlannedFailoverStatus next = stack.waits().plannedEnd(replacedAt, END);
      Duration took = Duration.ofNanos(System.nanoTime() - changed);
      awaitMoreWritesThenStop(load);

      assertThat(took).as("the source was not kept fenced for the old request's 10 m wait")
          .isLessThan(Duration.ofSeconds(20));
      assertThat(stack.api().eventMessages("PlannedFailoverFailed")).anySatisfy(m -> assertThat(m)
          .startsWith("Cancelled: cancelled in WaitingForLag: request replaced by a new annotation value '"
              + sites.active() + "'; rolled back"));
      assertThat(next.reason()).as("the new value ran as a request of its own").isEqualTo("AlreadyActive");
      assertThat(stack.api().annotation()).as("the new request's annotation cleared").isEmpty();
      assertRolledBack(sites, load);
    }
  }

  private static long nextFirstId = 1;

  /** A writer through the primary Service, with ids that never collide with an earlier test's. */
  private static WriteLoad newLoad() {
    WriteLoad load = WriteLoad.start(stack::routedJdbcUrl, Duration.ofMillis(5), nextFirstId);
    nextFirstId += 10_000_000;
    return load;
  }

  /** Annotates the group and waits until the failover it starts waits for the target; returns when. */
  private static String annotateAndAwaitWaitingForLag(String annotation) {
    String before = Instant.now().toString();
    stack.api().annotate(annotation);
    stack.waits().planned(p -> "WaitingForLag".equals(p.phase()) && p.startTime().compareTo(before) >= 0, END);
    return before;
  }

  /** Waits until writes are acknowledged again after a failover, then stops the writer. */
  private static void awaitMoreWritesThenStop(WriteLoad load) {
    int after = load.acknowledgedCount();
    load.awaitAcknowledged(after + 30, Duration.ofSeconds(10));
    load.stop();
  }

  /**
   * A rollback left everything as it was: the source takes writes and is routed, and the target,
   * replicating without delay again, catches up with every acknowledged write.
   */
  private static void assertRolledBack(Sites sites, WriteLoad load) {
    assertThat(stack.server(sites.active()).isReadOnly()).as("source writable again").isFalse();
    assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo(sites.active());
    assertThat(stack.api().routedSite()).contains(sites.active());
    delayReplication(sites.lagging(), 0);
    assertNothingLost(load, sites.active());
    sites.lagging().awaitReplicated(stack.server(sites.active()).gtidExecuted(), Duration.ofSeconds(30));
  }

  /** The active site and the other one, the target, whose server applies every transaction late. */
  private record Sites(String active, String target, DatabaseServer lagging) {
    static Sites withTargetDelayedBy(int seconds) {
      String active = stack.api().resource().getStatus().activeSite();
      DatabaseServer lagging = stack.server(other(active));
      delayReplication(lagging, seconds);
      return new Sites(active, other(active), lagging);
    }
  }

  private static PlannedFailoverStatus failOver(String annotation) {
    String before = Instant.now().toString();
    stack.api().annotate(annotation);
    return stack.waits().plannedEnd(before, END);
  }

  /** MariaDB delayed replication: the SQL thread runs but applies each event n seconds late. */
  private static void delayReplication(DatabaseServer replica, int seconds) {
    replica.execute("STOP SLAVE", "CHANGE MASTER TO MASTER_DELAY=" + seconds, "START SLAVE");
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String other(String site) {
    return site.equals("iad") ? "pdx" : "iad";
  }

  private static void assertNothingLost(WriteLoad load, String primary) {
    List<Long> onPrimary = DatabaseCluster.writtenIds(stack.server(primary));
    assertThat(onPrimary).as("every acknowledged write is on " + primary).containsAll(load.acknowledged());
  }

  /**
   * The new primary takes writes; the old one and dr are read-only, replicate from it and have
   * applied all it has.
   */
  private static void assertServers(String primary, String oldPrimary) {
    DatabaseServer p = stack.server(primary);
    assertThat(p.isReadOnly()).as(primary + " writable").isFalse();
    assertThat(p.replicaStatus().configured()).as(primary + " is no replica").isFalse();
    for (String replica : List.of(oldPrimary, "dr")) {
      DatabaseServer r = stack.server(replica);
      assertThat(r.isReadOnly()).as(replica + " read-only").isTrue();
      assertThat(r.replicaStatus().sourcePort()).as(replica + " replicates from " + primary).isEqualTo(p.port());
      r.awaitReplicated(p.gtidExecuted(), Duration.ofSeconds(30));
      assertThat(r.replicaStatus().running()).as(replica + " replicating").isTrue();
    }
    assertThat(stack.api().eventReasons()).as("every replica was re-pointed").doesNotContain("ReplicaNotRepointed");
  }

  /** Service label, DNSEndpoint and node taints where the placement contract puts them. */
  private static void assertPlacement(String primary, String replica) {
    assertThat(stack.api().routedSite()).contains(primary);
    assertThat(stack.api().client().services().inNamespace("shop").withName("mysql-orders-primary").get()
        .getSpec().getSelector()).containsEntry("shipstream.io/role", "primary");
    assertThat(dnsTarget()).isEqualTo(stack.api().resource().getSpec().sites().stream()
        .filter(s -> s.name().equals(primary)).findFirst().orElseThrow().lbIP());
    assertThat(taintKeys("node-" + replica + "-1")).contains("shipstream.io/db-readonly-orders");
    assertThat(taintKeys("node-" + primary + "-1")).doesNotContain("shipstream.io/db-readonly-orders");
  }

  private static List<String> taintKeys(String node) {
    List<Taint> taints = stack.api().client().nodes().withName(node).get().getSpec().getTaints();
    return taints == null ? List.of() : taints.stream().map(Taint::getKey).toList();
  }

  @SuppressWarnings("unchecked")
  private static String dnsTarget() {
    GenericKubernetesResource dns = stack.api().client().genericKubernetesResources(
        new ResourceDefinitionContext.Builder().withGroup("externaldns.k8s.io").withVersion("v1alpha1")
            .withKind("DNSEndpoint").withPlural("dnsendpoints").withNamespaced(true).build())
        .inNamespace("shop").withName("orders-primary").get();
    if (dns == null) {
      return null;
    }
    Map<String, Object> spec = (Map<String, Object>) dns.getAdditionalProperties().get("spec");
    List<Map<String, Object>> endpoints = spec == null ? null : (List<Map<String, Object>>) spec.get("endpoints");
    return endpoints == null || endpoints.isEmpty() ? null : ((List<String>) endpoints.get(0).get("targets")).get(0);
  }
}
