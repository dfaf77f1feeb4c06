package io.shipstream.failover.dev;

import static io.shipstream.failover.dev.GroupSpecs.withSidecar;
import static io.shipstream.failover.dev.GroupSpecs.withSites;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.sidecar.FencingDecision.Action;
import io.shipstream.failover.sidecar.FencingDecision.Boot;
import io.shipstream.failover.sidecar.SidecarStatus;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import io.shipstream.failover.testsupport.WriteLoad;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * A running trio of each flavor, MySQL 9.7 and MariaDB (iad primary, pdx and dr replicating from
 * it; every test runs once per flavor), and the watcher, then the group applied with no status and
 * its pods with no role label, as a new user does: the watcher adopts it, sets its routing, writes
 * its conditions, and keeps all of it true afterwards. The topology monitor polls every 500 ms
 * (threshold 3).
 */
class AdoptionIT extends StackPerTest {
  private static final String TAINT = "shipstream.io/db-readonly-orders";

  @FlavorTest
  void aRunningGroupIsAdoptedWithoutAFailedWriteAndItsRoutingIsKeptRight(Flavor flavor) {
    flavor.assumeAvailable();
    stack = FailoverStack.start(work, FailoverStack.Options.adoption().withFlavor(flavor));
    DatabaseServer iad = stack.server("iad");
    // About 200 rows a second, straight to iad, from before the apply to the end.
    try (WriteLoad load = WriteLoad.start(iad::jdbcUrl, Duration.ofMillis(5))) {
      load.awaitAcknowledged(20, Duration.ofSeconds(10));
      // kubectl delete, then kubectl apply of the same group with no status, five times: apply -> Ready.
      List<Long> adopted = new ArrayList<>();
      List<Long> ready = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        MysqlFailoverGroup applied = reapply();
        long started = System.nanoTime();
        Await.until(stack, () -> "iad".equals(status().activeSite()), Duration.ofSeconds(10), "iad adopted");
        adopted.add((System.nanoTime() - started) / 1_000_000);
        Await.until(stack, () -> conditionIs("Ready", "True"), Duration.ofSeconds(10), "Ready=True");
        ready.add((System.nanoTime() - started) / 1_000_000);
        assertThat(applied.getStatus()).isNull();
      }
      System.out.printf("apply -> activeSite recorded %s ms (median %d), -> Ready %s ms (median %d)%n", adopted,
          median(adopted), ready, median(ready));
      Await.until(stack, () -> podsOf(service("mysql-orders-replicas")).size() == 2, Duration.ofSeconds(10),
          "the replicas Service");

      assertThat(podsOf(service("mysql-orders-primary"))).containsExactly("mysql-iad-0");
      assertThat(podsOf(service("mysql-orders-replicas"))).containsExactlyInAnyOrder("mysql-pdx-0", "mysql-dr-0");
      Await.until(stack, () -> tainted("node-pdx-1") && tainted("node-dr-1"), Duration.ofSeconds(10), "taints");
      assertThat(tainted("node-iad-1")).isFalse();
      assertThat(stack.api().eventReasons()).contains("GroupAdopted");
      assertThat(condition("Degraded").getStatus()).isEqualTo("False");
      assertThat(condition("Progressing").getStatus()).isEqualTo("False");
      assertThat(status().observedGeneration()).isEqualTo(stack.api().resource().getMetadata().getGeneration());

      // Drift: each repaired within a poll or two, with an Event.
      repaired("the primary pod's role label removed", () -> kube().pods().inNamespace("shop").withName("mysql-iad-0")
          .edit(p -> {
            p.getMetadata().getLabels().remove("shipstream.io/role");
            return p;
          }), () -> podsOf(service("mysql-orders-primary")).contains("mysql-iad-0"));
      repaired("the replicas Service deleted", () -> kube().services().inNamespace("shop")
          .withName("mysql-orders-replicas").delete(), () -> service("mysql-orders-replicas") != null);
      repaired("a stray taint on the active site", () -> kube().nodes().withName("node-iad-1").edit(n -> {
        List<Taint> taints = new ArrayList<>(Optional.ofNullable(n.getSpec().getTaints()).orElse(List.of()));
        taints.add(new TaintBuilder().withKey(TAINT).withValue("true").withEffect("NoExecute").build());
        n.getSpec().setTaints(taints);
        return n;
      }), () -> !tainted("node-iad-1"));
      assertThat(stack.api().eventReasons()).filteredOn("RoutingRepaired"::equals).hasSizeGreaterThanOrEqualTo(3);

      // Degraded: dr stops applying; it leaves the replicas Service and comes back when it resumes.
      DatabaseServer dr = stack.server("dr");
      dr.stopReplicaSqlThread();
      Await.until(stack, () -> conditionIs("Degraded", "True"), Duration.ofSeconds(10), "Degraded=True");
      assertThat(condition("Degraded").getMessage()).contains("dr");
      Await.until(stack, () -> !podsOf(service("mysql-orders-replicas")).contains("mysql-dr-0"), Duration.ofSeconds(10),
          "dr out of the replicas Service");
      assertThat(condition("Ready").getStatus()).as("the primary still takes writes").isEqualTo("True");
      // MariaDB 10.5 and later take the REPLICA forms too.
      dr.execute("START REPLICA SQL_THREAD");
      Await.until(stack, () -> conditionIs("Degraded", "False"), Duration.ofSeconds(10), "Degraded=False");
      Await.until(stack, () -> podsOf(service("mysql-orders-replicas")).contains("mysql-dr-0"), Duration.ofSeconds(10),
          "dr back in the replicas Service");

      int acked = load.acknowledgedCount();
      load.awaitAcknowledged(acked + 20, Duration.ofSeconds(10));
      assertThat(load.errors()).as("failed writes").isZero();
      assertThat(iad.isReadOnly()).isFalse();
    }
  }

  /**
   * Installing the product on a running group: the watcher serves /active-site but does not adopt
   * yet (its topology monitor off) while the sidecars start next to a primary that takes writes all
   * the while. No sidecar may fence it at boot or after; once the watcher adopts the group, the
   * sidecars learn that iad is active and it stays writable.
   */
  @FlavorTest
  void sidecarsStartedOnANeverActiveGroupDoNotStopTheApplicationsWrites(Flavor flavor) {
    flavor.assumeAvailable();
    stack = FailoverStack.start(work, FailoverStack.Options.adoptionHeld().withFlavor(flavor));
    DatabaseServer iad = stack.server("iad");
    AtomicBoolean everReadOnly = new AtomicBoolean();
    try (WriteLoad load = WriteLoad.start(iad::jdbcUrl, Duration.ofMillis(5))) {
      load.awaitAcknowledged(20, Duration.ofSeconds(10));
      // A fence is SET GLOBAL read_only: sampled every 20 ms, besides the writes it would fail.
      Thread watch = new Thread(() -> {
        while (!Thread.currentThread().isInterrupted()) {
          try {
            if (iad.isReadOnly()) {
              everReadOnly.set(true);
            }
          } catch (RuntimeException e) {
            // A sample that failed says nothing; the writer counts what the server refused.
          }
          Playground.sleep(20);
        }
      }, "iad-read-only-watch");
      watch.setDaemon(true);
      watch.start();
      try {
        // The sidecars boot while the watcher says the group has never had an active site.
        SidecarMesh sidecars = stack.startSidecars(SidecarMesh.Knobs.playground());
        SidecarStatus booted = sidecars.status("iad");
        assertThat(booted.neverActive()).isTrue();
        assertThat(booted.boot()).isEqualTo(Boot.DONE);
        assertThat(booted.leaseTimeout()).as("the spec's lease").isEqualTo(Duration.ofSeconds(2));

        // Three leases without adoption: the answer holds every sidecar's lease.
        Playground.sleep(6_000);
        for (String site : stack.servers().keySet()) {
          assertThat(sidecars.status(site).neverActive()).as(site).isTrue();
          assertThat(sidecars.status(site).lastFenceAt()).as(site + " fenced nothing").isEmpty();
        }
        assertThat(status().activeSite()).isNull();

        // Adopted: the view names iad, which stays the writable primary.
        stack.controlPlane().restartWatcherWithTopologyMonitor();
        Await.until(stack, () -> "iad".equals(status().activeSite()), Duration.ofSeconds(20), "iad adopted");
        Await.until(stack, () -> sidecars.status("iad").view().filter(v -> v.names("iad")).isPresent(),
            Duration.ofSeconds(10),
            "iad's sidecar names iad active");
        Playground.sleep(2_000);
        SidecarStatus adopted = sidecars.status("iad");
        assertThat(adopted.neverActive()).isFalse();
        assertThat(adopted.lastAction()).isEqualTo(Action.NONE);
        assertThat(adopted.lastFenceAt()).isEmpty();

        int acked = load.acknowledgedCount();
        load.awaitAcknowledged(acked + 20, Duration.ofSeconds(10));
      } finally {
        watch.interrupt();
      }
      assertThat(load.errors()).as("failed writes: %s", load).isZero();
      assertThat(everReadOnly).as("iad was read-only at some point").isFalse();
      assertThat(iad.isReadOnly()).isFalse();
      assertThat(stack.writableSites()).containsExactly("iad");
    }
  }

  @FlavorTest
  void twoWritablePrimariesAtTheStartAreForAHumanAndNothingIsFenced(Flavor flavor) {
    flavor.assumeAvailable();
    stack = FailoverStack.start(work, FailoverStack.Options.adoption().withFlavor(flavor));
    Await.until(stack, () -> "iad".equals(status().activeSite()), Duration.ofSeconds(10), "iad adopted");
    // The same group as applied again on servers that are both writable.
    stack.server("pdx").setReadOnly(false);
    // Both seen writable by the monitor's polls, then the group applied anew with no status.
    Await.until(stack, () -> status().sites() != null && status().sites().stream()
        .filter(site -> site.name().equals("pdx")).anyMatch(site -> "WRITABLE".equals(site.state())),
        Duration.ofSeconds(10), "pdx seen writable");
    reapply();

    Await.until(stack, () -> conditionIs("Ready", "False") && "SeveralWritable".equals(condition("Ready").getReason()),
        Duration.ofSeconds(10), "Ready=False/SeveralWritable");
    assertThat(condition("Ready").getMessage()).contains("iad and pdx")
        .contains("bloodraven.shipstream.io/adopt=<site>");
    assertThat(stack.api().eventMessages("AdoptionBlocked")).singleElement().asString().contains("both writable");
    Playground.sleep(2000);
    assertThat(stack.server("iad").isReadOnly()).as("nothing fenced").isFalse();
    assertThat(stack.server("pdx").isReadOnly()).isFalse();
    assertThat(status().activeSite()).isNull();

    // A human names the primary.
    stack.api().setAnnotation("bloodraven.shipstream.io/adopt", "pdx");
    Await.until(stack, () -> "pdx".equals(status().activeSite()), Duration.ofSeconds(10), "pdx adopted as named");
  }

  // MariaDB only (CI stays under 20 minutes): what is tested is the watcher's reading of the
  // Kubernetes side, which no statement to a server decides; the flavor checks are GroupFlavorsTest's.
  @Test
  void invalidSpecsAreNotReadyNamingEachProblemAndTouchNothing() {
    Flavor flavor = Flavor.MARIADB;
    stack = FailoverStack.start(work, FailoverStack.Options.adoption().withFlavor(flavor));
    Await.until(stack, () -> conditionIs("Ready", "True"), Duration.ofSeconds(15), "Ready=True");
    MysqlFailoverGroupSpec good = stack.api().resource().getSpec();
    List<Object[]> cases = List.of(
        new Object[] {"duplicate site names", (UnaryOperator<MysqlFailoverGroupSpec>) s -> withSites(s,
            List.of(s.sites().get(0), s.sites().get(1), rename(s.sites().get(2), "iad"))), "is used twice"},
        new Object[] {"fewer than two primary-candidates", (UnaryOperator<MysqlFailoverGroupSpec>) s -> withSites(s,
            List.of(s.sites().get(0), role(s.sites().get(1), SiteSpec.ROLE_DR_ONLY), s.sites().get(2))),
            "at least 2 sites must have role primary-candidate"},
        new Object[] {"a bad duration", (UnaryOperator<MysqlFailoverGroupSpec>) s -> new MysqlFailoverGroupSpec(
            s.sites(), s.credentialsSecretRef(), "soon", s.failureThreshold(), s.recoveryThreshold(),
            s.failoverCooldown(), s.connectionDrainTimeout(), s.plannedFailover(), s.splitBrainPolicy(), s.dns(),
            s.sidecar(), s.dragonfly()), "pollInterval"},
        new Object[] {"a lease not above twice the peer check",
            (UnaryOperator<MysqlFailoverGroupSpec>) s ->
            withSidecar(s,
                new MysqlFailoverGroupSpec.SidecarSpec("4s", "2s")),
            "must be more than twice"},
        new Object[] {"an unknown site in sitePriorities",
            (UnaryOperator<MysqlFailoverGroupSpec>) s ->
            new MysqlFailoverGroupSpec(s.sites(), s.credentialsSecretRef(),
                s.pollInterval(), s.failureThreshold(),
                s.recoveryThreshold(), s.failoverCooldown(), s.connectionDrainTimeout(), s.plannedFailover(),
                new MysqlFailoverGroupSpec.SplitBrainPolicy(List.of("sfo")), s.dns(), s.sidecar(), s.dragonfly()),
            "unknown site 'sfo'"},
        new Object[] {"a zero failure threshold",
            (UnaryOperator<MysqlFailoverGroupSpec>) s ->
            new MysqlFailoverGroupSpec(s.sites(), s.credentialsSecretRef(),
                s.pollInterval(), 0,
                s.recoveryThreshold(), s.failoverCooldown(), s.connectionDrainTimeout(), s.plannedFailover(),
                s.splitBrainPolicy(), s.dns(), s.sidecar(), s.dragonfly()),
            "failureThreshold"},
        new Object[] {"a hook URL that is not http(s)",
            (UnaryOperator<MysqlFailoverGroupSpec>) s ->
            new MysqlFailoverGroupSpec(s.sites(), s.credentialsSecretRef(),
                s.pollInterval(), s.failureThreshold(),
                s.recoveryThreshold(), s.failoverCooldown(), s.connectionDrainTimeout(), s.plannedFailover(),
                s.splitBrainPolicy(), s.dns(), s.sidecar(), s.dragonfly(), s.emergencyFailover(), s.minSourceSilence(),
                s.semiSync(), new MysqlFailoverGroupSpec.HooksSpec(
                    new MysqlFailoverGroupSpec.HookSpec("ftp://ops.example.com/pre", null, null), null)),
            "hooks.preFailover.url 'ftp://ops.example.com/pre' must be an http:// or https:// URL"});
    for (Object[] c : cases) {
      @SuppressWarnings("unchecked")
      UnaryOperator<MysqlFailoverGroupSpec> change = (UnaryOperator<MysqlFailoverGroupSpec>) c[1];
      setSpec(change.apply(good));
      Await.until(stack, () -> conditionIs("Ready", "False") && "InvalidSpec".equals(condition("Ready").getReason())
          && condition("Ready").getMessage().contains((String) c[2]), Duration.ofSeconds(10),
          "InvalidSpec for " + c[0]);
      assertThat(stack.api().eventMessages("InvalidSpec")).as(c[0].toString())
          .anySatisfy(m -> assertThat(m).contains((String) c[2]));
      assertThat(status().activeSite()).isEqualTo("iad");
      assertThat(stack.writableSites()).as("nothing fenced or promoted for " + c[0]).containsExactly("iad");
      setSpec(good);
      Await.until(stack, () -> conditionIs("Ready", "True"), Duration.ofSeconds(10), "Ready again after " + c[0]);
    }
  }

  // MariaDB only (CI stays under 20 minutes): what is tested is the watcher's reading of the
  // Kubernetes side, which no statement to a server decides; the flavor checks are GroupFlavorsTest's.
  @Test
  void podsThatDoNotTolerateTheTaintMeanNothingIsTainted() {
    Flavor flavor = Flavor.MARIADB;
    stack = FailoverStack.start(work, FailoverStack.Options.adoption().withFlavor(flavor));
    // dr's MySQL pod replaced by one without the toleration, before the watcher gets to taint.
    kube().pods().inNamespace("shop").withName("mysql-dr-0").delete();
    stack.api().mock().createPod("mysql-dr-0", Map.of("app", "mysql", "site", "dr"), false);

    Await.until(stack,
        () -> conditionIs("Degraded", "True") && "RoutingIncomplete".equals(condition("Degraded").getReason()),
        Duration.ofSeconds(15), "Degraded=True/RoutingIncomplete");
    assertThat(condition("Degraded").getMessage()).contains("mysql-dr-0").contains("do not tolerate");
    assertThat(stack.api().eventReasons()).contains("RoutingIncomplete");
    assertThat(tainted("node-pdx-1") || tainted("node-dr-1") || tainted("node-iad-1")).as("nothing tainted").isFalse();
  }

  // --- helpers -------------------------------------------------------------------------------

  /** kubectl delete and kubectl apply of the group as it is, without its status. */
  private MysqlFailoverGroup reapply() {
    MysqlFailoverGroup current = stack.api().resource();
    kube().resources(MysqlFailoverGroup.class).inNamespace("shop").withName("orders").delete();
    Await.until(stack,
        () -> kube().resources(MysqlFailoverGroup.class).inNamespace("shop").withName("orders").get() == null,
        Duration.ofSeconds(10), "the group deleted");
    MysqlFailoverGroup fresh = new MysqlFailoverGroup();
    fresh.getMetadata().setName("orders");
    fresh.getMetadata().setNamespace("shop");
    fresh.setSpec(current.getSpec());
    return kube().resources(MysqlFailoverGroup.class).inNamespace("shop").resource(fresh).create();
  }

  private static long median(List<Long> values) {
    return values.stream().sorted().toList().get(values.size() / 2);
  }

  private void repaired(String what, Runnable drift, BooleanSupplier repaired) {
    int before = stack.api().eventReasons().size();
    long started = System.nanoTime();
    drift.run();
    Await.until(stack, repaired, Duration.ofSeconds(5), "repair of " + what);
    System.out.printf("%s: repaired in %d ms%n", what, (System.nanoTime() - started) / 1_000_000);
    Await.until(stack,
        () -> stack.api().eventReasons().subList(before, stack.api().eventReasons().size()).contains("RoutingRepaired"),
        Duration.ofSeconds(5), "a RoutingRepaired Event for " + what);
  }

  private MysqlFailoverGroupStatus status() {
    MysqlFailoverGroupStatus s = stack.api().resource().getStatus();
    return s == null ? MysqlFailoverGroupStatus.empty() : s;
  }

  private Condition condition(String type) {
    List<Condition> all = status().conditions();
    return all == null ? null : all.stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
  }

  private boolean conditionIs(String type, String value) {
    Condition c = condition(type);
    return c != null && value.equals(c.getStatus());
  }

  private KubernetesClient kube() {
    return stack.api().client();
  }

  private Service service(String name) {
    return kube().services().inNamespace("shop").withName(name).get();
  }

  /** The pods a Service's selector picks, as the endpoints controller would. */
  private List<String> podsOf(Service service) {
    if (service == null) {
      return List.of();
    }
    Map<String, String> selector = service.getSpec().getSelector();
    return kube().pods().inNamespace("shop").list().getItems().stream()
        .filter(p -> p.getMetadata().getLabels() != null && p.getMetadata().getLabels().entrySet()
            .containsAll(selector.entrySet()))
        .map(Pod::getMetadata).map(m -> m.getName()).sorted().toList();
  }

  private boolean tainted(String node) {
    Node n = kube().nodes().withName(node).get();
    return n.getSpec() != null && n.getSpec().getTaints() != null
        && n.getSpec().getTaints().stream().anyMatch(t -> TAINT.equals(t.getKey()));
  }

  private void setSpec(MysqlFailoverGroupSpec spec) {
    // As kubectl edit would, reading again when the watcher wrote the status in between.
    stack.api().editSpec(current -> spec);
  }

  private static SiteSpec rename(SiteSpec s, String name) {
    return new SiteSpec(name, s.role(), s.zone(), s.mysql(), s.podSelector(), s.taintNodeSelector(), s.lbIP(),
        s.sidecar(), s.dragonfly());
  }

  private static SiteSpec role(SiteSpec s, String role) {
    return new SiteSpec(s.name(), role, s.zone(), s.mysql(), s.podSelector(), s.taintNodeSelector(), s.lbIP(),
        s.sidecar(), s.dragonfly());
  }

}
