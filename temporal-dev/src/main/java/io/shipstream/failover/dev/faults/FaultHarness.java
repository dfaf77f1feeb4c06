package io.shipstream.failover.dev.faults;

import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.shipstream.failover.dev.DevKubelet;
import io.shipstream.failover.dev.FailoverStack;
import io.shipstream.failover.dev.SidecarMesh;
import io.shipstream.failover.dev.faults.CaseResult.Check;
import io.shipstream.failover.dev.faults.Fault.ApiRefusal;
import io.shipstream.failover.dev.faults.Fault.FrozenSidecar;
import io.shipstream.failover.dev.faults.Fault.MalformedGroup;
import io.shipstream.failover.dev.faults.Fault.ReplicationCut;
import io.shipstream.failover.dev.faults.Fault.SourceKill9;
import io.shipstream.failover.dev.faults.Fault.SourceStop;
import io.shipstream.failover.dev.faults.Fault.TargetRefuses;
import io.shipstream.failover.dev.faults.Fault.WatcherKill;
import io.shipstream.failover.dev.faults.Fault.WorkerKill;
import io.shipstream.failover.dev.faults.FaultInjector.Trigger;
import io.shipstream.failover.dev.faults.FaultInjector.When;
import io.shipstream.failover.model.SidecarLiveness;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.testsupport.TcpProxy;
import io.shipstream.failover.testsupport.WriteLoad;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Runs fault cases on one playground stack (two sites, no cooldown), failing over back and forth.
 * The controller reaches each server through a proxy (the spec's endpoints point there) and each
 * replica reaches its source through another, so the network between them can be cut without
 * touching the servers. Before every case the stack is brought back to a known state (one writable
 * primary, the other replicating and caught up, every proxy forwarding, no sidecars); a stack that
 * cannot be is replaced by a fresh one. The stack runs no sidecars: the frozen-sidecar cases start
 * them for themselves ({@link SidecarMesh}, the frozen site's as a JVM of its own with the dev
 * kubelet beside it) and stop them again when they end, so no other case pays for their start.
 */
public final class FaultHarness implements AutoCloseable {
  private static final Duration CASE_TIMEOUT = Duration.ofMinutes(4);
  private static final String WORKFLOW_ID =
      "mysqlfailovergroup/" + MockCluster.NAMESPACE + "/" + FailoverStack.GROUP_NAME;

  private final Path work;
  private final Flavor flavor;
  private final FaultInjector injector = new FaultInjector();
  private final Map<String, TcpProxy> controlProxies = new LinkedHashMap<>();
  private final Map<String, TcpProxy> replicationProxies = new LinkedHashMap<>();
  private final List<MockCluster.Refusal> refusals = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final List<Thread> helpers = new java.util.concurrent.CopyOnWriteArrayList<>();
  private FailoverStack stack;
  /** The region drills' stack, made by the first of them; one of the two stacks runs at a time. */
  private RegionHarness regions;
  private int stacks;
  private long nextId = 1;

  /** Cases on stacks of {@code flavor}'s servers, under {@code work}. */
  public FaultHarness(Path work, Flavor flavor) {
    this.work = work;
    this.flavor = flavor;
  }

  /**
   * Runs one case and judges it. Never throws for a failed case: the result says what failed. The
   * case's time starts once the stack is ready: a fresh stack's start (the first case's, or after
   * a case left one unusable) is counted apart, so that one case's times compare across a run.
   */
  public CaseResult run(FaultPlan plan) {
    if (plan.fault() instanceof Fault.RegionOutage) {
      closeStack();
      if (regions == null) {
        regions = new RegionHarness(work.resolve("regions"), flavor, io.shipstream.failover.dev.RegionStack.Knobs
            .shortLeases());
      }
      return regions.run(plan);
    }
    closeRegions();
    long started = System.nanoTime();
    double readySeconds = 0;
    try {
      ready();
      readySeconds = seconds(started);
      return runOn(plan, System.nanoTime(), readySeconds);
    } catch (RuntimeException e) {
      // The harness itself could not run the case (the stack would not come back, a wait timed
      // out): a failed case, and the next one gets a fresh stack.
      closeStack();
      return new CaseResult(plan, injector.fired(), "error: " + e.getMessage(), seconds(started) - readySeconds,
          readySeconds, List.of(new Check("ran", false, e + " at " + where(e))));
    } finally {
      injector.disarm();
    }
  }

  private CaseResult runOn(FaultPlan plan, long started, double readySeconds) {
    String source = read(() -> stack.api().resource().getStatus().activeSite());
    String target = other(source);
    Fault fault = plan.fault();
    helpers.clear();
    refusals.clear();
    java.sql.Connection idleSession = null;
    FrozenRun frozen = fault instanceof FrozenSidecar f ? startFrozenSidecars(f, source, target) : null;
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrl, Duration.ofMillis(5), nextId);
        WritableWatch watch = WritableWatch.start(stack.servers())) {
      nextId += 10_000_000;
      load.awaitAcknowledged(30, Duration.ofSeconds(20));
      String annotation = target;
      if (fault instanceof ReplicationCut cut) {
        annotation = target + ":maxLagWait=" + cut.maxLagWaitSeconds() + "s";
      }
      boolean malformedBefore = fault instanceof MalformedGroup m && m.at() == null;
      if (malformedBefore) {
        createMalformedGroup();
      }
      boolean frozenAtRequest = fault instanceof FrozenSidecar f && f.at() == null;
      if (!(fault instanceof WatcherKill) && !(fault instanceof Fault.None) && !malformedBefore && !frozenAtRequest) {
        injector.arm(trigger(fault, source, target));
      }
      // The drain runs only when the source has application sessions at the fence; the writer
      // may be between connections then (reconnecting after the last case), so a case at the
      // drain holds one more open, idle, as an application's connection pool would.
      if (fault instanceof WorkerKill k && k.boundary() == Boundary.DRAIN) {
        idleSession = openIdleSession(source);
      }
      String before = Instant.now().toString();
      if (frozenAtRequest) {
        frozen.freeze();
      }
      stack.api().annotate(annotation);
      if (fault instanceof WatcherKill kill) {
        later(kill.afterMillis(), () -> {
          stack.controlPlane().killWatcher();
          WritableWatch.sleep(kill.downMillis());
          stack.controlPlane().startWatcher();
        });
      }
      PlannedFailoverStatus end = awaitEnd(before);
      Instant endedAt = Instant.now();
      awaitWorkflowClosed();
      String fired = fault instanceof WatcherKill || fault instanceof Fault.None || malformedBefore || frozenAtRequest
          ? "yes" : injector.fired();
      // The writer and the watch go on until the restarted sidecar has booted and looked around:
      // a wrong fence at its boot would stop the writes the checks below count.
      List<Check> sidecarChecks = frozen == null ? List.of() : frozen.judge(end, endedAt);
      if (fired != null && fault instanceof ApiRefusal) {
        fired += ", " + refusals.stream().mapToInt(MockCluster.Refusal::refused).sum() + " writes refused";
      }
      joinHelpers();
      healAll();
      try {
        load.awaitAcknowledged(load.acknowledgedCount() + 20, Duration.ofSeconds(10));
      } catch (IllegalStateException e) {
        // Nothing takes writes: the outcome check says why.
      }
      load.stop();
      watch.close();
      List<Check> checks = new ArrayList<>(new Invariants(stack).judge(source, end, load, watch));
      if (fault instanceof MalformedGroup) {
        checks.add(watcherView());
      }
      checks.addAll(sidecarChecks);
      String outcome = end.phase() + (end.reason() == null ? "" : "/" + end.reason());
      return new CaseResult(plan, fired, outcome, seconds(started), readySeconds, checks);
    } finally {
      joinHelpers();
      healAll();
      if (fault instanceof MalformedGroup) {
        deleteMalformedGroup();
      }
      if (frozen != null) {
        stopSidecars();
      }
      if (idleSession != null) {
        try {
          idleSession.close();
        } catch (java.sql.SQLException e) {
          // Killed by the drain, most likely: that was its purpose.
        }
      }
    }
  }

  private java.sql.Connection openIdleSession(String site) {
    try {
      return stack.server(site).appConnection();
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException("cannot open an application session on " + site + ": " + e.getMessage(), e);
    }
  }

  /** The fault as a trigger at its activity boundary. */
  private Trigger trigger(Fault fault, String source, String target) {
    if (fault instanceof WorkerKill k) {
      return new Trigger(k.boundary(), k.when(), true, () -> {
        stack.controlPlane().killWorker();
        WritableWatch.sleep(k.downMillis());
        stack.controlPlane().startWorker();
      });
    }
    if (fault instanceof SourceKill9 k) {
      return new Trigger(k.at(), When.BEFORE, false, () -> stack.server(source).kill9());
    }
    if (fault instanceof SourceStop s) {
      return new Trigger(s.at(), When.BEFORE, false, () -> {
        DatabaseServer server = stack.server(source);
        server.pause();
        later(s.stoppedMillis(), server::resume);
      });
    }
    if (fault instanceof ApiRefusal a) {
      Pattern path = a.what() == Fault.Writes.STATUS ? MockCluster.statusPath(stack.api().ref())
          : MockCluster.dnsEndpointPath(stack.api().ref().namespace());
      return new Trigger(a.from(), When.BEFORE, false,
          () -> refusals.add(stack.api().mock().refuseWrites(path, a.code(), Duration.ofMillis(a.refuseMillis()))));
    }
    if (fault instanceof MalformedGroup m) {
      return new Trigger(m.at(), When.BEFORE, false, this::createMalformedGroup);
    }
    if (fault instanceof FrozenSidecar f) {
      FrozenRun frozen = frozenRun;
      return new Trigger(f.at(), When.BEFORE, false, frozen::freeze);
    }
    if (fault instanceof ReplicationCut cut) {
      // Cut as the fence starts, after validation saw a healthy replica: what the writer commits
      // until the fence lands never reaches the target, so WaitingForLag starts behind and
      // without a feed.
      return new Trigger(Boundary.FENCE, When.BEFORE, false, () -> {
        TcpProxy link = replicationProxies.get(source);
        if (cut.blackhole()) {
          link.blackhole();
        } else {
          link.refuse();
        }
        WritableWatch.sleep(150);
        later(cut.cutMillis(), link::heal);
      });
    }
    if (fault instanceof TargetRefuses t) {
      return new Trigger(Boundary.PROMOTE, When.BEFORE, false, () -> {
        TcpProxy proxy = controlProxies.get(target);
        if (t.blackhole()) {
          proxy.blackhole();
        } else {
          proxy.refuse();
        }
        later(t.refuseMillis(), proxy::heal);
      });
    }
    throw new IllegalArgumentException("not a trigger fault: " + fault);
  }

  // --- the malformed group ------------------------------------------------------------------

  private static final String MALFORMED = "malformed";

  /**
   * Created untyped, as {@code kubectl create --validate=false} would (the mock, like that, takes
   * any JSON): an unknown field, and a number written as a word.
   */
  private void createMalformedGroup() {
    var client = stack.api().client();
    String json = "{\"apiVersion\":\"" + MysqlFailoverGroup.API_VERSION + "\",\"kind\":\"MysqlFailoverGroup\","
        + "\"metadata\":{\"name\":\"" + MALFORMED + "\",\"namespace\":\"" + MockCluster.NAMESPACE + "\"},"
        + "\"spec\":{\"sites\":[{\"name\":\"a\",\"mysql\":{\"host\":\"127.0.0.1\",\"port\":1}},"
        + "{\"name\":\"b\",\"mysql\":{\"host\":\"127.0.0.1\",\"port\":2}}],"
        + "\"frobnicate\":true,\"failureThreshold\":\"three\"}}";
    client.genericKubernetesResources(malformedContext()).inNamespace(MockCluster.NAMESPACE).resource(
        client.getKubernetesSerialization().unmarshal(json,
            io.fabric8.kubernetes.api.model.GenericKubernetesResource.class))
        .create();
  }

  private void deleteMalformedGroup() {
    try {
      stack.api().client().genericKubernetesResources(malformedContext()).inNamespace(MockCluster.NAMESPACE)
          .withName(MALFORMED).delete();
    } catch (RuntimeException e) {
      // The next case starts without it either way: a fresh stack if this one is unusable.
    }
  }

  private static io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext malformedContext() {
    return io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext.fromResourceType(MysqlFailoverGroup.class);
  }

  /**
   * {@code watcher-view}: the watcher is ready and its {@code /active-site} names the site the
   * status names, within 5 s: a watcher blinded by the malformed group would still name the source.
   */
  private Check watcherView() {
    String expected = read(() -> stack.api().resource().getStatus().activeSite());
    java.net.InetSocketAddress at = stack.controlPlane().watcherAddress().orElse(null);
    if (at == null) {
      return new Check("watcher-view", false, "the watcher is not running");
    }
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    String base = "http://127.0.0.1:" + at.getPort();
    String last = "no answer";
    long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (System.nanoTime() < until) {
      try {
        var ready = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + "/readyz")).build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
        var view = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(base
            + "/active-site?namespace=" + MockCluster.NAMESPACE + "&group=" + FailoverStack.GROUP_NAME))
            .header("Authorization", "Bearer " + FailoverStack.SIDECAR_TOKEN).build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
        last = "/readyz " + ready.statusCode() + ", /active-site " + view.statusCode() + " " + view.body();
        if (ready.statusCode() == 200 && view.statusCode() == 200
            && view.body().contains("\"activeSite\":\"" + expected + "\"")) {
          return new Check("watcher-view", true, "ready, /active-site names " + expected + " as the status does");
        }
      } catch (java.io.IOException e) {
        last = e.toString();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      WritableWatch.sleep(100);
    }
    return new Check("watcher-view", false, "the status names " + expected + "; the watcher: " + last);
  }

  // --- the frozen sidecar ------------------------------------------------------------------

  /** The frozen-sidecar case that runs now, for its trigger. */
  private FrozenRun frozenRun;

  /**
   * Starts the sidecars for one case, the frozen site's as a JVM of its own that the dev kubelet
   * probes with its pod's (the chart's) probes; returns once every sidecar has heard from the
   * watcher and its peers and that JVM's startup probe passed, so its liveness probe runs.
   */
  private FrozenRun startFrozenSidecars(FrozenSidecar fault, String source, String target) {
    String site = fault.side() == Fault.Side.SOURCE ? source : target;
    long started = System.nanoTime();
    SidecarMesh mesh = stack.startSidecars(SidecarMesh.Knobs.playground(), Set.of(site));
    frozenRun = new FrozenRun(mesh, site, source, target, seconds(started));
    return frozenRun;
  }

  /** Stops the case's sidecars; what cannot be undone here {@link #normalise} finds, and the stack is replaced. */
  private void stopSidecars() {
    frozenRun = null;
    try {
      stack.stopSidecars();
    } catch (RuntimeException e) {
      System.err.println("could not stop the case's sidecars: " + e);
    }
  }

  /** One frozen-sidecar case: the sidecar frozen, and what is judged once its restarted JVM runs. */
  private final class FrozenRun {
    private final SidecarMesh mesh;
    private final String site;
    private final String source;
    private final String target;
    private final double startSeconds;
    private volatile Instant frozenAt;

    FrozenRun(SidecarMesh mesh, String site, String source, String target, double startSeconds) {
      this.mesh = mesh;
      this.site = site;
      this.source = source;
      this.target = target;
      this.startSeconds = startSeconds;
    }

    void freeze() {
      mesh.process(site).freeze();
      frozenAt = Instant.now();
    }

    /**
     * {@code sidecar-restarted}: the kubelet restarted the frozen JVM, and the new one booted and
     * heard from the watcher and its peer. {@code after-restart}: the run Succeeded and, two ticks
     * after the new sidecar booted, the target is writable, the source read-only, and the new
     * sidecar fenced nothing (its {@code /status} has no fence: no boot fence of the new active
     * site, none undone since) and names the target active.
     */
    List<Check> judge(PlannedFailoverStatus end, Instant endedAt) {
      List<Check> checks = new ArrayList<>();
      if (frozenAt == null) {
        checks.add(new Check("sidecar-restarted", false, "the sidecar of " + site + " was never frozen"));
        return checks;
      }
      DevKubelet kubelet = mesh.kubelet().orElseThrow();
      SidecarLiveness.Probe probe = kubelet.probe(DevKubelet.podOf(site))
          .orElseThrow(() -> new IllegalStateException("pod " + DevKubelet.podOf(site) + " has no liveness probe"));
      DevKubelet.Restart restart;
      try {
        restart = kubelet.awaitRestart(site, 1, probe.restartWithin().plusSeconds(30));
        kubelet.awaitStarted(site, Duration.ofSeconds(60));
      } catch (IllegalStateException e) {
        checks.add(new Check("sidecar-restarted", false, e.getMessage()));
        return checks;
      }
      String status = "no answer";
      long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      boolean steady = false;
      while (!steady && System.nanoTime() < until) {
        try {
          steady = mesh.steady(site);
          status = mesh.statusJson(site).toString();
        } catch (RuntimeException e) {
          status = e.getMessage();
        }
        if (!steady) {
          WritableWatch.sleep(50);
        }
      }
      Instant steadyAt = Instant.now();
      checks.add(new Check("sidecar-restarted", steady, String.format("sidecars up in %.1f s; restarted %.1f s after "
          + "the freeze (%s the failover's end), steady %.1f s after it%s", startSeconds,
          between(frozenAt, restart.restartedAt()), restart.restartedAt().isBefore(endedAt) ? "before" : "after",
          between(restart.restartedAt(), steadyAt), steady ? "" : ": not steady in 30 s: " + status)));
      if (!steady) {
        return checks;
      }
      // Two ticks more: a rule-1 fence after the boot would have landed by then.
      WritableWatch.sleep(mesh.knobs().peerCheckInterval().multipliedBy(2).toMillis());
      com.fasterxml.jackson.databind.JsonNode after = mesh.statusJson(site);
      boolean targetWritable = !stack.server(target).isReadOnly();
      boolean sourceReadOnly = stack.server(source).isReadOnly();
      boolean fencedNothing = after.path("lastFence").isNull() && after.path("lastFenceAt").isNull();
      String view = after.path("view").path("activeSite").asText("none");
      boolean succeeded = "Succeeded".equals(end.phase());
      checks.add(new Check("after-restart", succeeded && targetWritable && sourceReadOnly && fencedNothing
          && target.equals(view),
          end.phase() + "; " + target + (targetWritable ? " writable" : " READ-ONLY") + ", "
              + source + (sourceReadOnly ? " read-only" : " WRITABLE") + "; " + site + "'s new sidecar: boot "
              + after.path("boot").asText() + ", view " + view + ", " + (fencedNothing ? "fenced nothing"
                  : "FENCED " + after.path("lastFence"))));
      return checks;
    }
  }

  private static double between(Instant from, Instant to) {
    return Duration.between(from, to).toMillis() / 1000.0;
  }

  // --- keeping the stack in a known state --------------------------------------------------

  /** One writable primary named by the status, the other replicating from it through its proxy. */
  private void ready() {
    if (stack != null) {
      try {
        normalise();
        return;
      } catch (RuntimeException e) {
        closeStack();
      }
    }
    startStack();
    normalise();
  }

  private void startStack() {
    stacks++;
    // TLS on (issue #32): every fault case runs over encrypted, verified sessions and channels.
    stack = FailoverStack.start(work.resolve("stack-" + stacks),
        FailoverStack.Options.twoSites().withFlavor(flavor).withTls());
    stack.controlPlane().addWorkerInterceptor(injector);
    stack.controlPlane().killWorker();
    stack.controlPlane().startWorker();
    var client = stack.api().client();
    List<String> sites = new ArrayList<>(stack.servers().keySet());
    StringBuilder patch = new StringBuilder("[");
    for (int i = 0; i < sites.size(); i++) {
      DatabaseServer server = stack.server(sites.get(i));
      TcpProxy control = TcpProxy.start(server.host(), server.port());
      controlProxies.put(sites.get(i), control);
      replicationProxies.put(sites.get(i), TcpProxy.start(server.host(), server.port()));
      patch.append(i == 0 ? "" : ",").append("{\"op\":\"replace\",\"path\":\"/spec/sites/").append(i)
          .append("/mysql\",\"value\":{\"host\":\"").append(control.host()).append("\",\"port\":")
          .append(control.port()).append("}}");
    }
    patch.append("]");
    // The controller reaches every server through its proxy, as it would through a network.
    client.resources(MysqlFailoverGroup.class).inNamespace(stack.api().ref().namespace())
        .withName(stack.api().ref().name()).patch(PatchContext.of(PatchType.JSON), patch.toString());
  }

  private void normalise() {
    healAll();
    // No sidecars between cases: a case that started them stops them; one it could not is found here.
    stack.stopSidecars();
    if (read(() -> stack.api().resource().getSpec().sites().stream()
        .anyMatch(s -> s.sidecar() != null && s.sidecar().url() != null))) {
      throw new IllegalStateException("a sidecar URL is left in the spec");
    }
    stack.controlPlane().startWorker();
    stack.controlPlane().startWatcher();
    String active = stack.api().resource().getStatus().activeSite();
    DatabaseServer primary = stack.server(active);
    for (Map.Entry<String, DatabaseServer> e : stack.servers().entrySet()) {
      DatabaseServer s = e.getValue();
      if (!s.isRunning()) {
        // A server killed by the last case comes back fenced, as production boots it.
        s.restartFenced();
      }
      if (e.getKey().equals(active)) {
        if (s.isReadOnly()) {
          throw new IllegalStateException(active + " is named active but read-only");
        }
        continue;
      }
      if (!s.isReadOnly()) {
        throw new IllegalStateException(e.getKey() + " is writable beside " + active);
      }
      TcpProxy link = replicationProxies.get(active);
      var status = s.replicaStatus();
      if (!status.running() || status.sourcePort() != link.port()) {
        s.startReplicationFrom(link.host(), link.port());
      }
      s.awaitCaughtUpWith(primary, Duration.ofSeconds(30));
    }
    if (!stack.api().routedSite().orElse("").equals(active)) {
      throw new IllegalStateException("the primary Service does not route to " + active);
    }
  }

  private void healAll() {
    controlProxies.values().forEach(TcpProxy::heal);
    replicationProxies.values().forEach(TcpProxy::heal);
    if (stack != null) {
      for (DatabaseServer s : stack.servers().values()) {
        if (s.isRunning()) {
          try {
            s.resume();
          } catch (RuntimeException ignored) {
            // Not paused.
          }
        }
      }
    }
  }

  /**
   * Waits for this run's end in status.plannedFailover. Reads are retried: the harness shares the
   * worker's API client, and a refused write can cost a pooled connection that a read then meets.
   */
  private PlannedFailoverStatus awaitEnd(String startedAfter) {
    long until = System.nanoTime() + CASE_TIMEOUT.toNanos();
    while (System.nanoTime() < until) {
      PlannedFailoverStatus s = read(() -> stack.api().plannedStatus().orElse(null));
      if (s != null && s.startTime() != null && s.startTime().compareTo(startedAfter) >= 0
          && ("Succeeded".equals(s.phase()) || "Failed".equals(s.phase()))) {
        long annotationUntil = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (read(() -> stack.api().annotation().isPresent()) && System.nanoTime() < annotationUntil) {
          WritableWatch.sleep(20);
        }
        return s;
      }
      WritableWatch.sleep(20);
    }
    // What a DBA would look at: the run's pending activities and its last events.
    throw new IllegalStateException("no Succeeded or Failed within " + CASE_TIMEOUT + "; "
        + io.shipstream.failover.dev.HistoryProfile.describe(stack.controlPlane().client(),
            stack.api().ref().workflowId()));
  }

  static <T> T read(java.util.function.Supplier<T> call) {
    for (int attempt = 1;; attempt++) {
      try {
        return call.get();
      } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
        if (attempt == 5) {
          throw e;
        }
        WritableWatch.sleep(100);
      }
    }
  }

  private void awaitWorkflowClosed() {
    try {
      stack.controlPlane().client().newUntypedWorkflowStub(WORKFLOW_ID).getResult(CASE_TIMEOUT.toSeconds(),
          TimeUnit.SECONDS,
          PlannedFailoverStatus.class);
    } catch (Exception e) {
      throw new IllegalStateException("the workflow did not close: " + e.getMessage() + "; "
          + io.shipstream.failover.dev.HistoryProfile.describe(stack.controlPlane().client(), WORKFLOW_ID), e);
    }
  }

  private void later(long millis, Runnable action) {
    Thread t = new Thread(() -> {
      WritableWatch.sleep(millis);
      action.run();
    }, "fault-later");
    t.setDaemon(true);
    t.start();
    helpers.add(t);
  }

  private void joinHelpers() {
    for (Thread t : List.copyOf(helpers)) {
      try {
        t.join(30_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    helpers.clear();
  }

  private void closeStack() {
    controlProxies.values().forEach(TcpProxy::close);
    replicationProxies.values().forEach(TcpProxy::close);
    controlProxies.clear();
    replicationProxies.clear();
    if (stack != null) {
      stack.close();
      stack = null;
    }
  }

  private void closeRegions() {
    if (regions != null) {
      stacks += regions.stacksStarted();
      regions.close();
      regions = null;
    }
  }

  /** How many stacks were started: more than one means a case left one unusable. */
  public int stacksStarted() {
    return stacks + (regions == null ? 0 : regions.stacksStarted());
  }

  @Override
  public void close() {
    closeStack();
    closeRegions();
  }

  /** The suite's own frame an exception came through, to tell a harness bug from a stack one. */
  private static String where(Throwable e) {
    for (StackTraceElement frame : e.getStackTrace()) {
      if (frame.getClassName().startsWith("io.shipstream")) {
        return frame.getClassName().replaceAll(".*\\.", "") + ":" + frame.getLineNumber();
      }
    }
    return "?";
  }

  private static String other(String site) {
    return "iad".equals(site) ? "pdx" : "iad";
  }

  private static double seconds(long startedNanos) {
    return (System.nanoTime() - startedNanos) / 1e9;
  }
}
