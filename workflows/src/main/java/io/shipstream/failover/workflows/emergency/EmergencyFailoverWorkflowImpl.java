package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.WorkflowRef;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.workflows.EmergencyFailoverWorkflow;
import io.shipstream.failover.workflows.SearchAttributes;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.shipstream.failover.workflows.activities.KubernetesActivities.GroupSnapshot;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.shipstream.failover.workflows.activities.MysqlActivities.DrainResult;
import io.shipstream.failover.workflows.activities.MysqlActivities.FenceResult;
import io.shipstream.failover.workflows.activities.MysqlActivities.PromoteResult;
import io.shipstream.failover.workflows.activities.DragonflyActivities.Promotion;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.activities.StoreState;
import io.shipstream.failover.workflows.activities.StoreTarget;
import io.shipstream.failover.workflows.common.ActivityStubs;
import io.shipstream.failover.workflows.common.Failures;
import io.shipstream.failover.workflows.common.StatusPublisher;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.TemporalFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Saga;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;

/**
 * The emergency-failover runbook. {@link #failover} reads as the procedure an operator would
 * follow by hand when the active site's primary died; each step is a small method below it.
 * Before {@link #promoteCandidate} a failure or cancel undoes the fence; from there on the
 * candidate may be writable and the workflow only goes forward. Two writable primaries are
 * avoided by order: the candidate is made writable only after the fence attempt on the failed
 * primary has ended, the failed site's role label is gone, the candidate is named active and the
 * failed primary is known to take no writes (fenced, or its sidecar says so, or its lease ran out).
 */
public class EmergencyFailoverWorkflowImpl implements EmergencyFailoverWorkflow {
  static final String PRIMARY = "primary";
  static final String REPLICA = "replica";
  /** How long the failed primary's sessions are killed for once it is fenced; they cannot write anyway. */
  static final Duration SESSION_KILL_BUDGET = Duration.ofSeconds(5);
  /**
   * The change id of the steps with the other survivors: the candidate caught up from a fresher
   * replica before promotion, every survivor re-pointed at the new primary after. A failover
   * started on an older worker replays without them.
   */
  static final String SURVIVOR_STEPS = "survivor-catch-up-and-repoint";
  /** The change id of the session store's promotion at {@link #promoteDragonfly}. */
  static final String SESSION_STORE = "session-store-promotion";
  /**
   * The change id of the wait for proof that the old primary takes no writes before the candidate
   * is made writable ({@link OldPrimaryGate}). A failover started on an older worker replays
   * without it.
   */
  static final String OLD_PRIMARY_GUARD = "old-primary-fence-proof";
  private static final Logger log = Workflow.getLogger(EmergencyFailoverWorkflowImpl.class);

  private final KubernetesActivities k8s = ActivityStubs.kubernetes();
  private final MysqlActivities mysql = ActivityStubs.mysql();
  private final MysqlActivities failedServer = ActivityStubs.mysqlBestEffort();
  private final EmergencyFailoverProgress progress = new EmergencyFailoverProgress();
  private final EmergencyFailoverMetrics metrics = new EmergencyFailoverMetrics();
  private GroupRef group;
  private StatusPublisher publisher;
  private boolean cancelRequested;
  private String cancelReason;
  private String failoverRecordedAt;
  private Promise<DrainResult> sessionKill;
  private Map<String, String> siteGtids;
  private Set<String> divergentSites = Set.of();
  private Survivors survivors;

  @Override
  public EmergencyFailoverStatus run(Request request) {
    // A cancel request through Temporal (UI, CLI) means the same as the cancel signal. The runbook
    // runs detached so that such a request can never interrupt a promotion half-way; before
    // Promoting it is honoured at the next step, with the fence undone. The SDK still marks the
    // execution cancelled, however it ended: the resource's status tells the outcome.
    CancellationScope.current().getCancellationRequest().thenApply(why -> {
      cancel(why);
      return null;
    });
    List<EmergencyFailoverStatus> result = new ArrayList<>(1);
    Workflow.newDetachedCancellationScope(() -> result.add(failover(request))).run();
    return result.get(0);
  }

  private EmergencyFailoverStatus failover(Request request) {
    begin(request);
    GroupSnapshot snapshot = k8s.loadGroup(group);
    divergentSites = Survivors.divergentSites(snapshot.status());
    EmergencyAbort stale = staleRequest(snapshot);
    if (stale != null) {
      return skip(stale);
    }
    String why = progress.trigger == null ? "no reason given" : progress.trigger;
    enter(EmergencyPhase.Pending, "primary of " + progress.failedSite + " failed: " + why);
    publisher.event("Normal", "FailoverStarted", "emergency failover from " + progress.failedSite + " to "
        + progress.target + ": " + why);
    Saga saga = new Saga(new Saga.Options.Builder().setParallelCompensation(false).build());
    EmergencyPlan plan;
    try {
      plan = plan(snapshot);
      checkCandidate(plan);
      checkNotCancelled();
      fenceFailedSite(plan, saga);
      checkNotCancelled();
    } catch (EmergencyAbort abort) {
      return rollBack(saga, abort);
    }
    if (!promoteCandidate(plan)) {
      return progress.toStatus();
    }
    reportDataLoss();
    flipRouting(plan);
    promoteDragonfly(plan);
    recordFailover(plan);
    return succeed();
  }

  // --- Pending -------------------------------------------------------------------------------

  private void begin(Request request) {
    group = request.group();
    progress.failedSite = request.failedSite();
    progress.target = request.candidate();
    progress.trigger = request.reason();
    progress.oldPrimaryLastKnownGtid = request.oldPrimaryLastKnownGtid();
    siteGtids = request.siteGtids() == null ? Map.of() : request.siteGtids();
    progress.startTime = now();
    publisher = new StatusPublisher(k8s, group, workflowRef());
  }

  /**
   * Why the request no longer applies, or null. A status naming another site than the failed one
   * active means the group moved on after the watcher decided (a re-delivered start, or a
   * failover that already happened): acting would undo it, and writing the status would
   * overwrite the real outcome.
   */
  private EmergencyAbort staleRequest(GroupSnapshot snapshot) {
    String active = snapshot.status() == null ? null : snapshot.status().activeSite();
    if (active == null || active.equals(progress.failedSite)) {
      return null;
    }
    if (active.equals(progress.target)) {
      return new EmergencyAbort(Reason.AlreadyActive, progress.target + " is already the active site");
    }
    return new EmergencyAbort(Reason.ConcurrentOperation, "the status names " + active
        + " active, not the failed site " + progress.failedSite);
  }

  /** Ends without touching anything, the resource's status included. */
  private EmergencyFailoverStatus skip(EmergencyAbort stale) {
    progress.phase = EmergencyPhase.Failed;
    progress.reason = stale.reason;
    progress.message = "request superseded, nothing done: " + stale.getMessage();
    progress.completionTime = now();
    log.info("{} emergency failover skipped: {}", group, stale.getMessage());
    return progress.toStatus();
  }

  private EmergencyPlan plan(GroupSnapshot snapshot) {
    return EmergencyPlan.resolve(group, snapshot.spec(), progress.failedSite, progress.target);
  }

  private void checkCandidate(EmergencyPlan plan) {
    ServerState state;
    try {
      state = mysql.inspect(plan.targetServer());
    } catch (ActivityFailure e) {
      state = ServerState.unreachable(plan.target().name(), Failures.rootMessage(e));
    }
    plan.checkCandidate(state);
  }

  private void checkNotCancelled() {
    if (cancelRequested) {
      throw new EmergencyAbort(Reason.Cancelled, "cancelled in " + progress.phase + ": " + cancelReason);
    }
  }

  // --- Fencing -------------------------------------------------------------------------------

  /**
   * Fences the failed primary as far as it can be reached, beside removing its primary role
   * label. The server is probably dead, so the fence gets a few seconds and then the failover
   * goes on without it: the failed site's sidecar fences its server if it comes back writable
   * while the status names another site active.
   */
  private void fenceFailedSite(EmergencyPlan plan, Saga saga) {
    enter(EmergencyPhase.Fencing, "fencing " + plan.failed().name() + " (best effort)");
    saga.addCompensation(this::restoreFailedSite, plan);
    Promise<FenceResult> fence = Async.function(failedServer::fence, plan.failedServer());
    Promise<Void> unlabel = Async.procedure(k8s::setSiteRole, group, plan.failed(), REPLICA);
    try {
      FenceResult fenced = fence.get();
      progress.oldPrimaryFenced = true;
      progress.oldPrimaryLastKnownGtid = fenced.gtidExecuted();
      if (fenced.appConnections() > 0) {
        sessionKill = Async.function(failedServer::killAppConnections, plan.failedServer(),
            now().plus(SESSION_KILL_BUDGET));
      }
    } catch (ActivityFailure e) {
      progress.oldPrimaryFenced = false;
      warn("OldPrimaryNotFenced", "could not fence " + plan.failed().name() + ", gave up: "
          + Failures.rootMessage(e) + "; its sidecar fences it should it come back writable");
    }
    try {
      unlabel.get();
    } catch (ActivityFailure e) {
      throw new EmergencyAbort(Reason.ExecuteFailed, "could not set the role label of " + plan.failed().name()
          + " to replica: " + Failures.rootMessage(e));
    }
    publisher.status(progress.toStatus());
  }

  /** The compensation of the fence: the group is left as the watcher found it. */
  private void restoreFailedSite(EmergencyPlan plan) {
    if (Boolean.TRUE.equals(progress.oldPrimaryFenced)) {
      failedServer.unfence(plan.failedServer());
    }
    k8s.setSiteRole(group, plan.failed(), PRIMARY);
  }

  // --- Promoting: the point of no return ----------------------------------------------------

  /** True once the candidate is a writable primary; false after finishing as Failed/ExecuteFailed. */
  private boolean promoteCandidate(EmergencyPlan plan) {
    enter(EmergencyPhase.Promoting, "promoting " + plan.target().name());
    // The candidate is named active before it becomes writable: every sidecar fences a writable
    // server whose status names another site, so naming it afterwards would invite its own
    // sidecar to fence the new primary. This also starts the anti-flap cooldown.
    failoverRecordedAt = now().toString();
    try {
      k8s.recordFailover(group, plan.target().name(), failoverRecordedAt, null);
    } catch (ActivityFailure e) {
      finishFailed(Reason.ExecuteFailed, "could not name " + plan.target().name() + " the active site, so it "
          + "was not made writable: " + Failures.rootMessage(e) + "; " + plan.failed().name()
          + " stays fenced and unlabelled: manual recovery required");
      return false;
    }
    // promote applies every relay-log event already received, even with the SQL thread stopped,
    // bounded by connectionDrainTimeout, and heartbeats meanwhile. Before it, the candidate's set
    // is made final and compared with the other survivors', which may hold more.
    // The old primary may be alive and only cut off from the control plane: the sidecar is asked
    // now, so its answer overlaps the drain and catch-up below.
    OldPrimaryGate guard = null;
    if (Workflow.getVersion(OLD_PRIMARY_GUARD, Workflow.DEFAULT_VERSION, 1) >= 1) {
      guard = OldPrimaryGate.start(plan, progress.oldPrimaryFenced, now(), this::warn, this::inform);
    }
    Duration relayDrain = plan.config().connectionDrainTimeout();
    if (Workflow.getVersion(SURVIVOR_STEPS, Workflow.DEFAULT_VERSION, 1) >= 1) {
      survivors = new Survivors(plan, mysql, this::warn, this::inform, divergentSites);
      survivors.catchUpCandidate(relayDrain);
    }
    if (guard != null) {
      guard.await();
    }
    try {
      PromoteResult promoted = ActivityStubs.mysqlWait(relayDrain)
          .promote(plan.targetServer(), now().plus(relayDrain));
      progress.targetGtidAtPromotion = promoted.gtidExecuted();
      if (survivors != null) {
        survivors.startRepointing();
      }
      return true;
    } catch (ActivityFailure e) {
      finishFailed(Reason.ExecuteFailed, "promotion of " + plan.target().name() + " failed: "
          + Failures.rootMessage(e) + "; " + plan.target().name() + " is recorded as the active site: "
          + "manual recovery required");
      return false;
    }
  }

  /**
   * Says what did not make it across, in the status and a Warning Event: a loss is never hidden.
   * Lost is what the old primary or any other server was known to hold and the promoted one lacks.
   */
  private void reportDataLoss() {
    List<String> known = new ArrayList<>();
    // A site held back for divergent transactions holds them since an earlier failover, not this one.
    siteGtids.forEach((site, gtid) -> {
      if (!divergentSites.contains(site)) {
        known.add(gtid);
      }
    });
    if (survivors != null) {
      known.addAll(survivors.knownGtids());
    }
    DataLoss loss = DataLoss.between(progress.oldPrimaryLastKnownGtid, known, progress.targetGtidAtPromotion);
    progress.transactionsLost = loss.transactions();
    progress.lostGtid = loss.lostGtid();
    if (!loss.known()) {
      warn("DataLossUnknown", "transactions lost unknown: " + loss.unknownBecause());
    } else if (loss.any()) {
      warn("DataLossDetected", loss.transactions() + " transactions committed on " + progress.failedSite
          + " are not on " + progress.target + ": " + loss.lostGtid());
    }
    publisher.status(progress.toStatus());
  }

  /**
   * Routes writes to the new primary first (the Service), then DNS and taints side by side. None
   * of these can undo the promotion, so each failure is a warning.
   */
  private void flipRouting(EmergencyPlan plan) {
    try {
      k8s.setSiteRole(group, plan.target(), PRIMARY);
    } catch (ActivityFailure e) {
      warn("RoutingUpdateFailed", "could not label " + plan.target().name() + " primary: "
          + Failures.rootMessage(e));
    }
    GroupConfig config = plan.config();
    boolean hasDns = config.dnsHostname() != null && plan.target().lbIP() != null;
    Promise<Void> dns = hasDns ? Async.procedure(k8s::updateDns, group, config.dnsHostname(),
        plan.target().lbIP(), config.dnsTtl()) : null;
    Promise<Void> taints = Async.procedure(k8s::applyTaints, group, config.sites(), plan.target().name());
    if (dns != null) {
      metrics.dnsFlip(settle(dns, Reason.DnsFlipFailed.name(), "DNS flip to " + plan.target().lbIP() + " failed"));
    }
    metrics.taintOperation(settle(taints, "TaintUpdateFailed", "node taints not updated"));
  }

  /**
   * The session store follows MySQL: its master is presumably dead with its site, so there is
   * nothing to take over from losslessly; the freshest reachable replica is promoted on its own
   * (REPLICAOF NO ONE), the other reachable stores follow it, and the pods are relabelled. Nothing
   * here can fail the failover: MySQL is already promoted, so every problem is a warning. Behind
   * {@link #SESSION_STORE}, asked only when the store is enabled, so other failovers record the
   * commands they always did.
   */
  private void promoteDragonfly(EmergencyPlan plan) {
    if (!plan.config().dragonflyEnabled()
        || Workflow.getVersion(SESSION_STORE, Workflow.DEFAULT_VERSION, 1) < 1) {
      return;
    }
    List<SiteSpec> sites = plan.config().sites().stream().filter(s -> s.dragonfly() != null).toList();
    List<StoreTarget> stores = sites.stream().map(s -> StoreTarget.of(group, s)).toList();
    Promotion promotion;
    try {
      promotion = ActivityStubs.dragonfly().promoteFreshestReplica(stores, plan.target().name());
    } catch (ActivityFailure e) {
      warn("DragonflyPromotionFailed", "session store not promoted: " + Failures.rootMessage(e));
      return;
    }
    List<Promise<Void>> labels = new ArrayList<>();
    for (SiteSpec site : sites) {
      boolean master = site.name().equals(promotion.site());
      labels.add(Async.procedure(k8s::setStoreRole, group, site, master ? StoreState.MASTER : StoreState.REPLICA,
          master));
    }
    labels.forEach(l -> settle(l, "DragonflyRoutingUpdateFailed", "session-store pods not relabelled"));
    publisher.event("Normal", "DragonflyPromotionCompleted", "the " + promotion.site() + " store is the session "
        + "store master (" + promotion.method() + "): " + promotion.message());
  }

  // --- Resuming ------------------------------------------------------------------------------

  private void recordFailover(EmergencyPlan plan) {
    enter(EmergencyPhase.Resuming, "recording the failover to " + plan.target().name());
    try {
      k8s.recordFailover(group, plan.target().name(), failoverRecordedAt, progress.targetGtidAtPromotion);
    } catch (ActivityFailure e) {
      warn("FailoverRecordIncomplete", "promotionGtidExecuted not recorded: " + Failures.rootMessage(e));
    }
    if (survivors != null) {
      survivors.settleRepointing();
    }
  }

  private EmergencyFailoverStatus succeed() {
    settleSessionKill();
    String lost = progress.transactionsLost == null ? "transactions lost unknown"
        : progress.transactionsLost + " transactions lost";
    String summary = "promoted " + progress.target + " after " + progress.failedSite + " failed, " + lost;
    progress.message = progress.message == null ? summary : summary + "; " + progress.message;
    progress.phase = EmergencyPhase.Succeeded;
    progress.completionTime = now();
    publisher.status(progress.toStatus());
    SearchAttributes.phase(progress.phase.name(), progress.target);
    publisher.event("Normal", "FailoverExecuted", progress.message);
    metrics.finished(progress.target, EmergencyFailoverMetrics.SUCCESS,
        Duration.between(progress.startTime, progress.completionTime));
    publisher.flush();
    return progress.toStatus();
  }

  // --- Failure and rollback ------------------------------------------------------------------

  private EmergencyFailoverStatus rollBack(Saga saga, EmergencyAbort abort) {
    String outcome = "";
    if (progress.phase == EmergencyPhase.Fencing) {
      String failed = progress.failedSite;
      // The session kill ends first (it is bounded): it must not go on killing the sessions of a
      // server that takes writes again.
      settleSessionKill();
      try {
        saga.compensate();
        outcome = Boolean.TRUE.equals(progress.oldPrimaryFenced)
            ? "; rolled back: " + failed + " unfenced and labelled primary again"
            : "; rolled back: " + failed + " labelled primary again";
      } catch (Saga.CompensationException | TemporalFailure e) {
        outcome = "; ROLLBACK FAILED (" + Failures.rootMessage(e) + "): " + failed
            + " may stay fenced and unlabelled, manual recovery required";
      }
    }
    finishFailed(abort.reason, abort.getMessage() + outcome);
    return progress.toStatus();
  }

  private void finishFailed(Reason reason, String message) {
    settleSessionKill();
    progress.phase = EmergencyPhase.Failed;
    progress.reason = reason;
    progress.message = progress.message == null ? message : message + "; " + progress.message;
    progress.completionTime = now();
    publisher.status(progress.toStatus());
    SearchAttributes.phase(progress.phase.name(), progress.target);
    publisher.event("Warning", "FailoverFailed", reason + ": " + message);
    String result = switch (reason) {
      case InvalidSpec, UnknownSite, TargetUnhealthy -> "rejected";
      case Cancelled -> "cancelled";
      default -> "failed_other";
    };
    metrics.finished(progress.target, result, Duration.between(progress.startTime, progress.completionTime));
    publisher.flush();
  }

  /** Waits for the failed primary's session kill, if one runs: it is bounded and only reported. */
  private void settleSessionKill() {
    if (sessionKill == null) {
      return;
    }
    try {
      DrainResult drained = sessionKill.get();
      if (drained.remaining() > 0) {
        progress.note(drained.remaining() + " sessions still connected to fenced " + progress.failedSite);
      }
    } catch (ActivityFailure e) {
      progress.note("sessions of fenced " + progress.failedSite + " not killed: " + Failures.rootMessage(e));
    }
    sessionKill = null;
  }

  // --- Signals and queries -------------------------------------------------------------------

  @Override
  public void cancel(String reason) {
    if (progress.phase.isPastPointOfNoReturn()) {
      log.info("cancel of {} ignored in phase {}: the candidate may already be writable", group, progress.phase);
      return;
    }
    cancelRequested = true;
    cancelReason = reason == null || reason.isBlank() ? "cancel signal" : reason;
  }

  @Override
  public EmergencyFailoverStatus status() {
    return progress.toStatus();
  }

  // --- helpers -------------------------------------------------------------------------------

  private void enter(EmergencyPhase phase, String message) {
    progress.phase = phase;
    log.info("{} emergency failover: {} ({})", group, phase, message);
    publisher.status(progress.toStatus());
    SearchAttributes.phase(phase.name(), progress.target);
  }

  private void warn(String reason, String message) {
    progress.note(message);
    publisher.event("Warning", reason, message);
  }

  /** Like {@link #warn}, for what went right but belongs in the record. */
  private void inform(String reason, String message) {
    progress.note(message);
    publisher.event("Normal", reason, message);
  }

  /** True when the step succeeded; a failure becomes a warning. */
  private boolean settle(Promise<Void> step, String reason, String what) {
    try {
      step.get();
      return true;
    } catch (ActivityFailure e) {
      warn(reason, what + ": " + Failures.rootMessage(e));
      return false;
    }
  }

  private WorkflowRef workflowRef() {
    var info = Workflow.getInfo();
    return new WorkflowRef("EmergencyFailover", info.getWorkflowId(), info.getRunId());
  }

  private static Instant now() {
    return Instant.ofEpochMilli(Workflow.currentTimeMillis());
  }
}
