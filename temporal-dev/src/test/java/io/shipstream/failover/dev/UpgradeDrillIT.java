package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.FreePorts;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.testsupport.WriteLoad;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The upgrade drill (issue 35 item 7): the previous release's worker and watcher, built from the
 * release's commit ({@link ReleaseBuild}), run as processes of their own against the stack's
 * Temporal server, mock API server and real {@code mariadbd}; they start a switchover of {@code
 * orders} scheduled 15 s ahead and a request of {@code carts} Deferred by its cooldown. The worker
 * and then the watcher are replaced by HEAD's, as the chart rolls them (the new worker ready before
 * the old one stops; the watcher on the Service's port), while {@code orders}' sidecars (the
 * release's too, processes of their own: sidecars are rolled last) keep running and a writer
 * keeps writing. Both runs then finish exactly once, on HEAD's processes: the
 * scheduled one Succeeds, the Deferred one is cancelled by removing its annotation; no server is
 * fenced before its time, no acknowledged write is lost.
 *
 * <p>Skipped, with its reason, only where there is no release to start from ("nothing released
 * yet") or git cannot show it (a shallow clone, a source archive). {@code
 * -Dupgrade.fromCommit=<commit>} drills from any commit.
 */
class UpgradeDrillIT {
  private static final String SIDECAR_TOKEN = FailoverStack.SIDECAR_TOKEN;
  /** How far ahead the switchover is scheduled: both processes are rolled before it fires. */
  private static final Duration SCHEDULED_AHEAD = Duration.ofSeconds(15);
  private static final Duration STARTUP = Duration.ofSeconds(90);

  @TempDir
  Path work;

  @Test
  @DisplayName("MARIADB: a scheduled and a Deferred run of the previous release finish exactly once on HEAD's worker and watcher")
  void runsOfThePreviousReleaseFinishOnHeadsWorkerAndWatcher() throws Exception {
    Path repository = Path.of("").toAbsolutePath().getParent();
    ReleaseBuild.Result<ReleaseBuild.Release> previous = ReleaseBuild.previousRelease(repository);
    Assumptions.assumeTrue(previous.present(), previous.absentReason());
    Path logs = Path.of("target", "upgrade-drill").toAbsolutePath();
    Files.createDirectories(logs);
    ReleaseBuild.Built release = ReleaseBuild.build(repository, previous.value(), logs.resolve("release-build.log"));
    System.out.printf("upgrade drill from %s (%s): %s in %d s (%s)%n", release.release().version(),
        release.release().commit(), release.fromCache() ? "cached build found" : "built", release.buildTime()
            .toSeconds(),
        release.directory());
    String head = System.getProperty("java.class.path");

    Timeline timeline = new Timeline(System.out);
    try (FailoverStack stack = FailoverStack.startWithoutControlPlane(work,
        new FailoverStack.Options(List.of("iad", "pdx"), List.of(), "0s", null, "500ms", 3, true, false));
        Processes processes = new Processes()) {
      ControlPlane plane = stack.controlPlane();
      // The released worker runs with the SDK's sticky defaults, which the test server never lets go of.
      plane.temporalServer().ignoreStickyExecution();
      Path kubeconfig = Kubeconfig.write(stack.api().client().getConfiguration().getMasterUrl(),
          MockCluster.NAMESPACE, work.resolve("kubeconfig"));
      MockCluster kube = stack.api().mock();
      ScaleStack.Group carts = ScaleStack.startGroup(kube, work.resolve("carts"), "carts");
      processes.carts = carts;

      // The previous release's watcher (on the port the sidecars ask) and worker.
      ControlPlaneProcess oldWatcher = processes.add(ControlPlaneProcess.start("watcher " + release.release().version(),
          release.classpath("watcher"), ControlPlaneProcess.WATCHER_MAIN, watcherEnv(plane, kubeconfig, "old"),
          plane.watcherPort(), logs.resolve("watcher-old.log")));
      int oldWorkerPort = FreePorts.next();
      ControlPlaneProcess oldWorker = processes.add(ControlPlaneProcess.start("worker " + release.release().version(),
          release.classpath("worker"), ControlPlaneProcess.WORKER_MAIN, workerEnv(plane, kubeconfig, oldWorkerPort),
          oldWorkerPort, logs.resolve("worker-old.log")));
      oldWatcher.awaitReady(STARTUP);
      oldWorker.awaitReady(STARTUP);
      stack.waits().adopted("iad");
      awaitStatus(kube, carts.ref(), s -> "iad".equals(s.activeSite()), Duration.ofSeconds(30), "carts adopted");
      timeline.print("%s's watcher (pid %d) and worker (pid %d) run; both groups adopted with iad active",
          release.release().version(), oldWatcher.pid(), oldWorker.pid());

      // The sidecars are the release's as well: they are rolled last, after the worker and the watcher.
      SidecarMesh sidecars = stack.startSidecars(SidecarMesh.Knobs.playground(), java.util.Set.of("iad", "pdx"),
          release.classpath("sidecar"));
      timeline.print("%s's sidecars run (pids %d, %d)", release.release().version(), sidecars.process("iad").pid(),
          sidecars.process("pdx").pid());
      Instant sidecarsStarted = Instant.now();
      try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere, Duration.ofMillis(20));
          WritableSampler writable = WritableSampler.started(stack, timeline)) {
        load.awaitAcknowledged(50, Duration.ofSeconds(30));

        // carts: a switchover starts its cooldown; a request back inside it, with onCooldown: defer, waits Deferred.
        GroupApi.annotate(kube.client(), carts.ref(), "pdx");
        awaitPlanned(kube, carts.ref(), p -> "Succeeded".equals(p.phase()), "carts' first switchover");
        awaitAnnotation(kube, carts.ref(), Optional.empty());
        GroupApi.editSpec(kube.client(), carts.ref(), spec -> GroupSpecs.withPlannedFailover(
            GroupSpecs.with(spec, "failoverCooldown", "10m"),
            new MysqlFailoverGroupSpec.PlannedFailoverSpec(null, null, "defer")));
        GroupApi.annotate(kube.client(), carts.ref(), "iad");
        PlannedFailoverStatus deferred = awaitPlanned(kube, carts.ref(), p -> "Deferred".equals(p.phase()),
            "carts Deferred");
        String deferredRun = kube.group(carts.ref()).getStatus().workflow().runId();
        timeline.print("carts: a request back to iad Deferred until %s (run %s)", deferred.retryAfter(), deferredRun);

        // orders: a switchover to pdx scheduled 15 s ahead.
        Instant at = Instant.now().plus(SCHEDULED_AHEAD).truncatedTo(ChronoUnit.SECONDS);
        stack.api().annotate("pdx:at=" + at);
        stack.waits().planned(p -> "Scheduled".equals(p.phase()), Duration.ofSeconds(20));
        String scheduledRun = stack.api().resource().getStatus().workflow().runId();
        timeline.print("orders: switchover to pdx Scheduled at %s (run %s)", at, scheduledRun);

        // The worker rolls: HEAD's ready first, then the old one gets SIGTERM.
        int newWorkerPort = FreePorts.next();
        ControlPlaneProcess newWorker = processes.add(ControlPlaneProcess.start("worker HEAD", head,
            ControlPlaneProcess.WORKER_MAIN, workerEnv(plane, kubeconfig, newWorkerPort), newWorkerPort,
            logs.resolve("worker-head.log")));
        newWorker.awaitReady(STARTUP);
        int workerExit = oldWorker.stop(Duration.ofSeconds(45));
        Instant workerRolled = Instant.now();
        timeline.print("worker rolled: HEAD's (pid %d) ready, %s's stopped (exit %d)", newWorker.pid(),
            release.release().version(), workerExit);
        // Then the watcher, on the port the sidecars ask; they keep running meanwhile.
        int watcherExit = oldWatcher.stop(Duration.ofSeconds(30));
        ControlPlaneProcess newWatcher = processes.add(ControlPlaneProcess.start("watcher HEAD", head,
            ControlPlaneProcess.WATCHER_MAIN, watcherEnv(plane, kubeconfig, "head"), plane.watcherPort(),
            logs.resolve("watcher-head.log")));
        newWatcher.awaitReady(STARTUP);
        Instant watcherRolled = Instant.now();
        timeline.print("watcher rolled: %s's stopped (exit %d), HEAD's (pid %d) ready", release.release().version(),
            watcherExit, newWatcher.pid());
        assertThat(workerRolled).as("the worker was rolled before the switchover's time (%s); take a longer lead",
            at).isBefore(at);

        PlannedFailoverStatus done = stack.waits().plannedEnd(null, Duration.ofSeconds(90));
        timeline.print("orders: %s %s (%s)", done.phase(), done.reason() == null ? "" : done.reason(), done.message());
        assertThat(done.phase()).as("the scheduled switchover: %s", done).isEqualTo("Succeeded");

        // carts' Deferred request is cancelled as the docs say: its annotation removed, seen by HEAD's watcher.
        GroupApi.patchAnnotation(kube.client(), carts.ref(), MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION, null);
        PlannedFailoverStatus cancelled = awaitPlanned(kube, carts.ref(),
            p -> "Failed".equals(p.phase()) || "Succeeded".equals(p.phase()), "carts cancelled");
        timeline.print("carts: %s/%s (%s)", cancelled.phase(), cancelled.reason(), cancelled.message());
        assertThat(cancelled.phase() + "/" + cancelled.reason()).isEqualTo("Failed/Cancelled");

        load.awaitAcknowledged(load.acknowledgedCount() + 50, Duration.ofSeconds(30));
        load.stop();
        writable.stop();

        // Nothing fenced by mistake: iad stayed the one writable server until the switchover's time,
        // pdx is the only one after; carts' pdx was never fenced by its Deferred request.
        List<WritableSampler.Change> changes = writable.changes();
        assertThat(changes.get(0).writable()).containsExactly("iad");
        assertThat(changes.stream().filter(c -> !c.writable().equals(List.of("iad"))).map(WritableSampler.Change::at)
            .findFirst()).as("iad left writable only at the switchover, not during a roll: %s", changes)
            .hasValueSatisfying(first -> assertThat(first).isAfterOrEqualTo(at));
        assertThat(writable.most()).as("never two writable servers").isLessThanOrEqualTo(1);
        assertThat(stack.writableSites()).containsExactly("pdx");
        for (String site : List.of("iad", "pdx")) {
          assertThat(sidecars.process(site).alive()).as("%s's sidecar kept running", site).isTrue();
          assertThat(sidecars.process(site).uptime()).as("%s's sidecar, never restarted", site)
              .isGreaterThan(Duration.between(sidecarsStarted, Instant.now()).minusSeconds(1));
        }
        com.fasterxml.jackson.databind.JsonNode pdxStatus = sidecars.statusJson("pdx");
        assertThat(pdxStatus.has("lastFence")).as("pdx's /status: %s", pdxStatus).isTrue();
        assertThat(pdxStatus.get("lastFence").isNull()).as("pdx's sidecar never fenced its server: %s", pdxStatus)
            .isTrue();
        assertThat(carts.servers().get("pdx").isReadOnly()).as("carts' pdx, never fenced by the Deferred request")
            .isFalse();
        assertThat(carts.servers().get("iad").isReadOnly()).isTrue();
        assertThat(kube.group(carts.ref()).getStatus().activeSite()).isEqualTo("pdx");
        // Nothing lost: every acknowledged write is on the new primary.
        assertThat(Playground.missing(stack, load, "pdx")).as("acknowledged writes missing on pdx").isZero();

        // Exactly once, and continued on HEAD's processes: each group's workflow id has the run the
        // old watcher started as its latest, and its history shows who did what.
        WorkflowClient client = plane.client();
        List<HistoryEvent> orders = history(client, stack.api().ref(), scheduledRun);
        assertThat(latestRun(client, stack.api().ref()))
            .as("no second run of orders").isEqualTo(scheduledRun);
        assertThat(startedBy(orders)).as("orders' run started by the released watcher")
            .startsWith(oldWatcher.pid() + "@");
        assertThat(count(orders, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED)).isEqualTo(1);
        assertThat(activitiesStartedBy(orders)).as("every activity of the switchover ran on HEAD's worker")
            .isNotEmpty().allSatisfy(identity -> assertThat(identity).startsWith(newWorker.pid() + "@"));
        assertThat(workflowTasksBy(orders, oldWorker.pid())).as("the released worker ran its first tasks").isPositive();
        assertThat(workflowTasksBy(orders, newWorker.pid())).as("HEAD's worker ran it after the timer").isPositive();

        List<HistoryEvent> cartsRun = history(client, carts.ref(), deferredRun);
        assertThat(latestRun(client, carts.ref()))
            .as("no second run of carts").isEqualTo(deferredRun);
        assertThat(startedBy(cartsRun)).startsWith(oldWatcher.pid() + "@");
        assertThat(cartsRun.stream().filter(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)
            .map(e -> e.getWorkflowExecutionSignaledEventAttributes().getSignalName() + " by "
                + e.getWorkflowExecutionSignaledEventAttributes().getIdentity())
            .toList())
            .as("the cancel came from HEAD's watcher").containsExactly("cancel by " + newWatcher.pid() + "@"
                + hostOf(startedBy(cartsRun)));
        assertThat(count(cartsRun, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED)).isEqualTo(1);
        assertThat(workflowTasksBy(cartsRun, newWorker.pid())).as("HEAD's worker ended it").isPositive();
        timeline.print("exactly once: orders %s, carts %s; the worker rolled %d ms and the watcher %d ms before the "
            + "switchover's time", scheduledRun, deferredRun, Duration.between(workerRolled, at).toMillis(),
            Duration.between(watcherRolled, at).toMillis());
      }
    }
  }

  private static Map<String, String> workerEnv(ControlPlane plane, Path kubeconfig, int httpPort) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("TEMPORAL_ADDRESS", plane.temporalTarget());
    env.put("KUBECONFIG", kubeconfig.toString());
    env.put("AUTH_TOKEN", SIDECAR_TOKEN);
    env.put("HTTP_PORT", Integer.toString(httpPort));
    env.put("SHUTDOWN_TIMEOUT", "30s");
    return env;
  }

  private static Map<String, String> watcherEnv(ControlPlane plane, Path kubeconfig, String name) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("TEMPORAL_ADDRESS", plane.temporalTarget());
    env.put("KUBECONFIG", kubeconfig.toString());
    env.put("AUTH_TOKEN", SIDECAR_TOKEN);
    env.put("HTTP_HOST", FailoverStack.LOOPBACK);
    env.put("HTTP_PORT", Integer.toString(plane.watcherPort()));
    env.put("POD_NAME", "watcher-" + name);
    env.put("POD_NAMESPACE", MockCluster.NAMESPACE);
    env.put("TOPOLOGY_MONITOR", "true");
    env.put("AUTOMATIC_FAILOVER", "true");
    return env;
  }

  private static List<HistoryEvent> history(WorkflowClient client, GroupRef ref, String runId) {
    return client.fetchHistory(ref.workflowId(), runId).getEvents();
  }

  /** The run the group's workflow id names now: the last one started. */
  private static String latestRun(WorkflowClient client, GroupRef ref) {
    return client.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
        io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest.newBuilder()
            .setNamespace(client.getOptions().getNamespace())
            .setExecution(io.temporal.api.common.v1.WorkflowExecution.newBuilder().setWorkflowId(ref.workflowId()))
            .build())
        .getWorkflowExecutionInfo().getExecution().getRunId();
  }

  private static String startedBy(List<HistoryEvent> events) {
    return events.get(0).getWorkflowExecutionStartedEventAttributes().getIdentity();
  }

  private static String hostOf(String identity) {
    return identity.substring(identity.indexOf('@') + 1);
  }

  private static long count(List<HistoryEvent> events, EventType type) {
    return events.stream().filter(e -> e.getEventType() == type).count();
  }

  private static List<String> activitiesStartedBy(List<HistoryEvent> events) {
    return events.stream().filter(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
        .map(e -> e.getActivityTaskStartedEventAttributes().getIdentity()).toList();
  }

  private static long workflowTasksBy(List<HistoryEvent> events, long pid) {
    return events.stream().filter(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED)
        .filter(e -> e.getWorkflowTaskStartedEventAttributes().getIdentity().startsWith(pid + "@")).count();
  }

  private static MysqlFailoverGroupStatus awaitStatus(MockCluster kube, GroupRef ref,
      Predicate<MysqlFailoverGroupStatus> condition, Duration timeout, String what) {
    long until = System.nanoTime() + timeout.toNanos();
    while (true) {
      MysqlFailoverGroupStatus status = kube.group(ref).getStatus();
      if (status != null && condition.test(status)) {
        return status;
      }
      if (System.nanoTime() > until) {
        throw new IllegalStateException(what + ": not within " + timeout + "; status " + status);
      }
      Playground.sleep(50);
    }
  }

  private static PlannedFailoverStatus awaitPlanned(MockCluster kube, GroupRef ref,
      Predicate<PlannedFailoverStatus> condition, String what) {
    return awaitStatus(kube, ref, s -> s.plannedFailover() != null && condition.test(s.plannedFailover()),
        Duration.ofSeconds(60), what).plannedFailover();
  }

  private static void awaitAnnotation(MockCluster kube, GroupRef ref, Optional<String> value) {
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      Map<String, String> annotations = kube.group(ref).getMetadata().getAnnotations();
      Optional<String> now = Optional.ofNullable(annotations == null ? null
          : annotations.get(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION));
      if (now.equals(value)) {
        return;
      }
      if (System.nanoTime() > until) {
        throw new IllegalStateException(ref + "'s annotation is " + now + ", not " + value);
      }
      Playground.sleep(50);
    }
  }

  /** The processes a drill started and the second group's servers, stopped (killed) at its end. */
  private static final class Processes implements AutoCloseable {
    private final List<ControlPlaneProcess> started = new java.util.ArrayList<>();
    ScaleStack.Group carts;

    ControlPlaneProcess add(ControlPlaneProcess process) {
      started.add(process);
      return process;
    }

    @Override
    public void close() {
      started.forEach(ControlPlaneProcess::close);
      if (carts != null) {
        carts.servers().values().forEach(io.shipstream.failover.testsupport.MariaDbServer::close);
      }
    }
  }
}
