package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.shipstream.failover.model.SidecarLiveness;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.topology.PauseAnnotation;
import io.shipstream.failover.sidecar.SidecarStatus;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.testsupport.ReplicaStatus;
import io.shipstream.failover.testsupport.TcpProxy;
import io.shipstream.failover.testsupport.WriteLoad;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Safety that does not rest on a guard being alive (issue 30), on real servers: a sidecar whose
 * fencing loop or whole JVM stops, a malformed group, the group informer taken down, a primary
 * restarted inside the debounce, an old primary returning with transactions the new one lacks,
 * and a replica made writable by hand.
 */
class HungGuardIT extends StackPerTest {
  // --- hung fencing loop ---

  /**
   * A fencing loop that hangs while its HTTP threads answer: the sidecar of a replica and of the
   * primary each run as their own JVM, and their tick thread is suspended (as a deadlock or a call
   * stuck past its timeout would hold it). Nothing fences for them any more: pdx is then made
   * writable by hand, iad is cut off from the watcher and every peer, and both stay writable. Their
   * {@code /health} fails once no tick has completed within the bound, the dev kubelet (the pod's
   * liveness probe, the chart's settings) restarts them, and the restarted sidecar fences its
   * server at boot: pdx's because its view names iad, iad's because it cannot learn a view.
   */
  @Test
  void aFencingLoopThatHangsWhileItsHttpThreadAnswersIsRestartedAndFencesAtBoot() throws Exception {
    start(Flavor.MARIADB, FailoverStack.Options.threeSites());
    SidecarMesh.Knobs knobs = SidecarMesh.Knobs.playground();
    SidecarMesh mesh = stack.startSidecars(knobs, Set.of("iad", "pdx"));
    DevKubelet kubelet = mesh.kubelet().orElseThrow();
    SidecarLiveness.Probe probe = kubelet.probe(DevKubelet.podOf("iad")).orElseThrow();
    assertThat(probe).as("the pod's probe, the chart's settings").isEqualTo(SidecarLiveness.Probe.CHART);
    Duration bound = SidecarLiveness.restartAndFenceBound(probe, knobs.peerCheckInterval());

    HungLoop pdx = hangRestartAndFence(mesh, kubelet, "pdx", () -> stack.server("pdx").setReadOnly(false));
    assertThat(mesh.statusJson("pdx").path("view").path("activeSite").asText()).isEqualTo("iad");

    HungLoop iad = hangRestartAndFence(mesh, kubelet, "iad", () -> mesh.partition("iad"));
    assertThat(mesh.statusJson("iad").path("view").isNull()).as("iad's new sidecar never learned a view").isTrue();

    for (HungLoop hung : new HungLoop[] {pdx, iad}) {
      System.out.printf("hung fencing loop of %s: hang -> /health 503 %d ms (bound %d ms after the last tick); "
          + "-> restart %d ms; -> fenced %d ms (boot fence %d ms after the restart, its first tick %d ms after the "
          + "process start; documented bound %d ms); whole %d ms of %d ms allowed%n", hung.site,
          hung.healthFailed().toMillis(), hung.healthBound().toMillis(), hung.restarted().toMillis(),
          hung.fenced().toMillis(), hung.bootFence().toMillis(), hung.processStartToFirstTick().toMillis(),
          SidecarLiveness.BOOT_FENCE_BOUND.toMillis(), hung.unguarded().toMillis(), bound.toMillis());
      assertThat(hung.unguarded()).as("from the last completed tick to the boot fence, %s", hung.site)
          .isLessThanOrEqualTo(bound);
      assertThat(hung.bootFence()).as("boot fence of %s", hung.site)
          .isLessThanOrEqualTo(SidecarLiveness.BOOT_FENCE_BOUND);
    }
    // The restarted sidecars tick again: nothing restarts them a second time.
    Playground.sleep(probe.period().multipliedBy(probe.failureThreshold() + 1).toMillis());
    assertThat(kubelet.restarts("pdx")).hasSize(1);
    assertThat(kubelet.restarts("iad")).hasSize(1);
    assertThat(health(mesh, "iad").statusCode()).isEqualTo(200);
    assertThat(stack.server("pdx").isReadOnly()).isTrue();
    assertThat(stack.server("iad").isReadOnly()).isTrue();
  }

  /**
   * What happened to one site's sidecar, on the test's clock: the last tick its loop completed, when
   * the loop was hung, when {@code /health} first failed, when the kubelet restarted it and when
   * its server was seen read-only.
   */
  private record HungLoop(String site, Instant lastTick, Instant hungAt, Instant healthFailedAt,
      Duration healthBound, Instant restartedAt, Instant fencedAt, Duration processStartToFirstTick) {
    Duration healthFailed() {
      return Duration.between(hungAt, healthFailedAt);
    }

    Duration restarted() {
      return Duration.between(healthFailedAt, restartedAt);
    }

    Duration fenced() {
      return Duration.between(restartedAt, fencedAt);
    }

    Duration bootFence() {
      return fenced();
    }

    Duration unguarded() {
      return Duration.between(lastTick.isBefore(hungAt) ? lastTick : hungAt, fencedAt);
    }
  }

  private HungLoop hangRestartAndFence(SidecarMesh mesh, DevKubelet kubelet, String site, Runnable thenMakeWritable)
      throws Exception {
    DatabaseServer server = stack.server(site);
    SidecarProcess process = mesh.process(site);
    long pid = process.pid();
    assertThat(health(mesh, site).statusCode()).isEqualTo(200);

    Instant hungAt = Instant.now();
    process.hangFencingLoop();
    JsonNode status = mesh.statusJson(site);
    Instant lastTick = Instant.parse(status.path("lastTickCompletedAt").asText());
    Duration healthBound = Duration.ofMillis(status.path("healthBoundMillis").asLong());
    assertThat(healthBound).isEqualTo(SidecarLiveness.healthBound(mesh.knobs().peerCheckInterval()));
    thenMakeWritable.run();
    assertThat(server.isReadOnly()).isFalse();

    HttpResponse<String> failed = awaitHealth(mesh, site, 503, healthBound.plusSeconds(10));
    Instant healthFailedAt = Instant.now();
    assertThat(failed.body()).startsWith("fencing loop stalled: no tick completed for ")
        .contains("(bound " + healthBound.toMillis() + " ms)");
    assertThat(server.isReadOnly()).as("nothing guarded %s while its loop hung", site).isFalse();
    assertThat(mesh.statusJson(site).path("lastTickCompletedAt").asText())
        .as("/status answers from the hung JVM, with the same last tick").isEqualTo(lastTick.toString());

    DevKubelet.Restart restart = kubelet.awaitRestart(site, 1, probe(kubelet, site).restartWithin().plusSeconds(10));
    assertThat(restart.reason()).contains("fencing loop stalled");
    assertThat(process.pid()).as("a new JVM").isNotEqualTo(pid);
    Instant restartedAt = process.startedAt();

    Instant fencedAt = awaitReadOnly(server, SidecarLiveness.BOOT_FENCE_BOUND.plusSeconds(10));
    awaitHealth(mesh, site, 200, Duration.ofSeconds(10));
    JsonNode after = mesh.statusJson(site);
    assertThat(after.path("boot").asText()).isEqualTo("FENCED_BY_BOOT");
    assertThat(after.path("lastFenceAt").isNull()).isFalse();
    return new HungLoop(site, lastTick, hungAt, healthFailedAt, healthBound, restartedAt, fencedAt,
        Duration.ofMillis(after.path("processStartToFirstTickMillis").asLong()));
  }

  private static SidecarLiveness.Probe probe(DevKubelet kubelet, String site) {
    return kubelet.probe(DevKubelet.podOf(site)).orElseThrow();
  }

  private static Instant awaitReadOnly(DatabaseServer server, Duration timeout) {
    long until = System.nanoTime() + timeout.toNanos();
    while (true) {
      try {
        if (server.isReadOnly()) {
          return Instant.now();
        }
      } catch (RuntimeException e) {
        // Not answering for a moment: look again.
      }
      if (System.nanoTime() > until) {
        throw new AssertionError(server.name() + " was not fenced within " + timeout);
      }
      Playground.sleep(50);
    }
  }

  private static HttpResponse<String> awaitHealth(SidecarMesh mesh, String site, int code, Duration timeout)
      throws InterruptedException {
    long until = System.nanoTime() + timeout.toNanos();
    String last = "no answer";
    while (System.nanoTime() < until) {
      try {
        HttpResponse<String> response = health(mesh, site);
        if (response.statusCode() == code) {
          return response;
        }
        last = response.statusCode() + " " + response.body();
      } catch (IOException e) {
        last = e.toString();
      }
      Thread.sleep(50);
    }
    throw new AssertionError(site + "'s /health did not answer " + code + " within " + timeout + "; last: " + last);
  }

  private static HttpResponse<String> health(SidecarMesh mesh, String site) throws IOException, InterruptedException {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + mesh.port(site)
        + SidecarLiveness.HEALTH_PATH)).timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.ofString());
  }

  // --- end hung fencing loop ---

  // --- fresh evidence ---

  /**
   * Case (5): {@code kill -9} of iad's server and a restart at once with the same command line
   * (writable), inside the debounce (20 polls of 500 ms), while the replicas' IO threads still
   * show the connection error of the kill: they retry every 30 s here, so the error outlives iad's
   * return by far. Once iad answers, nothing fails it over: the watcher's poll after the replicas
   * answered, its poll right before a start and the runbook's look before its fence each find it
   * answering. A failover decided while iad was really down is possible only if all three fall
   * inside the restart, and then it must end {@code PrimaryAnswered} with nothing fenced.
   */
  @Test
  void aPrimaryKilledAndRestartedWritableAtOnceIsNotFailedOverOnItsReplicasStaleErrors() {
    FailoverStack.Options emergency = FailoverStack.Options.emergency();
    start(Flavor.MARIADB, new FailoverStack.Options(emergency.sites(), emergency.drOnlySites(),
        emergency.failoverCooldown(), emergency.maxLagWait(), emergency.pollInterval(), 20, true));
    DatabaseServer iad = stack.server("iad");
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere)) {
      load.awaitAcknowledged(50, Duration.ofSeconds(30));
      for (String site : List.of("pdx", "dr")) {
        retryEvery30Seconds(stack.server(site));
      }
      long killed = System.nanoTime();
      iad.kill9();
      iad.restart();
      Instant answeredAt = Instant.now();
      long answeredMs = (System.nanoTime() - killed) / 1_000_000;
      ReplicaStatus pdxSees = stack.server("pdx").replicaStatus();
      System.out.printf("kill -9 of iad, restarted writable and answering in %d ms; pdx's IO thread then: %s (%s)%n",
          answeredMs, pdxSees.ioRunning(), pdxSees.lastIoError());
      assertThat(pdxSees.lastIoError()).as("pdx still shows the connection error of the kill").isNotEmpty();

      // Long enough for a wrongly started failover to promote pdx (about 2 s with these knobs).
      Playground.sleep(6000);
      int acked = load.acknowledgedCount();
      load.awaitAcknowledged(acked + 50, Duration.ofSeconds(30));

      List<String> reasons = stack.api().eventReasons();
      EmergencyFailoverStatus run = stack.api().resource().getStatus().emergencyFailover();
      System.out.printf("Events: %s; emergency failover: %s%n", reasons, run);
      if (reasons.contains("FailoverStarted") && !"PrimaryAnswered".equals(run.reason())) {
        // Every look of the watcher and of the runbook fell inside the restart, so iad was down at
        // each: a failover of a dead primary, decided and started before iad answered again, which
        // is no stale-evidence decision. What must never happen is a start after it answered.
        assertThat(Instant.parse(run.startTime())).as("a failover started only while iad was really down")
            .isBefore(answeredAt);
        System.out.printf("iad was down through every check (restart %d ms): failed over before it answered%n",
            answeredMs);
        return;
      }
      if (reasons.contains("FailoverStarted")) {
        // Decided while iad was still down: the runbook's look before its fence found it back.
        assertThat(run.oldPrimaryFenced()).as("nothing fenced").isNotEqualTo(Boolean.TRUE);
        assertThat(reasons).contains("FailoverRejected").doesNotContain("FailoverExecuted", "FailoverFailed");
        assertThat(stack.api().resource().getStatus().lastFailover()).as("no cooldown").isNull();
      }
      assertThat(reasons).doesNotContain("FailoverExecuted");
      assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo("iad");
      assertThat(iad.isReadOnly()).as("iad takes writes").isFalse();
      assertThat(stack.server("pdx").isReadOnly()).as("pdx was never promoted").isTrue();
    }
  }

  /** The replica retries its connection to the source every 30 s (the product's own channels retry every 2 s). */
  private void retryEvery30Seconds(DatabaseServer replica) {
    replica.execute("STOP SLAVE", "CHANGE MASTER TO MASTER_CONNECT_RETRY = 30", "START SLAVE");
    Await.until(stack, () -> replica.replicaStatus().running(), Duration.ofSeconds(30),
        replica.name() + " replicating again");
  }

  // --- end fresh evidence ---

  // --- loss and fence ---

  /**
   * Case 6a: the old primary comes back holding transactions the new primary never received.
   * The replicas' IO threads are stopped (no replica can vouch, nothing more reaches them), iad
   * commits five transactions alone and is killed; the emergency failover promotes pdx, and iad is
   * restarted (read-only, as servers are configured to start). The watcher finds iad's own
   * transactions and records them as the group's loss: status.lostTransactions, a TransactionsLost
   * Warning and bloodraven_transactions_lost_confirmed, once.
   */
  @Test
  void anOldPrimaryReturningWithTransactionsTheNewPrimaryLacksIsRecordedAsALoss() {
    start(Flavor.MARIADB, FailoverStack.Options.emergency());
    stack.startSidecars(SidecarMesh.Knobs.playground());
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    pdx.awaitCaughtUpWith(iad, Duration.ofSeconds(30));
    pdx.stopReplicaIoThread();
    stack.server("dr").stopReplicaIoThread();
    for (int id = 1; id <= 5; id++) {
      iad.execute("INSERT INTO appdb.writes (id, at) VALUES (" + (900_000 + id) + ", NOW(6))");
    }
    String iadGtid = iad.gtidExecuted();
    iad.kill9();

    Await.until(stack, () -> "Succeeded".equals(stack.api().emergencyPhase()), Duration.ofSeconds(90),
        "the emergency failover to pdx");
    var failover = stack.api().resource().getStatus().emergencyFailover();
    System.out.printf("failover: transactionsLost %s (%s); message: %s%n", failover.transactionsLost(),
        failover.lossComputedFrom(), failover.message());
    assertThat(failover.lossComputedFrom()).as("the failover's count names what it compared").isNotBlank();
    // iad could not be read at the fence: no bare "0 transactions lost", whatever the watcher last saw of it.
    assertThat(failover.message()).contains(" of the transactions the survivors had seen were lost (iad could not be "
        + "read at the fence");

    iad.restartFenced();
    Await.until(stack, () -> lostOn("iad") != null, Duration.ofSeconds(60), "status.lostTransactions for iad");
    MysqlFailoverGroupStatus.LostTransactions lost = lostOn("iad");
    assertThat(lost.count()).isEqualTo(5);
    assertThat(lost.activeSite()).isEqualTo("pdx");
    assertThat(lost.failover()).isEqualTo(failover.startTime());
    assertThat(iadGtid).as("iad's own transactions, as it committed them").contains(lost.gtid().split("\\.\\.")[1]);
    assertThat(stack.api().eventMessages("TransactionsLost")).singleElement().asString()
        .startsWith("site 'iad' came back holding 5 transaction(s) " + lost.gtid()
            + " that the active site 'pdx' never received");
    // The gauge follows the status on the watcher's next evaluation.
    String series = "bloodraven_transactions_lost_confirmed{group=\"" + stack.api().ref() + "\",site=\"iad\"} 5.0";
    Await.until(stack, () -> scrapeWatcher().contains(series), Duration.ofSeconds(10), series);
    assertThat(iad.isReadOnly()).as("iad stays read-only with them").isTrue();

    // Recorded once per divergence, not once per poll.
    Playground.sleep(2000);
    assertThat(stack.api().resource().getStatus().lostTransactions()).hasSize(1);
    assertThat(stack.api().eventMessages("TransactionsLost")).hasSize(1);
  }

  /**
   * Case 6b: a DBA's {@code SET GLOBAL read_only=0} on pdx, a read-only replica, while iad is
   * active. pdx's sidecar sees it writable under a view naming iad, asks the watcher for a view
   * read from the API server (no failover to pdx recorded there) and fences it on the same tick,
   * instead of waiting the old 1.5 s grace; the watcher writes SiteFencedBySidecar.
   */
  @Test
  void aReplicaMadeWritableByHandIsFencedWithinOneRoundTripToTheWatcherAndATick() {
    start(Flavor.MARIADB, FailoverStack.Options.emergency());
    SidecarMesh sidecars = stack.startSidecars(SidecarMesh.Knobs.playground());
    DatabaseServer pdx = stack.server("pdx");
    Await.until(stack, () -> sidecars.steady("pdx") && pdx.isReadOnly(), Duration.ofSeconds(30),
        "pdx's sidecar to be steady and pdx read-only");

    long writable = System.nanoTime();
    pdx.setReadOnly(false);
    long readOnlyAgain = 0;
    long until = writable + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < until) {
      if (pdx.isReadOnly()) {
        readOnlyAgain = System.nanoTime();
        break;
      }
      Playground.sleep(5);
    }
    assertThat(readOnlyAgain).as("pdx read-only again").isPositive();
    long millis = (readOnlyAgain - writable) / 1_000_000;
    System.out.printf("pdx writable by hand for %d ms (sidecar tick %d ms, the old grace alone %d ms)%n", millis,
        sidecars.knobs().peerCheckInterval().toMillis(), sidecars.knobs().peerCheckInterval().toMillis() + 1000);

    // The server is read-only the moment the fence's statement returns; the sidecar's status shows
    // the fence once its tick has finished (the session kill comes after the statement).
    Await.until(stack, () -> sidecars.status("pdx").lastFence().isPresent(), Duration.ofSeconds(10),
        "pdx's sidecar to report its fence");
    SidecarStatus.LastFence fence = sidecars.status("pdx").lastFence().orElseThrow();
    assertThat(fence.rule()).isEqualTo("rule1");
    assertThat(fence.reason()).as("fenced on the fresh view, not at the end of the grace")
        .contains("the watcher's fresh view, read from the API server after that, records no failover to pdx");
    Await.until(stack, () -> !stack.api().eventMessages("SiteFencedBySidecar").isEmpty(), Duration.ofSeconds(45),
        "the SiteFencedBySidecar Event");
    assertThat(stack.api().eventMessages("SiteFencedBySidecar")).singleElement().asString()
        .startsWith("its sidecar fenced the server of site 'pdx' (rule1)").contains("the active site is iad");
    // When the watcher saw both writable, its Warning says what was done, not "alert only".
    List<String> splitBrain = stack.api().eventMessages("SplitBrainDetected");
    splitBrain.forEach(m -> assertThat(m).contains("the sidecar of site 'pdx' fences it (rule 1)")
        .doesNotContain("a human must choose"));
    assertThat(stack.writableSites()).containsExactly("iad");
  }

  private MysqlFailoverGroupStatus.LostTransactions lostOn(String site) {
    List<MysqlFailoverGroupStatus.LostTransactions> lost = stack.api().resource().getStatus().lostTransactions();
    return lost == null ? null : lost.stream().filter(l -> site.equals(l.site())).findFirst().orElse(null);
  }

  private String scrapeWatcher() {
    var address = stack.controlPlane().watcherAddress().orElseThrow();
    try {
      HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + address.getPort() + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(200);
      return response.body();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  // --- end loss and fence ---

  // --- informer ---

  private static final Duration INFORMER_WAIT = Duration.ofSeconds(60);
  private static final String MALFORMED = "malformed";

  /**
   * (3) A second group created with an unknown spec field and a badly typed value (as {@code
   * kubectl create --validate=false} makes one) next to {@code orders}: it is {@code
   * Ready=False/InvalidSpec} with a Warning naming the field, and the watcher still sees every
   * change of {@code orders}: its pause is honoured (a planned failover refused) and, resumed, a
   * {@code kill -9} of its primary is failed over. Before, the typed informer stopped on the
   * malformed object ({@code watch failed ..., will stop}) and saw none of this.
   */
  @Test
  void aMalformedGroupDoesNotBlindTheWatcherToAnotherGroupsPauseAndFailover() throws Exception {
    start(Flavor.MARIADB, FailoverStack.Options.emergency());
    createMalformedGroup(stack.api().client());

    Await.until(stack, () -> "InvalidSpec".equals(malformedReadyReason()), INFORMER_WAIT,
        "Ready=False/InvalidSpec on the malformed group");
    assertThat(malformedEvents("InvalidSpec")).isNotEmpty().allSatisfy(e -> {
      assertThat(e.getType()).isEqualTo("Warning");
      assertThat(e.getMessage()).contains("spec.failureThreshold: cannot be read").contains("\"three\"");
    });

    // Seen: the pause of orders; honoured: a planned failover is refused while it holds.
    stack.api().setAnnotation(PauseAnnotation.ANNOTATION, "true");
    Await.until(stack, () -> stack.api().condition("Paused").map(c -> "True".equals(c.getStatus())).orElse(false),
        INFORMER_WAIT, "Paused=True on orders");
    String before = Instant.now().toString();
    stack.api().annotate("pdx");
    PlannedFailoverStatus refused = stack.waits().plannedEnd(before, INFORMER_WAIT);
    assertThat(refused.phase()).isEqualTo("Failed");
    assertThat(refused.reason()).isEqualTo("Paused");
    assertThat(watcherGet("/readyz", false).statusCode()).as("the watcher is ready").isEqualTo(200);

    stack.api().setAnnotation(PauseAnnotation.ANNOTATION, null);
    Await.until(stack, () -> stack.api().condition("Paused").map(c -> "False".equals(c.getStatus())).orElse(false),
        INFORMER_WAIT, "Paused=False on orders");
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    pdx.awaitCaughtUpWith(iad, INFORMER_WAIT);
    long killedAt = System.nanoTime();
    iad.kill9();
    Await.until(stack, () -> "Succeeded".equals(stack.api().emergencyPhase()), INFORMER_WAIT,
        "the emergency failover of orders");
    System.out.printf("malformed group beside: kill -9 of orders' primary to Succeeded: %d ms%n",
        Duration.ofNanos(System.nanoTime() - killedAt).toMillis());
    assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo("pdx");
    assertThat(pdx.isReadOnly()).isFalse();
    assertThat(malformedReadyReason()).as("still InvalidSpec, nothing else").isEqualTo("InvalidSpec");
  }

  /**
   * (4) The watcher's path to the API server refused (a {@link TcpProxy} in front of the mock for
   * the watcher's client only): while its informer is not watching, {@code /readyz} is not ready,
   * {@code /active-site} answers 503 rather than a view that may be stale, and
   * {@code bloodraven_watcher_watching} is 0; healed, it watches again, serves the view, and acts
   * on a change made while it was cut off (orders paused meanwhile: Paused=True).
   */
  @Test
  void whileTheWatchersWatchIsRefusedItIsNotReadyAndServesNoViewThenCatchesUp() throws Exception {
    start(Flavor.MARIADB, FailoverStack.Options.emergency());
    TcpProxy path = stack.controlPlane().routeWatcherThroughProxy();
    awaitWatcher("/readyz", false, r -> r.statusCode() == 200, "ready through the proxy");
    awaitWatcher(ACTIVE_SITE, true, r -> r.statusCode() == 200 && r.body().contains("\"activeSite\":\"iad\""),
        "/active-site naming iad");

    long cut = System.nanoTime();
    path.refuse();
    awaitWatcher("/readyz", false, r -> r.statusCode() == 503, "not ready once its watch is refused");
    long notReadyMillis = Duration.ofNanos(System.nanoTime() - cut).toMillis();
    HttpResponse<String> down = watcherGet(ACTIVE_SITE, true);
    assertThat(down.statusCode()).isEqualTo(503);
    assertThat(down.body()).contains("not watching the groups");
    assertThat(watcherGet("/metrics", false).body()).contains("bloodraven_watcher_watching 0.0");

    // A change the watcher cannot see now, made through the test's own path to the API server.
    stack.api().setAnnotation(PauseAnnotation.ANNOTATION, "true");
    Playground.sleep(1_000);
    assertThat(watcherGet("/readyz", false).statusCode()).as("still not ready while cut off").isEqualTo(503);
    assertThat(watcherGet(ACTIVE_SITE, true).statusCode()).isEqualTo(503);

    long healed = System.nanoTime();
    path.heal();
    awaitWatcher("/readyz", false, r -> r.statusCode() == 200, "ready again once healed");
    long readyMillis = Duration.ofNanos(System.nanoTime() - healed).toMillis();
    awaitWatcher(ACTIVE_SITE, true, r -> r.statusCode() == 200 && r.body().contains("\"activeSite\":\"iad\""),
        "/active-site naming iad again");
    Await.until(stack, () -> stack.api().condition("Paused").map(c -> "True".equals(c.getStatus())).orElse(false),
        INFORMER_WAIT, "Paused=True: the pause made while the watcher was cut off is acted on");
    long pausedMillis = Duration.ofNanos(System.nanoTime() - healed).toMillis();
    System.out.printf("watcher's API path refused: not ready after %d ms; healed: ready after %d ms, "
        + "the pause made meanwhile acted on after %d ms%n", notReadyMillis, readyMillis, pausedMillis);
  }

  private static final String ACTIVE_SITE = "/active-site?namespace=" + MockCluster.NAMESPACE + "&group="
      + FailoverStack.GROUP_NAME;
  private static final HttpClient WATCHER_HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /** Created untyped, as kubectl create --validate=false would: the mock, like that, takes any JSON. */
  private static void createMalformedGroup(KubernetesClient client) {
    String json = """
        {"apiVersion":"%s","kind":"MysqlFailoverGroup","metadata":{"name":"%s","namespace":"%s"},
         "spec":{"sites":[{"name":"a","mysql":{"host":"127.0.0.1","port":1}},
                          {"name":"b","mysql":{"host":"127.0.0.1","port":2}}],
                 "frobnicate":true,"failureThreshold":"three"}}""".formatted(MysqlFailoverGroup.API_VERSION, MALFORMED,
        MockCluster.NAMESPACE);
    client.genericKubernetesResources(ResourceDefinitionContext.fromResourceType(MysqlFailoverGroup.class))
        .inNamespace(MockCluster.NAMESPACE)
        .resource(client.getKubernetesSerialization().unmarshal(json, GenericKubernetesResource.class)).create();
  }

  /** The malformed group's Ready reason, read untyped (its spec cannot be read typed). */
  @SuppressWarnings("unchecked")
  private String malformedReadyReason() {
    GenericKubernetesResource g = stack.api().client()
        .genericKubernetesResources(ResourceDefinitionContext.fromResourceType(MysqlFailoverGroup.class))
        .inNamespace(MockCluster.NAMESPACE).withName(MALFORMED).get();
    Object status = g == null ? null : g.getAdditionalProperties().get("status");
    if (!(status instanceof Map<?, ?> s) || !(s.get("conditions") instanceof List<?> conditions)) {
      return null;
    }
    return conditions.stream().map(c -> (Map<String, Object>) c).filter(c -> "Ready".equals(c.get("type")))
        .map(c -> (String) c.get("reason")).findFirst().orElse(null);
  }

  private List<Event> malformedEvents(String reason) {
    return stack.api().events().stream().filter(e -> MALFORMED.equals(e.getInvolvedObject().getName()))
        .filter(e -> reason.equals(e.getReason())).toList();
  }

  private HttpResponse<String> watcherGet(String path, boolean token) throws Exception {
    int port = stack.controlPlane().watcherAddress().orElseThrow().getPort();
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(5));
    if (token) {
      request.header("Authorization", "Bearer " + FailoverStack.SIDECAR_TOKEN);
    }
    return WATCHER_HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private void awaitWatcher(String path, boolean token, java.util.function.Predicate<HttpResponse<String>> condition,
      String what) throws Exception {
    long until = System.nanoTime() + INFORMER_WAIT.toNanos();
    String last = "no answer";
    while (System.nanoTime() < until) {
      try {
        HttpResponse<String> r = watcherGet(path, token);
        if (condition.test(r)) {
          return;
        }
        last = r.statusCode() + " " + r.body();
      } catch (java.io.IOException e) {
        last = e.toString();
      }
      Playground.sleep(50);
    }
    throw new AssertionError("the watcher was not " + what + " within " + INFORMER_WAIT + "; last: " + last);
  }

  // --- end informer ---

  // --- frozen sidecar ---

  /**
   * Case (1): the old primary's sidecar frozen ({@code kill -STOP}, its own JVM) with no replica
   * able to vouch (pdx's and dr's IO threads stopped) and the control plane's path to iad and to
   * its sidecar black-holed, while a pooled writer keeps its own connection to iad, as a
   * connection pool does. A frozen sidecar keeps no lease, so the failover must wait for the
   * bound in which the kubelet's liveness probe restarts it and the new sidecar fences iad at
   * boot, read from iad's pod; never two servers accept writes in 50 ms samples, and every
   * acknowledged write is on pdx or, being only on iad, recorded lost once iad is seen again.
   */
  @FlavorTest
  void aFrozenSidecarIsRestartedByItsProbeAndTheFailoverWaitsForItsBootFence(Flavor flavor) {
    start(flavor, FailoverStack.Options.emergency());
    SidecarMesh.Knobs knobs = SidecarMesh.Knobs.playground();
    SidecarMesh mesh = stack.startSidecars(knobs, Set.of("iad"));
    DevKubelet kubelet = mesh.kubelet().orElseThrow();
    SidecarLiveness.Probe probe = kubelet.probe(DevKubelet.podOf("iad")).orElseThrow();
    Duration bound = SidecarLiveness.restartAndFenceBound(probe, knobs.peerCheckInterval());
    TcpProxy controlToIad = stack.proxyControlPlaneMysql("iad");
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    WritableSampler sampler = WritableSampler.started(stack, new Timeline(System.out));
    List<WriteLoad.Ack> acks = new ArrayList<>();
    long frozenAt;
    try (WriteLoad routed = WriteLoad.start(stack::routedJdbcUrlOrNowhere);
        WriteLoad pooled = WriteLoad.start(iad::jdbcUrl, Duration.ofMillis(5), FROZEN_POOLED_IDS,
            Duration.ofSeconds(60))) {
      routed.awaitAcknowledged(50, Duration.ofSeconds(30));
      pooled.awaitAcknowledged(50, Duration.ofSeconds(30));
      pdx.awaitCaughtUpWith(iad, Duration.ofSeconds(30));
      sampler.resetMost();
      pdx.stopReplicaIoThread();
      stack.server("dr").stopReplicaIoThread();
      mesh.process("iad").freeze();
      frozenAt = System.nanoTime();
      controlToIad.blackhole();
      mesh.partition("iad");

      Await.until(stack, () -> "Succeeded".equals(stack.api().emergencyPhase()), bound.plusSeconds(90),
          "the emergency failover to succeed");
      Await.until(stack, () -> !pdx.isReadOnly(), Duration.ofSeconds(5), "pdx writable");
      int routedAcked = routed.acknowledgedCount();
      routed.awaitAcknowledged(routedAcked + 20, Duration.ofSeconds(30));
      routed.stop();
      pooled.stop();
      acks.addAll(routed.acks());
      acks.addAll(pooled.acks());
    } finally {
      sampler.stop();
    }
    EmergencyFailoverStatus emergency = stack.api().resource().getStatus().emergencyFailover();
    System.out.printf("%s, frozen sidecar: failover %.1f s; wait for iad %.1f s (%s); kubelet restarts of iad's "
        + "sidecar %d; most writable at once %d%n", flavor, emergency.durationSeconds(),
        emergency.oldPrimaryWait().seconds(), emergency.oldPrimaryWait().detail(), kubelet.restarts("iad").size(),
        sampler.most());

    assertThat(sampler.most()).as("never two writable servers, sampled every 50 ms").isLessThanOrEqualTo(1);
    assertThat(iad.isReadOnly()).as("iad fenced at boot by its restarted sidecar").isTrue();
    assertThat(kubelet.restarts("iad")).as("the frozen sidecar restarted by its liveness probe").isNotEmpty();
    assertThat(emergency.oldPrimaryWait().basis()).isEqualTo("PROBED");
    // The wait counts from the naming, or from the lease's last renewal when every renewer was
    // read (here: the frozen sidecar's last asks, before the naming); counted from there it is at
    // least the bound read from iad's pod. What makes it safe is checked above: iad read-only
    // (fenced at boot) before pdx was writable.
    double before = Math.max(0, RegionStack.anchoredMs(emergency.oldPrimaryWait().detail()));
    assertThat(Duration.ofMillis(Math.round(emergency.oldPrimaryWait().seconds() * 1000 + before)))
        .as("the wait, counted from the lease's last renewal (%.0f ms before the naming), is at least the bound "
            + "read from iad's pod", before)
        .isGreaterThanOrEqualTo(bound);
    assertThat(stack.api().eventReasons()).contains("OldPrimaryLeaseWait").doesNotContain("OldPrimaryNotGuarded");
    assertThat(stack.api().eventMessages("OldPrimaryLeaseWait").get(0))
        .contains("a hung sidecar to be restarted").contains(DevKubelet.podOf("iad") + "'s liveness probe");

    // iad is seen again: what only it holds is recorded lost, and every acknowledged write is on
    // pdx or among those.
    controlToIad.heal();
    Set<Long> onPdx = new HashSet<>(DatabaseCluster.writtenIds(pdx));
    Set<Long> onIad = new HashSet<>(DatabaseCluster.writtenIds(iad));
    Set<Long> ackedOnlyOnIad = new HashSet<>();
    for (WriteLoad.Ack ack : acks) {
      if (!onPdx.contains(ack.id())) {
        assertThat(onIad).as("acknowledged write %d is on neither server", ack.id()).contains(ack.id());
        ackedOnlyOnIad.add(ack.id());
      }
    }
    Set<Long> onlyOnIad = new HashSet<>(onIad);
    onlyOnIad.removeAll(onPdx);
    System.out.printf("%s, frozen sidecar: rows only on iad %d, of them acknowledged %d (%d sent after the "
        + "freeze)%n", flavor, onlyOnIad.size(), ackedOnlyOnIad.size(),
        acks.stream()
            .filter(a -> ackedOnlyOnIad.contains(a.id()) && a.sentNanos() > frozenAt).count());
    if (!onlyOnIad.isEmpty()) {
      Await.until(stack, () -> lostOn(stack, "iad") != null, Duration.ofSeconds(60),
          "the loss iad shows recorded in status.lostTransactions");
      assertThat(lostOn(stack, "iad").count()).as("recorded lost: every transaction only iad holds")
          .isGreaterThanOrEqualTo((long) onlyOnIad.size());
      // The watcher writes the Event just after the status that records the loss.
      Await.until(stack, () -> stack.api().eventReasons().contains("TransactionsLost"), Duration.ofSeconds(10),
          "a TransactionsLost Event after the loss is recorded");
    }
  }

  /** The pooled writer's ids, apart from the routed writer's. */
  private static final long FROZEN_POOLED_IDS = 1_000_000;

  private static MysqlFailoverGroupStatus.LostTransactions lostOn(FailoverStack stack, String site) {
    List<MysqlFailoverGroupStatus.LostTransactions> lost = stack.api().resource().getStatus().lostTransactions();
    return lost == null ? null : lost.stream().filter(l -> site.equals(l.site())).findFirst().orElse(null);
  }

  // --- end frozen sidecar ---
}
