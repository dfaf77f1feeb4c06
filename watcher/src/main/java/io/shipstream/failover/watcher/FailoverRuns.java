package io.shipstream.failover.watcher;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.workflows.PlannedFailoverWorkflow;
import io.shipstream.failover.workflows.contract.WorkflowTypes;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest;
import io.temporal.client.WorkflowClient;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runs under a group's failover workflow id as Temporal knows them: whether one runs and of
 * which kind, the phase it reports itself, the request a planned one serves. Looks only:
 * {@link FailoverStarter} starts and signals them.
 */
public final class FailoverRuns {
  private static final Logger log = LoggerFactory.getLogger(FailoverRuns.class);

  private final WorkflowClient client;

  FailoverRuns(WorkflowClient client) {
    this.client = client;
  }

  /** Whether a failover workflow, planned or emergency, runs for the group right now. */
  public boolean running(GroupRef group) {
    return currentRun(group).filter(FailoverRuns::isRunning).isPresent();
  }

  /** A failover workflow running right now: its run and its type ({@code PlannedFailover}, {@code EmergencyFailover}). */
  public record Running(String runId, String workflowType) {}

  /** The group's failover workflow running right now; empty when none runs. */
  public Optional<Running> currentFailover(GroupRef group) {
    return currentRun(group).filter(FailoverRuns::isRunning)
        .map(info -> new Running(info.getExecution().getRunId(), info.getType().getName()));
  }

  /**
   * The phase the run reports itself, through its {@code status} query: what the status on the
   * resource may not show yet (a failover holds its status writes while the application's writes
   * are stopped). Empty when it cannot answer within {@code timeout} (no worker polls, say).
   */
  public Optional<String> queryPhase(GroupRef group, Running run, java.time.Duration timeout) {
    Class<?> type = WorkflowTypes.EMERGENCY_FAILOVER.equals(run.workflowType()) ? EmergencyFailoverStatus.class
        : io.shipstream.failover.model.crd.PlannedFailoverStatus.class;
    try {
      var response = client.getWorkflowServiceStubs().blockingStub()
          .withDeadlineAfter(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
          .queryWorkflow(io.temporal.api.workflowservice.v1.QueryWorkflowRequest.newBuilder()
              .setNamespace(client.getOptions().getNamespace())
              .setExecution(WorkflowExecution.newBuilder().setWorkflowId(group.workflowId()).setRunId(run.runId()))
              .setQuery(io.temporal.api.query.v1.WorkflowQuery.newBuilder().setQueryType("status"))
              .build());
      if (!response.hasQueryResult()) {
        return Optional.empty();
      }
      Object status = client.getOptions().getDataConverter().fromPayloads(0, Optional.of(response.getQueryResult()),
          type, type);
      return Optional.ofNullable(status instanceof EmergencyFailoverStatus e ? e.phase()
          : status instanceof io.shipstream.failover.model.crd.PlannedFailoverStatus p ? p.phase() : null);
    } catch (RuntimeException e) {
      log.debug("the failover {} of {} did not answer its status query: {}", run.runId(), group, e.toString());
      return Optional.empty();
    }
  }

  /** The run id of the group's failover workflow running right now; empty when none runs. */
  public Optional<String> runningRunId(GroupRef group) {
    return currentRun(group).filter(FailoverRuns::isRunning).map(info -> info.getExecution().getRunId());
  }

  /**
   * The run id of the planned failover running right now for the group if it serves exactly
   * {@code annotation} (the value it was started with, read from its first history event); empty
   * otherwise. A watcher that starts leading meets the requests of the previous leader this way,
   * a scheduled one maybe days from its time, and can withdraw them as its own.
   */
  public Optional<String> runningPlannedServing(GroupRef group, String annotation) {
    Optional<String> runId = currentRun(group).filter(FailoverRuns::isRunning)
        .filter(info -> WorkflowTypes.PLANNED_FAILOVER.equals(info.getType().getName()))
        .map(info -> info.getExecution().getRunId());
    if (runId.isEmpty()) {
      return Optional.empty();
    }
    var first = client.getWorkflowServiceStubs().blockingStub().getWorkflowExecutionHistory(
        GetWorkflowExecutionHistoryRequest.newBuilder()
            .setNamespace(client.getOptions().getNamespace())
            .setExecution(WorkflowExecution.newBuilder().setWorkflowId(group.workflowId()).setRunId(runId.get()))
            .setMaximumPageSize(1)
            .build())
        .getHistory();
    if (first.getEventsCount() == 0 || !first.getEvents(0).hasWorkflowExecutionStartedEventAttributes()) {
      return Optional.empty();
    }
    var input = first.getEvents(0).getWorkflowExecutionStartedEventAttributes().getInput();
    PlannedFailoverWorkflow.Request request = client.getOptions().getDataConverter().fromPayloads(0,
        Optional.of(input), PlannedFailoverWorkflow.Request.class, PlannedFailoverWorkflow.Request.class);
    return request != null && annotation.equals(request.annotation()) ? runId : Optional.empty();
  }

  /** The latest run of the group's workflow id; empty when there was none. */
  Optional<io.temporal.api.workflow.v1.WorkflowExecutionInfo> currentRun(GroupRef group) {
    try {
      return Optional.of(describe(group).getWorkflowExecutionInfo());
    } catch (io.grpc.StatusRuntimeException e) {
      if (e.getStatus().getCode() == io.grpc.Status.Code.NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }

  static boolean isRunning(io.temporal.api.workflow.v1.WorkflowExecutionInfo info) {
    return info.getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
  }

  private io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse describe(GroupRef group) {
    return client.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
        DescribeWorkflowExecutionRequest.newBuilder()
            .setNamespace(client.getOptions().getNamespace())
            .setExecution(WorkflowExecution.newBuilder().setWorkflowId(group.workflowId()))
            .build());
  }

  String runningType(GroupRef group) {
    try {
      return describe(group).getWorkflowExecutionInfo().getType().getName();
    } catch (RuntimeException e) {
      // It ended between the start and the look: treat it as a planned one, so the request is
      // retried shortly rather than refused.
      return WorkflowTypes.PLANNED_FAILOVER;
    }
  }
}
