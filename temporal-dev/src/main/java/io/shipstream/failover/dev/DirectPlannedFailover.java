package io.shipstream.failover.dev;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.shipstream.failover.activities.kubernetes.KubernetesActivitiesImpl;
import io.shipstream.failover.activities.mysql.Heartbeat;
import io.shipstream.failover.activities.mysql.MysqlActivitiesImpl;
import io.shipstream.failover.kube.SecretCredentialsProvider;
import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.WorkflowRef;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.mysql.MysqlConnections;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.shipstream.failover.workflows.activities.KubernetesActivities.GroupSnapshot;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.shipstream.failover.workflows.activities.MysqlActivities.FenceResult;
import io.shipstream.failover.workflows.activities.MysqlActivities.PromoteResult;
import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.CheckedRequest;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Plan;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Proceed;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The planned failover's happy path without Temporal: the same activity implementations the
 * worker hosts, called in the workflow's order from one JVM, with the same concurrency (every
 * site inspected at once; the unlabel and the session drain beside the lag wait; DNS, taints and
 * the old primary's rejoin side by side) and the status and Events written in order off the
 * critical path, as the workflow's StatusPublisher does. No durability, no retries, no
 * rollback: it exists so the benchmark can print what orchestration costs.
 */
public final class DirectPlannedFailover implements AutoCloseable {
  private final KubernetesActivities k8s;
  private final MysqlActivities mysql;
  private final Clock clock;
  private final ExecutorService parallel = Executors.newCachedThreadPool(daemon("direct-step"));
  private final ExecutorService statusWriter = Executors.newSingleThreadExecutor(daemon("direct-status"));
  private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);
  private volatile Duration lastServerWindow;
  private volatile String lastSteps = "";

  public DirectPlannedFailover(KubernetesClient client, Clock clock) {
    this.clock = clock;
    this.k8s = new KubernetesActivitiesImpl(client, clock);
    this.mysql = new MysqlActivitiesImpl(new SecretCredentialsProvider(client, clock), clock, new MysqlConnections(),
        Heartbeat.NONE);
  }

  /** Fails {@code group} over as the annotation value asks; returns the final status it wrote. */
  public PlannedFailoverStatus run(GroupRef group, String annotation) {
    Instant started = clock.instant();
    WorkflowRef ref = new WorkflowRef("DirectPlannedFailover", "direct/" + group, started.toString());
    GroupSnapshot snapshot = k8s.loadGroup(group);
    Progress p = new Progress(started);
    status(group, p.with("Pending"), ref);
    event(group, "Normal", "PlannedFailoverStarted", "planned failover requested: " + annotation);
    status(group, p.with("Validating"), ref);
    CheckedRequest request = (CheckedRequest) PlannedFailoverPlanner.precheck(snapshot, annotation);
    Map<String, CompletableFuture<ServerState>> inspecting = new LinkedHashMap<>();
    for (SiteSpec site : request.config().sites()) {
      inspecting.put(site.name(), async(() -> mysql.inspect(target(group, request.config(), site))));
    }
    Map<String, ServerState> states = new LinkedHashMap<>();
    inspecting.forEach((name, f) -> states.put(name, f.join()));
    var decision = PlannedFailoverPlanner.decide(request, snapshot.status(), states, clock.instant());
    if (!(decision instanceof Proceed proceed)) {
      throw new IllegalStateException("the direct run only covers the happy path, got " + decision);
    }
    Plan plan = proceed.plan();
    p.target = plan.target().name();
    p.source = plan.source().name();

    MysqlTarget source = target(group, plan.config(), plan.source());
    MysqlTarget target = target(group, plan.config(), plan.target());
    long catchUpStarted = System.nanoTime();
    if (plan.catchUpBeforeFence() != null) {
      // As the workflow does: the target catches up while writes still flow, for a few seconds at most.
      try {
        mysql.catchUpBeforeFence(target, plan.catchUpBeforeFence(),
            clock.instant().plus(PlannedFailoverPlanner.CATCH_UP_BEFORE_FENCE_AT_MOST));
      } catch (RuntimeException e) {
        // The lag gate after the fence waits for the rest.
      }
    }
    long catchUpEnded = System.nanoTime();
    status(group, p.with("Draining"), ref);
    long fenceStarted = System.nanoTime();
    FenceResult fence = mysql.fence(source);
    long fenceEnded = System.nanoTime();
    p.fencedAt = fence.gtidExecuted();
    status(group, p.with("Draining"), ref);
    event(group, "Normal", "PlannedFailoverDraining", "source " + p.source + " fenced at " + fence.gtidExecuted());
    CompletableFuture<Void> unlabel = async(() -> k8s.setSiteRole(group, plan.source(), "replica"));
    if (fence.appConnections() > 0) {
      Instant deadline = clock.instant().plus(plan.config().drainTimeout());
      async(() -> mysql.killAppConnections(source, deadline));
    }

    status(group, p.with("WaitingForLag"), ref);
    long lagStarted = System.nanoTime();
    mysql.waitForGtidSet(target, fence.gtidExecuted(), clock.instant().plus(plan.maxLagWait()));
    long lagEnded = System.nanoTime();
    event(group, "Normal", "PlannedFailoverLagOK", p.target + " holds every transaction of " + p.source);
    unlabel.join();

    status(group, p.with("Promoting"), ref);
    String recordedAt = clock.instant().toString();
    k8s.recordFailover(group, p.target, recordedAt, null);
    long promoteStarted = System.nanoTime();
    PromoteResult promoted = mysql.promote(target, clock.instant().plus(plan.config().connectionDrainTimeout()),
        io.shipstream.failover.model.topology.SemiSyncPlan.atPromotion(plan.config(), target.site()),
        plan.targetReplicatesFromSource());
    p.promotedAt = promoted.gtidExecuted();
    long promoteEnded = System.nanoTime();
    lastSteps = String.format("catch-up before the fence %.0f ms, fence %.0f ms, then %.0f ms, lag gate %.0f ms,"
        + " then %.0f ms, promote %.0f ms", (catchUpEnded - catchUpStarted) / 1e6, (fenceEnded - fenceStarted) / 1e6,
        (lagStarted - fenceEnded) / 1e6, (lagEnded - lagStarted) / 1e6, (promoteStarted - lagEnded) / 1e6,
        (promoteEnded - promoteStarted) / 1e6);
    lastServerWindow = fence.fencedAt() == null || promoted.writableAt() == null ? null
        : Duration.between(fence.fencedAt(), promoted.writableAt());
    // As the workflow's tail: the label, DNS, taints and the rejoin at once, the record beside them.
    CompletableFuture<Void> label = async(() -> k8s.setSiteRole(group, plan.target(), "primary"));
    CompletableFuture<Void> rest = CompletableFuture.allOf(
        async(() -> k8s.updateDns(group, plan.config().dnsHostname(), plan.target().lbIP(), plan.config().dnsTtl())),
        async(() -> k8s.applyTaints(group, plan.config().sites(), p.target)),
        async(() -> mysql.replicateFrom(source, target)));
    label.join();
    status(group, p.with("Resuming"), ref);
    k8s.recordFailover(group, p.target, recordedAt, promoted.gtidExecuted());
    rest.join();
    p.completed = clock.instant();
    PlannedFailoverStatus done = p.with("Succeeded");
    status(group, done, ref);
    event(group, "Normal", "PlannedFailoverCompleted", "promoted " + p.target + " (direct run)");
    tail.join();
    k8s.clearAnnotation(group, annotation);
    return done;
  }

  /**
   * The last run's server-side window: the fence applied on the source to the target writable, as
   * the activities estimated them; null when they did not say.
   */
  public Duration lastServerWindow() {
    return lastServerWindow;
  }

  /** The last run's window steps as the caller saw them: each call's time and the gaps between. */
  public String lastSteps() {
    return lastSteps;
  }

  private void status(GroupRef group, PlannedFailoverStatus s, WorkflowRef ref) {
    tail = tail.thenRunAsync(() -> k8s.writePlannedFailoverStatus(group, s, ref), statusWriter);
  }

  private void event(GroupRef group, String type, String reason, String message) {
    tail = tail.thenRunAsync(
        () -> k8s.emitEvents(group, List.of(new KubernetesActivities.EventNote(type, reason, message))), statusWriter);
  }

  private <T> CompletableFuture<T> async(java.util.function.Supplier<T> step) {
    return CompletableFuture.supplyAsync(step, parallel);
  }

  private CompletableFuture<Void> async(Runnable step) {
    return CompletableFuture.runAsync(step, parallel);
  }

  private static MysqlTarget target(GroupRef group, GroupConfig config, SiteSpec site) {
    return new MysqlTarget(group, site.name(), site.mysql().host(), GroupConfig.mysqlPort(site),
        config.credentialsSecret());
  }

  /** What status.plannedFailover says, built up as the run goes. */
  private static final class Progress {
    final Instant started;
    String target;
    String source;
    String fencedAt;
    String promotedAt;
    Instant completed;

    Progress(Instant started) {
      this.started = started;
    }

    PlannedFailoverStatus with(String phase) {
      Double duration = completed == null ? null : Duration.between(started, completed).toMillis() / 1000.0;
      return new PlannedFailoverStatus(phase, target, source, fencedAt, promotedAt, started.toString(),
          completed == null ? null : completed.toString(), duration, completed == null ? null : 0L, null, null,
          null, null);
    }
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  @Override
  public void close() {
    parallel.shutdownNow();
    statusWriter.shutdownNow();
  }
}
