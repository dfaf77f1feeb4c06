package io.shipstream.failover.workflows.common;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.HooksConfig;
import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.RoleLabel;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.WorkflowRef;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.crd.WriteWindow;
import io.shipstream.failover.workflows.SearchAttributes;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.contract.Events;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Functions;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

/**
 * The skeleton both failover runbooks share, and what every step of one failover holds: the group,
 * the progress, where the status and Events go, the stubs chosen for the short calls, the cancel
 * request and the metrics. A step reports through it: {@link #enter} a phase, {@link #warn} or
 * {@link #inform} with an Event, {@link #settle} a step that cannot undo the promotion; the
 * runbook ends through {@link #succeed} or {@link #fail}, which {@link #finish} the run. The steps
 * both runbooks take around the promotion live here too: {@link #nameTargetActive} before it,
 * {@link #flipRouting} and {@link #recordPromotionPoint} after it. The runbook and its
 * collaborators hold the same instance, so the status and the Events keep the order in which the
 * steps write them. Workflow code: it runs on the workflow thread and its time is
 * {@code Workflow.currentTimeMillis}.
 */
public final class FailoverRun {
  private static final Logger log = Workflow.getLogger(FailoverRun.class);

  public final FailoverKind kind;
  public final GroupRef group;
  /** The planned request's annotation value, cleared when the run ends; null for an emergency failover. */
  public final String annotation;
  public final FailoverProgress progress;
  public final StatusPublisher publisher;
  public final KubernetesActivities k8s;
  /**
   * The Kubernetes calls made beside a step of the write window (ordinary activities, whose commands
   * leave with the step's; see {@link #openWriteWindow}).
   */
  public final KubernetesActivities k8sAside;
  /** The inspection and the re-pointing: the runbook's stub for quick, idempotent MySQL calls. */
  public final MysqlActivities quickMysql;
  public final FailoverMetrics metrics;
  public final CancelRequest cancel;
  /** The write window's MySQL steps, on the worker that holds their connections. */
  public final OnConnections onConnections = new OnConnections(this);
  /**
   * How long a write window holds the status and Events back before it shows them anyway: longer
   * than a switchover whose target keeps up takes from its fence to its end, so that the timer
   * does not fire while it completes (which would have its last task run again).
   */
  public static final Duration WINDOW_WRITES_HELD_AT_MOST = Duration.ofSeconds(3);

  /**
   * The task queue of the worker whose kept connections the latest inspection opened ({@code
   * MysqlActivities#connectionsQueue}), where the write window's steps go ({@link OnConnections});
   * null: the shared queue.
   */
  public String connectionsQueue;
  private String failoverRecordedAt;
  // Between the fence and the writers' routing to the new primary.
  private boolean windowOpen;
  // Set once the runbook knows its plan: a failover refused before that calls no hook.
  private FailoverHooks hooks;

  public FailoverRun(FailoverKind kind, GroupRef group, String annotation, FailoverProgress progress,
      KubernetesActivities k8s, MysqlActivities quickMysql, FailoverMetrics metrics, CancelRequest cancel) {
    this.kind = kind;
    this.group = group;
    this.annotation = annotation;
    this.progress = progress;
    this.k8s = k8s;
    this.k8sAside = ActivityStubs.kubernetes();
    this.quickMysql = quickMysql;
    this.metrics = metrics;
    this.cancel = cancel;
    var info = Workflow.getInfo();
    this.publisher =
        new StatusPublisher(k8s, k8sAside, group, new WorkflowRef(kind.workflowType(), info.getWorkflowId(),
            info.getRunId()));
  }

  /**
   * Runs the runbook in a detached scope, with a cancel request through Temporal (UI, CLI) taken as
   * the cancel signal: see {@link CancelRequest}. The SDK still marks such an execution cancelled,
   * however it ended: the resource's status tells the outcome.
   */
  public static <T> T runDetached(Functions.Proc1<String> cancelSignal, Functions.Func<T> runbook) {
    CancellationScope.current().getCancellationRequest().thenApply(why -> {
      cancelSignal.apply(why);
      return null;
    });
    List<T> result = new ArrayList<>(1);
    Workflow.newDetachedCancellationScope(() -> result.add(runbook.apply())).run();
    return result.get(0);
  }

  /** The cancel signal: taken, or logged as ignored when it comes too late. */
  public static void cancel(CancelRequest cancel, FailoverProgress progress, GroupRef group, String reason) {
    String ignored = cancel.request(progress.phase, reason);
    if (ignored != null) {
      log.info("cancel of {} ignored in phase {}: {}", group, progress.phase, ignored);
    }
  }

  /**
   * The webhooks of this failover, from here on: the post-hook is called when the run finishes,
   * whatever the outcome. Called once the plan is known; a request refused before calls none.
   */
  public FailoverHooks useHooks(HooksConfig config) {
    hooks = new FailoverHooks(this, config);
    return hooks;
  }

  // --- Reporting ---------------------------------------------------------------------------------

  public void enter(Phase phase, String message) {
    progress.phase = phase;
    log.info("{} {} failover: {} ({})", group, kind.label(), phase, message);
    publishStatus();
    SearchAttributes.phase(phase, progress.target);
    showDetails(message);
  }

  /**
   * Says what the current step does now, within its phase: a long wait that learnt how far it has
   * to go, say. Only the current details change (see {@link #showDetails}), no command.
   */
  public void show(String step) {
    showDetails(step);
  }

  /**
   * The workflow's current details in the Temporal UI (and its {@code __temporal_workflow_metadata}
   * query): the phase, what the step waits for or does, and the notes so far. Kept in the
   * workflow's memory only, never in the history, so setting it adds no command and replays
   * unchanged.
   */
  private void showDetails(String step) {
    StringBuilder details = new StringBuilder().append(kind.label()).append(" failover of ").append(group)
        .append("\n\n**Phase:** ").append(progress.phase);
    if (step != null && !step.isBlank()) {
      details.append("\n\n**Now:** ").append(step);
    }
    if (progress.sourceGtidAtFence != null) {
      details.append("\n\n**Source fenced at:** ").append(progress.sourceGtidAtFence);
    }
    if (progress.message != null && !progress.message.isBlank()) {
      details.append("\n\n**Notes:** ").append(progress.message);
    }
    Workflow.setCurrentDetails(details.toString());
  }

  public void publishStatus() {
    if (kind == FailoverKind.PLANNED) {
      publisher.status(progress.toPlannedStatus());
    } else {
      publisher.status(progress.toEmergencyStatus());
    }
  }

  public void event(Events event, String message) {
    publisher.event(event, message);
  }

  /** A Warning Event whose message also goes into the status. */
  public void warn(Events event, String message) {
    progress.note(message);
    publisher.event(event, message);
  }

  /** Like {@link #warn}, for what went right but belongs in the record. */
  public void inform(Events event, String message) {
    progress.note(message);
    publisher.event(event, message);
  }

  /** Waits for a step that cannot undo the promotion; true when it succeeded, a failure becomes a warning. */
  public boolean settle(Promise<Void> step, Events event, String what) {
    try {
      step.get();
      return true;
    } catch (ActivityFailure e) {
      warn(event, what + ": " + Failures.rootMessage(e));
      return false;
    }
  }

  // --- The write window ----------------------------------------------------------------------------

  /**
   * From the fence on, until {@link #closeWriteWindow}: the application cannot write, so nothing
   * but the window's own steps (the lag gate, the failover record, the promotion) may stand between
   * them. A local activity holds up the workflow task that runs it until it is done, and with it
   * the command of the next step, so status writes and Events are held meanwhile ({@link
   * StatusPublisher#holdForTheWindow}) and go out when the window closes. A window still open after
   * {@link #WINDOW_WRITES_HELD_AT_MOST} (a target that lags) lets them go as ordinary activities, so
   * a long wait still shows its phase and Events as it happens. That timer is never cancelled (a
   * window that closed first makes it do nothing): cancelling a timer that fires in the same moment
   * left Temporal's test server holding the workflow's last task forever, and a failover that ends
   * before it fires simply drops it.
   */
  public void openWriteWindow() {
    publisher.holdForTheWindow();
    windowOpen = true;
    Workflow.newTimer(WINDOW_WRITES_HELD_AT_MOST).thenApply(fired -> {
      if (windowOpen) {
        publisher.releaseAside();
      }
      return fired;
    });
  }

  /**
   * The writers are routed to the new primary (or the run aborted, or its promotion failed): the
   * held writes go out, and writes are local activities again.
   */
  public void closeWriteWindow() {
    windowOpen = false;
    publisher.release();
  }

  // --- Cancel --------------------------------------------------------------------------------------

  /** Runs an activity in a scope that the cancel cancels, so a long wait stops at once. */
  public <T> T cancellable(Functions.Func<Promise<T>> call) {
    List<Promise<T>> holder = new ArrayList<>(1);
    CancellationScope scope = Workflow.newCancellationScope(() -> holder.add(call.apply()));
    scope.run();
    Promise<T> promise = holder.get(0);
    Workflow.await(() -> promise.isCompleted() || cancel.stops());
    if (!promise.isCompleted()) {
      FailoverAbort abort = cancel.abort("in " + progress.phase);
      scope.cancel(cancel.requested ? cancel.reason : abort.getMessage());
      throw abort;
    }
    return promise.get();
  }

  /**
   * Aborts when a cancel was taken, or the watcher said the source is dead; {@code when} says
   * where, as in "before promotion".
   */
  public void checkNotCancelled(String when) {
    if (cancel.stops()) {
      throw cancel.abort(when);
    }
  }

  /** The sourceDied signal: taken, or logged as ignored when it comes too late. */
  public static void sourceDied(CancelRequest cancel, FailoverProgress progress, GroupRef group, String why) {
    String ignored = cancel.sourceDied(progress.phase, why);
    if (ignored != null) {
      log.info("source death of {} ignored in phase {}: {}", group, progress.phase, ignored);
    }
  }

  // --- Around the promotion ------------------------------------------------------------------------

  /**
   * Enters Promoting and names the target active before it becomes writable: every sidecar fences a
   * writable server whose status names another site, so naming it afterwards would invite its own
   * sidecar to fence the new primary. This moves {@code lastFailover}, not the anti-flap cooldown,
   * which starts only from a promotion that took effect ({@link #recordPromotionPoint}). Throws the
   * activity's failure when the API server refused the write for its whole retry budget; what that
   * means is the runbook's to decide.
   */
  public void nameTargetActive(SiteSpec target) {
    enter(Phase.Promoting, "promoting " + target.name());
    failoverRecordedAt = now().toString();
    k8s.recordFailover(group, target.name(), failoverRecordedAt, null);
  }

  /**
   * Names {@code site} active again with the failover's time, for a rollback after {@link
   * #nameTargetActive}: the same time, because the record never goes back ({@code lastFailover}
   * only grows), and no promotion point, so the rolled-back failover starts no cooldown.
   */
  public void nameActiveAgain(SiteSpec site) {
    k8s.recordFailover(group, site.name(), failoverRecordedAt, null);
  }

  /**
   * Starts routing writes to the new primary: its role label (so the primary Service), DNS and the
   * taints side by side, since none waits for another and the label is one call among three, not
   * behind two. {@link RoutingFlip#labelled} waits for the label (the writers' way back),
   * {@link RoutingFlip#settle} for the rest. None of these can undo the promotion, so each failure
   * is a warning, and each is counted.
   */
  public RoutingFlip flipRouting(GroupConfig config, SiteSpec target) {
    Promise<Void> label = Async.procedure(k8s::setSiteRole, group, target, RoleLabel.PRIMARY);
    boolean hasDns = config.dnsHostname() != null && target.lbIP() != null;
    Promise<Void> dns = hasDns ? Async.procedure(k8s::updateDns, group, config.dnsHostname(), target.lbIP(),
        config.dnsTtl()) : null;
    Promise<Void> taints = Async.procedure(k8s::applyTaints, group, config.sites(), target.name());
    return new RoutingFlip(target, label, dns, taints);
  }

  /** The label, DNS and taints being brought to the new primary. */
  public final class RoutingFlip {
    private final SiteSpec target;
    private final Promise<Void> label;
    private final Promise<Void> dns;
    private final Promise<Void> taints;
    private boolean labelSettled;

    private RoutingFlip(SiteSpec target, Promise<Void> label, Promise<Void> dns, Promise<Void> taints) {
      this.target = target;
      this.label = label;
      this.dns = dns;
      this.taints = taints;
    }

    /** Waits for the target's primary label; a failure is a warning. */
    public void labelled() {
      if (!labelSettled) {
        labelSettled = true;
        FailoverRun.this.settle(label, Events.ROUTING_UPDATE_FAILED, "could not label " + target.name() + " primary");
      }
    }

    /** Waits for the label, DNS and the taints. */
    public void settle() {
      labelled();
      if (dns != null) {
        metrics.dnsFlip(FailoverRun.this.settle(dns, Events.DNS_FLIP_FAILED, "DNS flip to " + target.lbIP()
            + " failed"));
      }
      metrics.taintOperation(FailoverRun.this.settle(taints, Events.TAINT_UPDATE_FAILED, "node taints not updated"));
    }
  }

  /**
   * Resuming: the failover's record gets the promotion point, with the time the target was named
   * active; with it the record sets {@code lastPromotion}, where the anti-flap cooldown starts (the
   * promotion took effect). The target is writable, routed and already named active, so a failure is a warning
   * ({@code what} and the error), no reason to fail a failover that happened.
   */
  public void recordPromotionPoint(SiteSpec target, Events onFailure, String what) {
    settle(startRecordingPromotionPoint(target), onFailure, what);
  }

  /**
   * {@link #recordPromotionPoint} started now, beside the routing and the rejoin, none of which it
   * waits for or holds up; the caller settles the returned write with {@link #settle}.
   */
  public Promise<Void> startRecordingPromotionPoint(SiteSpec target) {
    enter(Phase.Resuming, "recording the failover to " + target.name());
    return Async.procedure(k8s::recordFailover, group, target.name(), failoverRecordedAt,
        progress.targetGtidAtPromotion);
  }

  // --- The end ---------------------------------------------------------------------------------------

  /** Ends as Succeeded: {@code summary} leads the message, the notes of the run follow it. */
  public void succeed(String summary, Events event) {
    succeed(summary, event, () -> {});
  }

  /**
   * As {@link #succeed(String, Events)}, with {@code afterwards} run once Succeeded is on its way
   * (its status write and Event issued, not waited for) and before the run {@link #finish}es: what
   * belongs in the record of this failover but must not delay its outcome.
   */
  public void succeed(String summary, Events event, Functions.Proc afterwards) {
    settlePreHook();
    WriteWindow window = kind == FailoverKind.PLANNED ? progress.plannedWindow() : progress.emergencyWindow();
    summary += windowText(window);
    progress.message = progress.message == null ? summary : summary + "; " + progress.message;
    progress.phase = Phase.Succeeded;
    progress.completionTime = now();
    metrics.writeWindow(window);
    publishStatus();
    SearchAttributes.phase(progress.phase, progress.target);
    showDetails(null);
    publisher.event(event, progress.message);
    metrics.finished(progress.target, FailoverMetrics.SUCCESS, Duration.between(progress.startTime,
        progress.completionTime));
    afterwards.apply();
    finish();
  }

  /** The write window in words, for the message and the Event; empty when it was not measured. */
  private String windowText(WriteWindow w) {
    if (w == null) {
      return "";
    }
    if (kind == FailoverKind.PLANNED) {
      return "; write window " + w.seconds() + " s (fence applied on the source to the target writable"
          + (w.lagWaitSeconds() == null ? "" : ", the lag gate " + w.lagWaitSeconds() + " s of it") + ")";
    }
    return "; write window " + w.seconds() + " s (the watcher's detection to the candidate writable"
        + (w.sinceLastPollSeconds() == null ? "" : "; the primary last answered a poll " + w.sinceLastPollSeconds()
            + " s before the detection")
        + ")";
  }

  /** Ends as Failed with the reason; the Event says the reason and {@code message}. */
  public void fail(Reason reason, String message, Events event) {
    settlePreHook();
    progress.phase = Phase.Failed;
    progress.reason = reason;
    progress.message = !kind.keepsNotesOnFailure() || progress.message == null ? message
        : message + "; " + progress.message;
    progress.completionTime = now();
    publishStatus();
    SearchAttributes.phase(progress.phase, progress.target);
    showDetails("ended: " + reason);
    publisher.event(event, reason + ": " + message);
    metrics.finished(progress.target, kind.result(reason), Duration.between(progress.startTime,
        progress.completionTime));
    finish();
  }

  /** An emergency pre-hook still under way has its say (a note) before the outcome is written. */
  private void settlePreHook() {
    if (hooks != null) {
      hooks.settlePre();
    }
  }

  /**
   * Waits for every write, calls the post-hook once the outcome is in the status, and clears the
   * planned request's annotation, unless the user changed it meanwhile.
   */
  public void finish() {
    publisher.flush();
    if (hooks != null) {
      hooks.post();
      publisher.flush();
    }
    if (annotation == null) {
      return;
    }
    try {
      k8s.clearAnnotation(group, annotation);
    } catch (ActivityFailure e) {
      log.warn("could not clear the planned-failover annotation of {}: {}", group, Failures.rootMessage(e));
    }
  }

  // --- Servers ---------------------------------------------------------------------------------------

  /**
   * Inspects the sites at once, so a slow site costs its own timeout, not the sum of all; a read
   * that fails counts as an unreachable server. By site name, in the order given.
   */
  public Map<String, ServerState> inspectAll(GroupConfig config, List<SiteSpec> sites) {
    return inspectAll(quickMysql, group, config, sites);
  }

  /** As {@link #inspectAll(GroupConfig, List)}, through {@code mysql} (a dry run's own stub). */
  public static Map<String, ServerState> inspectAll(MysqlActivities mysql, GroupRef group, GroupConfig config,
      List<SiteSpec> sites) {
    Map<String, Promise<ServerState>> pending = new LinkedHashMap<>();
    for (SiteSpec site : sites) {
      pending.put(site.name(), Async.function(mysql::inspect, MysqlTarget.of(group, config, site)));
    }
    Map<String, ServerState> states = new LinkedHashMap<>();
    pending.forEach((name, promise) -> {
      try {
        states.put(name, promise.get());
      } catch (ActivityFailure e) {
        states.put(name, ServerState.unreachable(name, Failures.rootMessage(e)));
      }
    });
    return states;
  }

  /** The workflow's time: the one clock of workflow code. */
  public static Instant now() {
    return Instant.ofEpochMilli(Workflow.currentTimeMillis());
  }
}
