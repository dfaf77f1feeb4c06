package io.shipstream.failover.watcher;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.workflows.DryRunWorkflow;
import io.shipstream.failover.workflows.EmergencyFailoverWorkflow;
import io.shipstream.failover.workflows.FailoverSummaries;
import io.shipstream.failover.workflows.PlannedFailoverWorkflow;
import io.shipstream.failover.workflows.SearchAttributes;
import io.shipstream.failover.workflows.contract.WorkflowTypes;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.api.workflowservice.v1.SignalWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowOptions;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts and signals failover workflows. Every group has one workflow id, so Temporal itself
 * refuses a second failover while one runs; this class only reports which kind is running, as
 * {@link FailoverRuns} looks it up.
 */
public final class FailoverStarter {
  private static final Logger log = LoggerFactory.getLogger(FailoverStarter.class);

  /** What became of a start request. */
  public sealed interface Outcome permits Started, AlreadyRunning {}

  public record Started(String runId) implements Outcome {}

  /** A workflow of {@code workflowType} holds the group's id right now. */
  public record AlreadyRunning(String workflowType) implements Outcome {}

  private final WorkflowClient client;
  private final String taskQueue;
  /** The failover search attributes the namespace has: a start carries only these. */
  private final Supplier<Set<String>> searchAttributes;
  private final FailoverRuns runs;

  /** Starts with the search attributes the namespace has, as {@link RegisteredSearchAttributes} finds them. */
  public FailoverStarter(WorkflowClient client, String taskQueue) {
    this(client, taskQueue, RegisteredSearchAttributes.of(client));
  }

  FailoverStarter(WorkflowClient client, String taskQueue, Supplier<Set<String>> searchAttributes) {
    this.client = client;
    this.taskQueue = taskQueue;
    this.searchAttributes = searchAttributes;
    this.runs = new FailoverRuns(client);
  }

  /**
   * Per group, the lock every start takes: {@link #whileNoFailover} holds it across its check and
   * its action, so no failover of this watcher begins in between.
   */
  private final java.util.Map<GroupRef, Object> locks = new java.util.concurrent.ConcurrentHashMap<>();

  private Object lock(GroupRef group) {
    return locks.computeIfAbsent(group, g -> new Object());
  }

  /** An action that may fail. */
  public interface Action {
    void run() throws Exception;
  }

  /**
   * Runs {@code action} only if no failover runs for the group, holding the group's starts until it
   * returns; false (and nothing run) when one runs. Only the leading watcher starts failovers, so
   * nothing the action checked can be changed by a failover while it runs.
   */
  public boolean whileNoFailover(GroupRef group, Action action) throws Exception {
    synchronized (lock(group)) {
      if (runs.running(group)) {
        return false;
      }
      action.run();
      return true;
    }
  }

  public Outcome startPlanned(GroupRef group, String annotation, Optional<String> target) {
    synchronized (lock(group)) {
      return doStartPlanned(group, annotation, target);
    }
  }

  private Outcome doStartPlanned(GroupRef group, String annotation, Optional<String> target) {
    WorkflowOptions.Builder options = WorkflowOptions.newBuilder()
        .setWorkflowId(group.workflowId())
        .setTaskQueue(taskQueue)
        .setWorkflowIdReusePolicy(WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
        .setStaticSummary(FailoverSummaries.planned(group, target.orElse(null)));
    options.setTypedSearchAttributes(SearchAttributes.atStart(group, target.orElse(null), searchAttributes.get()));
    PlannedFailoverWorkflow stub = client.newWorkflowStub(PlannedFailoverWorkflow.class, options.build());
    try {
      var execution = WorkflowClient.start(stub::run, new PlannedFailoverWorkflow.Request(group, annotation));
      log.info("started planned failover {} for {} ({})", execution.getRunId(), group, annotation);
      return new Started(execution.getRunId());
    } catch (WorkflowExecutionAlreadyStarted e) {
      // The exception names the type this start asked for, not the one holding the id: ask.
      return new AlreadyRunning(runs.runningType(group));
    }
  }

  /**
   * Starts the emergency failover the topology monitor decided on, under the group's one workflow
   * id: while any failover runs, Temporal refuses it, and the monitor simply asks again on a later
   * poll if the verdict still stands. {@code siteGtids} is every site's GTID set as the monitor
   * last saw it, by site name: the workflow counts transactions lost against all of them.
   */
  public Outcome startEmergency(GroupRef group, String failedSite, String candidate, String oldPrimaryLastKnownGtid,
      String reason, Map<String, String> siteGtids) {
    return startEmergency(group, failedSite, candidate, oldPrimaryLastKnownGtid, reason, siteGtids, null);
  }

  /**
   * As above; {@code forced} is set when a human's promote-anyway request overrides the lag limit,
   * and the workflow records it in {@code status.emergencyFailover.forcedPromotion}.
   */
  public Outcome startEmergency(GroupRef group, String failedSite, String candidate, String oldPrimaryLastKnownGtid,
      String reason, Map<String, String> siteGtids, EmergencyFailoverStatus.ForcedPromotion forced) {
    return startEmergency(group, failedSite, candidate, oldPrimaryLastKnownGtid, reason, siteGtids, forced, null);
  }

  /**
   * As above; {@code spec} is the spec the monitor decided with (the last it accepted), which the
   * workflow acts on instead of the resource's; null: the resource's.
   */
  public Outcome startEmergency(GroupRef group, String failedSite, String candidate, String oldPrimaryLastKnownGtid,
      String reason, Map<String, String> siteGtids, EmergencyFailoverStatus.ForcedPromotion forced,
      MysqlFailoverGroupSpec spec) {
    return startEmergency(group, failedSite, candidate, oldPrimaryLastKnownGtid, reason, siteGtids, forced, spec, null,
        null);
  }

  /**
   * As above; {@code detectedAt} is when the monitor decided the primary is lost and {@code
   * lastPolledAt} when it last answered a poll (RFC 3339, null when unknown): the run's write window.
   */
  public Outcome startEmergency(GroupRef group, String failedSite, String candidate, String oldPrimaryLastKnownGtid,
      String reason, Map<String, String> siteGtids, EmergencyFailoverStatus.ForcedPromotion forced,
      MysqlFailoverGroupSpec spec, String detectedAt, String lastPolledAt) {
    synchronized (lock(group)) {
      return doStartEmergency(group, failedSite, candidate, oldPrimaryLastKnownGtid, reason, siteGtids, forced, spec,
          detectedAt, lastPolledAt);
    }
  }

  private Outcome doStartEmergency(GroupRef group, String failedSite, String candidate,
      String oldPrimaryLastKnownGtid, String reason, Map<String, String> siteGtids,
      EmergencyFailoverStatus.ForcedPromotion forced, MysqlFailoverGroupSpec spec, String detectedAt,
      String lastPolledAt) {
    WorkflowOptions.Builder options = WorkflowOptions.newBuilder()
        .setWorkflowId(group.workflowId())
        .setTaskQueue(taskQueue)
        .setWorkflowIdReusePolicy(WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
        .setStaticSummary(FailoverSummaries.emergency(group, failedSite, candidate));
    options.setTypedSearchAttributes(SearchAttributes.atStart(group, candidate, searchAttributes.get()));
    EmergencyFailoverWorkflow stub = client.newWorkflowStub(EmergencyFailoverWorkflow.class, options.build());
    try {
      var execution = WorkflowClient.start(stub::run,
          new EmergencyFailoverWorkflow.Request(group, failedSite, candidate, oldPrimaryLastKnownGtid, reason,
              siteGtids == null ? null : new TreeMap<>(siteGtids), forced, spec, detectedAt, lastPolledAt));
      log.info("started emergency failover {} for {} from {} to {}", execution.getRunId(), group, failedSite,
          candidate);
      return new Started(execution.getRunId());
    } catch (WorkflowExecutionAlreadyStarted e) {
      // As for a planned start, the exception names this start's type: ask which one holds the id.
      return new AlreadyRunning(runs.runningType(group));
    }
  }

  /**
   * Starts a dry run under its own id ({@link DryRunWorkflow#workflowId}), never the group's: it
   * holds no failover back. Returns its run id.
   */
  public String startDryRun(DryRunWorkflow.Request request, long sequence) {
    WorkflowOptions options = WorkflowOptions.newBuilder()
        .setWorkflowId(DryRunWorkflow.workflowId(request.group(), sequence))
        .setTaskQueue(taskQueue)
        .setWorkflowExecutionTimeout(java.time.Duration.ofMinutes(5))
        .build();
    DryRunWorkflow stub = client.newWorkflowStub(DryRunWorkflow.class, options);
    var execution = WorkflowClient.start(stub::run, request);
    log.info("started dry run {} for {} ({})", execution.getWorkflowId(), request.group(), request.annotation());
    return execution.getRunId();
  }

  /** As {@link FailoverRuns#runningRunId}: the monitor's effects hold the starter only. */
  public Optional<String> runningRunId(GroupRef group) {
    return runs.runningRunId(group);
  }

  /** What runs under the groups' workflow ids: the look-ups the starts and signals here make too. */
  public FailoverRuns runs() {
    return runs;
  }

  /**
   * Asks the planned failover that holds the group's workflow id right now to stop, so that an
   * emergency failover can start on the next poll; the caller has seen it only waiting ({@link
   * io.shipstream.failover.model.Phase#isWaiting}). Nothing is asked of an emergency failover.
   *
   * @return whether a running planned failover got the signal
   */
  public boolean preemptPlanned(GroupRef group, String reason) {
    return runs.currentRun(group).filter(FailoverRuns::isRunning)
        .filter(info -> WorkflowTypes.PLANNED_FAILOVER.equals(info.getType().getName()))
        .map(info -> cancelPlanned(group, info.getExecution().getRunId(), reason)).orElse(false);
  }

  /**
   * Asks one run of a planned failover to stop; the workflow ignores it once it is past Promoting.
   * The signal names the run, so it never reaches another failover that took the group's workflow
   * id after that run ended (an emergency failover has a cancel signal too). It is sent as a raw
   * request because the SDK's {@code WorkflowStub.signal} drops the run id and signals whatever
   * run is current.
   *
   * @return whether the run got the signal (false when it already ended, as when the workflow
   *     itself removed the annotation on its way out)
   */
  public boolean cancelPlanned(GroupRef group, String runId, String reason) {
    return cancel(group, runId, reason);
  }

  /**
   * Sends the {@code cancel} signal to one run of the group's failover, planned or emergency (both
   * have it, and both ignore it from Promoting on); as {@link #cancelPlanned}, it names the run.
   *
   * @return whether the run got the signal (false when it already ended)
   */
  public boolean cancel(GroupRef group, String runId, String reason) {
    boolean got = signalRun(group, runId, "cancel", reason);
    if (got) {
      log.info("asked the failover {} of {} to cancel: {}", runId, group, reason);
    }
    return got;
  }

  /**
   * Tells one run of a planned failover that the watcher's replicas confirmed its source dead
   * ({@code PlannedFailoverWorkflow#sourceDied}); named by run as {@link #cancelPlanned} is.
   *
   * @return whether the run got the signal (false when it already ended)
   */
  public boolean sourceDied(GroupRef group, String runId, String why) {
    return signalRun(group, runId, "sourceDied", why);
  }

  /** Signals exactly run {@code runId}; false when it already ended. */
  private boolean signalRun(GroupRef group, String runId, String signal, String argument) {
    var request = SignalWorkflowExecutionRequest.newBuilder()
        .setNamespace(client.getOptions().getNamespace())
        .setWorkflowExecution(WorkflowExecution.newBuilder().setWorkflowId(group.workflowId()).setRunId(runId))
        .setSignalName(signal)
        .setInput(client.getOptions().getDataConverter().toPayloads(argument).orElseThrow())
        .setIdentity(client.getOptions().getIdentity())
        .setRequestId(UUID.randomUUID().toString())
        .build();
    try {
      client.getWorkflowServiceStubs().blockingStub().signalWorkflowExecution(request);
      return true;
    } catch (io.grpc.StatusRuntimeException e) {
      if (e.getStatus().getCode() != io.grpc.Status.Code.NOT_FOUND) {
        throw e;
      }
      log.debug("the failover {} of {} already ended: no {} signal", runId, group, signal);
      return false;
    }
  }
}
