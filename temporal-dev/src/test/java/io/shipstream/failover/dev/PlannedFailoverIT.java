package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import io.shipstream.failover.testsupport.ReplicaStatus;
import io.shipstream.failover.testsupport.WriteLoad;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Planned failover end to end, once per flavor (MySQL 9.7 and MariaDB; a stack of each, shared by
 * the tests of that flavor in order): three real servers replicating with GTIDs (iad and pdx,
 * which trade places, and a dr-only dr that must follow whichever is primary), the mock API server, the Temporal dev server, the real worker and watcher, and a client writing rows all the
 * time. Everything is asserted the way an operator would check it: the resource's status, the rows
 * on the new primary, the servers' read-only flags and replication, and the placement objects.
 */
@ExtendWith(StoredGroupsFitTheCrd.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PlannedFailoverIT extends StackPerClass {
  static final Duration END = Duration.ofSeconds(60);

  /** The class's stack of {@code flavor}, shared by its tests in order; skips a flavor that cannot run here. */
  private static void use(Flavor flavor) {
    stackOf(flavor, FailoverStack.Options.threeSites());
  }

  /** docs/operating/playground.md promises the dev stack runs on 127.0.0.1: the watcher's port included. */
  @FlavorTest
  @Order(0)
  void theWatcherListensOnLoopbackOnly(Flavor flavor) {
    use(flavor);
    assertThat(stack.controlPlane().watcherAddress()).hasValueSatisfying(address -> {
      assertThat(address.getAddress().isLoopbackAddress()).as("%s", address).isTrue();
      assertThat(address.getAddress().isAnyLocalAddress()).isFalse();
    });
    assertThat(stack.controlPlane().temporalTarget()).startsWith("127.0.0.1:");
  }

  @FlavorTest
  @Order(1)
  void badAnnotationsFailWithAClearReasonAndNoFence(Flavor flavor) {
    use(flavor);
    try (WriteLoad load = writing(20)) {
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

  @FlavorTest
  @Order(2)
  void plannedSwitchoverUnderWriteLoad(Flavor flavor) {
    use(flavor);
    // The hooks ride along on MariaDB only: their path is the same on both flavors.
    try (WriteLoad load = writing(50); HookRecorder hooks = flavor == Flavor.MARIADB ? new HookRecorder() : null) {
      if (hooks != null) {
        aPreHookAnswering500VetoesAndNothingIsFenced(hooks, load);
      }
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
      assertThat(stack.api().resource().getStatus().workflow().workflowId())
          .isEqualTo("mysqlfailovergroup/shop/orders");

      assertNothingLost(load, "pdx");
      assertServers("pdx", "iad");
      assertPlacement("pdx", "iad");
      // The group the watcher adopted is Ready again, with pdx its writable primary.
      Await.until(stack,
          () -> stack.api().resource().getStatus().conditions() != null && stack.api().resource().getStatus()
              .conditions().stream().anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True")
                  && c.getMessage().startsWith("pdx ")),
          Duration.ofSeconds(15), "Ready=True with pdx the primary");
      if (hooks != null) {
        thePostHookHeardTheOutcome(hooks, s);
      }
    } finally {
      if (flavor == Flavor.MARIADB) {
        stack.api().editSpec(spec -> GroupSpecs.withHooks(spec, null));
      }
    }
  }

  /**
   * With hooks configured (the bearer token in a Secret), a pre-hook answering 500 vetoes the
   * request before the fence: the writer never sees an error, iad stays the writable primary, and
   * the post-hook hears the veto. The pre-hook then agrees, for the switchover that follows.
   */
  private static void aPreHookAnswering500VetoesAndNothingIsFenced(HookRecorder hooks, WriteLoad load) {
    hooks.installAsHooksOf(stack, "hook-s3cret");
    hooks.statusByPath.put("/pre", 500);
    long started = System.nanoTime();

    PlannedFailoverStatus vetoed = failOver("pdx");

    System.out.printf("a planned failover vetoed by its pre-hook ended Failed %d ms after the annotation%n",
        (System.nanoTime() - started) / 1_000_000);
    assertThat(vetoed.phase()).isEqualTo("Failed");
    assertThat(vetoed.reason()).isEqualTo("PreFailoverHookVetoed");
    assertThat(vetoed.message()).contains("answered 500: change freeze until Monday").contains("nothing was fenced");
    assertThat(vetoed.sourceGtidAtFence()).as("never fenced").isNull();
    assertThat(stack.server("iad").isReadOnly()).as("iad writable").isFalse();
    assertThat(stack.server("pdx").isReadOnly()).as("pdx untouched").isTrue();
    assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo("iad");
    assertThat(stack.api().routedSite()).contains("iad");
    int before = load.acknowledgedCount();
    load.awaitAcknowledged(before + 20, Duration.ofSeconds(10));
    assertThat(load.errors()).as("writes never failed: nothing was fenced").isZero();
    Await.until(stack, () -> !hooks.at("/post").isEmpty(), Duration.ofSeconds(10), "the post-hook of the veto");
    assertThat(hooks.at("/pre")).as("asked three times within its timeout").hasSize(3)
        .allSatisfy(r -> assertThat(r.authorization()).isEqualTo("Bearer hook-s3cret"));
    var post = hooks.at("/post").get(0).body();
    assertThat(post.get("outcome").asText()).isEqualTo("Failed");
    assertThat(post.get("reason").asText()).isEqualTo("PreFailoverHookVetoed");
    hooks.statusByPath.put("/pre", 200);
    hooks.received.clear();
  }

  /** The documented body (docs/operating/hooks.md) of a switchover that succeeded, as a real endpoint received it. */
  private static void thePostHookHeardTheOutcome(HookRecorder hooks, PlannedFailoverStatus s) {
    Await.until(stack, () -> !hooks.at("/post").isEmpty(), Duration.ofSeconds(10), "the post-hook");
    var pre = hooks.at("/pre").get(0).body();
    assertThat(pre.get("kind").asText()).isEqualTo("planned");
    assertThat(pre.get("phase").asText()).isEqualTo("pre");
    assertThat(pre.get("sourceGtidSet").isNull()).as("not fenced yet").isTrue();
    var post = hooks.at("/post").get(0).body();
    assertThat(post.get("group").asText()).isEqualTo("orders");
    assertThat(post.get("namespace").asText()).isEqualTo("shop");
    assertThat(post.get("kind").asText()).isEqualTo("planned");
    assertThat(post.get("phase").asText()).isEqualTo("post");
    assertThat(post.get("source").asText()).isEqualTo("iad");
    assertThat(post.get("target").asText()).isEqualTo("pdx");
    assertThat(post.get("sourceGtidSet").asText()).isEqualTo(s.sourceGtidAtFence());
    assertThat(post.get("targetGtidSet").asText()).isEqualTo(s.targetGtidAtPromotion());
    assertThat(post.get("transactionsLost").asLong()).isZero();
    assertThat(post.get("outcome").asText()).isEqualTo("Succeeded");
    assertThat(post.get("reason").isNull()).isTrue();
    assertThat(post.get("message").asText()).startsWith("promoted pdx, 0 transactions lost");
    assertThat(post.get("workflowId").asText()).isEqualTo("mysqlfailovergroup/shop/orders");
    assertThat(post.has("time")).isTrue();
    assertThat(stack.api().eventReasons()).contains("HookCalled").doesNotContain("HookFailed");
  }

  @FlavorTest
  @Order(3)
  void laggingTargetTimesOutAndRollsBackLeavingEverythingAsItWas(Flavor flavor) {
    try (LaggingTarget rig = LaggingTarget.on(flavor, 60)) {
      String dnsBefore = dnsTarget();
      PlannedFailoverStatus s = failOver(rig.target() + ":maxLagWait=2s");
      awaitMoreWritesThenStop(rig.load());

      assertThat(s.phase()).isEqualTo("Failed");
      assertThat(s.reason()).isEqualTo("LagTimeout");
      assertThat(s.message()).contains("rolled back");
      assertThat(rig.lagging().isReadOnly()).as("target untouched").isTrue();
      assertThat(dnsTarget()).isEqualTo(dnsBefore);
      assertRolledBack(rig);
    }
  }

  @FlavorTest
  @Order(4)
  void workerKilledDuringWaitingForLagStillSucceeds(Flavor flavor) {
    // The target applies every transaction 5 s late: WaitingForLag lasts about that long.
    try (LaggingTarget rig = LaggingTarget.on(flavor, 5)) {
      String before = annotateAndAwaitWaitingForLag(rig.target());
      // Kill the worker once it sits in the wait activity. A workflow task handed to a poll that
      // dies at that very moment is only re-dispatched after the workflow task timeout (10 s, on
      // the test server as on a real one), so the kill avoids the instants the status writes are
      // in flight, keeping the test's duration predictable.
      sleep(Duration.ofSeconds(1));
      stack.controlPlane().killWorker();
      stack.controlPlane().startWorker();
      PlannedFailoverStatus s = stack.waits().plannedEnd(before, END);
      awaitMoreWritesThenStop(rig.load());

      assertThat(s.phase()).isEqualTo("Succeeded");
      assertThat(s.transactionsLost()).isZero();
      assertNothingLost(rig.load(), rig.target());
      assertServers(rig.target(), rig.active());
      assertPlacement(rig.target(), rig.active());
    }
  }

  @FlavorTest
  @Order(5)
  void tenFailoversBackAndForthLoseNothing(Flavor flavor) {
    use(flavor);
    List<Double> durations = new ArrayList<>();
    List<String> timings = new ArrayList<>();
    try (WriteLoad load = writing(30)) {
      for (int i = 0; i < 10; i++) {
        String source = stack.api().resource().getStatus().activeSite();
        String target = other(source);
        long started = System.nanoTime();
        PlannedFailoverStatus s = failOver(target);
        long endSeen = System.nanoTime();
        assertThat(s.phase()).as("failover %d to %s: %s", i, target, s.message()).isEqualTo("Succeeded");
        assertThat(s.transactionsLost()).isZero();
        durations.add(s.durationSeconds());
        int after = load.acknowledgedCount();
        load.awaitAcknowledged(after + 10, Duration.ofSeconds(10));
        long writing = System.nanoTime();
        // The old primary follows the new one by GTID auto-positioning, not by a binlog offset.
        DatabaseServer old = stack.server(source);
        DatabaseServer now = stack.server(target);
        Await.until(stack, () -> old.replicaStatus().running(), Duration.ofSeconds(15), source + " replicating");
        ReplicaStatus replication = old.replicaStatus();
        assertThat(replication.sourcePort()).as("%s replicates from %s", source, target).isEqualTo(now.port());
        assertThat(replication.gtidPositioned()).as("%s positions by GTID: %s", source, replication).isTrue();
        timings.add(String.format("%2d %s->%s status %.3f s, annotate to end seen %d ms, to 10 more writes %d ms",
            i + 1, source, target, s.durationSeconds(), (endSeen - started) / 1_000_000,
            (writing - started) / 1_000_000));
      }
      load.stop();
      String active = stack.api().resource().getStatus().activeSite();
      assertNothingLost(load, active);
      assertServers(active, other(active));
      assertPlacement(active, other(active));
    }
    assertThat(durations).hasSize(10);
    System.out.println(flavor + ": ten planned failovers under a writer, each Succeeded with 0 lost:");
    timings.forEach(t -> System.out.println("  " + t));
  }

  @FlavorTest
  @Order(6)
  void anAnnotationChangedDuringWaitingForLagRollsBackAtOnceAndTheNewValueIsANewRequest(Flavor flavor) {
    try (LaggingTarget rig = LaggingTarget.on(flavor, 60)) {
      annotateAndAwaitWaitingForLag(rig.target() + ":maxLagWait=10m");
      String replacedAt = Instant.now().toString();
      long changed = System.nanoTime();
      stack.api().annotate(rig.active());
      PlannedFailoverStatus next = stack.waits().plannedEnd(replacedAt, END);
      Duration took = Duration.ofNanos(System.nanoTime() - changed);
      awaitMoreWritesThenStop(rig.load());

      assertThat(took).as("the source was not kept fenced for the old request's 10 m wait")
          .isLessThan(Duration.ofSeconds(20));
      assertThat(stack.api().eventMessages("PlannedFailoverFailed")).anySatisfy(m -> assertThat(m)
          .startsWith("Cancelled: cancelled in WaitingForLag: request replaced by a new annotation value '"
              + rig.active() + "'; rolled back"));
      assertThat(next.reason()).as("the new value ran as a request of its own").isEqualTo("AlreadyActive");
      assertThat(stack.api().annotation()).as("the new request's annotation cleared").isEmpty();
      assertRolledBack(rig);
    }
  }

  private static long nextFirstId = 1;

  /**
   * A writer through the primary Service, with ids that never collide with an earlier test's, once
   * {@code rows} of its rows are acknowledged.
   */
  private static WriteLoad writing(int rows) {
    WriteLoad load = WriteLoad.start(stack::routedJdbcUrl, Duration.ofMillis(5), nextFirstId);
    nextFirstId += 10_000_000;
    try {
      load.awaitAcknowledged(rows, Duration.ofSeconds(10));
    } catch (RuntimeException | Error e) {
      load.close();
      throw e;
    }
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
  private static void assertRolledBack(LaggingTarget rig) {
    assertThat(stack.server(rig.active()).isReadOnly()).as("source writable again").isFalse();
    assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo(rig.active());
    assertThat(stack.api().routedSite()).contains(rig.active());
    delayReplication(rig.lagging(), 0);
    assertNothingLost(rig.load(), rig.active());
    rig.lagging().awaitReplicated(stack.server(rig.active()).gtidExecuted(), Duration.ofSeconds(30));
  }

  /**
   * The rig of a switchover to a lagging target, on {@code flavor}'s stack ({@link #use}): the
   * active site, the other one, the target, whose server applies every transaction {@code seconds}
   * late, and a writer with 30 rows acknowledged; closing it closes the writer.
   */
  private record LaggingTarget(String active, String target, DatabaseServer lagging, WriteLoad load)
      implements AutoCloseable {
    static LaggingTarget on(Flavor flavor, int seconds) {
      use(flavor);
      String active = stack.api().resource().getStatus().activeSite();
      DatabaseServer lagging = stack.server(other(active));
      delayReplication(lagging, seconds);
      return new LaggingTarget(active, other(active), lagging, writing(30));
    }

    @Override
    public void close() {
      load.close();
    }
  }

  private static PlannedFailoverStatus failOver(String annotation) {
    String before = Instant.now().toString();
    stack.api().annotate(annotation);
    return stack.waits().plannedEnd(before, END);
  }

  /** Delayed replication: the SQL thread runs but applies each event n seconds late. */
  private static void delayReplication(DatabaseServer replica, int seconds) {
    replica.delayReplication(seconds);
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
