package io.shipstream.failover.workflows.planned;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.workflows.PlannedFailoverWorkflow;
import io.shipstream.failover.workflows.SearchAttributes;
import io.shipstream.failover.workflows.fakes.WorkflowWaits;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.sdk.v1.WorkflowMetadata;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.converter.DefaultDataConverter;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * The Temporal UI as the failover console: the static summary the start gives, and the current
 * details the workflow keeps up to date, read back the way the UI reads them (the history, and the
 * {@code __temporal_workflow_metadata} query while the run is held in a phase: the details are
 * never in the history).
 */
class PlannedFailoverConsoleTest extends PlannedRigTest {
  static final String METADATA_QUERY = "__temporal_workflow_metadata";

  @Test
  void theStaticSummaryAndTheCurrentDetailsAtEachHeldPhase() {
    CountDownLatch fence = new CountDownLatch(1);
    CountDownLatch lag = new CountDownLatch(1);
    mysql.server("iad").fenceGate = fence;
    mysql.server("pdx").waitGate = lag;
    // pdx has applied 63 of iad's 100 transactions when the request is validated.
    mysql.server("pdx").seqno = 63;
    PlannedFailoverWorkflow wf = rig.startAsync("pdx");
    WorkflowStub stub = WorkflowStub.fromTyped(wf);

    WorkflowWaits.awaitPhase("Draining", k8s::lastPhase);
    String draining = currentDetails(stub);
    assertThat(draining).contains("**Phase:** Draining").contains("fencing iad").doesNotContain("fenced at");
    fence.countDown();

    WorkflowWaits.awaitPhase("WaitingForLag", k8s::lastPhase);
    String waiting = currentDetails(stub);
    assertThat(waiting).contains("**Phase:** WaitingForLag").contains("waiting for pdx to execute 0-1-100")
        .contains("**Source fenced at:** 0-1-100");
    // The lag: what pdx lacked of the fenced set when the request was validated.
    assertThat(waiting).contains("waiting for pdx to execute 0-1-100; when validated, before the fence, pdx lacked"
        + " 37 transaction(s) 0-1-64..100 of it; the wait's heartbeats show its progress");
    lag.countDown();

    assertThat(rig.result(wf).phase()).isEqualTo("Succeeded");
    assertThat(currentDetails(stub)).as("a query still answers after the run ended")
        .contains("**Phase:** Succeeded");

    List<HistoryEvent> events = rig.client.fetchHistory(PlannedRig.GROUP.workflowId()).getEvents();
    assertThat(text(events.get(0).getUserMetadata().getSummary()))
        .isEqualTo("planned failover shop/orders: active site → pdx");
    assertThat(activitySummaries(events)).as("the history reads as the runbook")
        .contains("fence iad (read-only, then its GTID set)",
            "wait until pdx holds 0-1-100 (fenced iad)",
            "promote pdx (writable)");
  }

  /**
   * The workflow upserts only the search attributes its start carried: the watcher puts there only
   * those the namespace has, and an upsert of an unregistered one would fail the workflow task.
   */
  @Test
  void upsertsOnlyTheSearchAttributesTheStartCarried() {
    rig.env.registerSearchAttribute(SearchAttributes.GROUP.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    rig.env.registerSearchAttribute(SearchAttributes.PHASE.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    k8s.annotation = "pdx";
    PlannedFailoverWorkflow wf = rig.client.newWorkflowStub(PlannedFailoverWorkflow.class,
        WorkflowOptions.newBuilder(WorkflowStub.fromTyped(rig.stub("pdx")).getOptions().orElseThrow())
            .setTypedSearchAttributes(SearchAttributes.atStart(PlannedRig.GROUP, "pdx",
                Set.of(SearchAttributes.GROUP.getName(), SearchAttributes.PHASE.getName())))
            .build());
    WorkflowClient.start(wf::run, new PlannedFailoverWorkflow.Request(PlannedRig.GROUP, "pdx"));
    assertThat(rig.result(wf).phase()).isEqualTo("Succeeded");

    List<HistoryEvent> events = rig.client.fetchHistory(PlannedRig.GROUP.workflowId()).getEvents();
    var upserted = events.stream().filter(HistoryEvent::hasUpsertWorkflowSearchAttributesEventAttributes)
        .map(e -> e.getUpsertWorkflowSearchAttributesEventAttributes().getSearchAttributes().getIndexedFieldsMap())
        .toList();
    assertThat(upserted).isNotEmpty().allSatisfy(fields -> assertThat(fields).containsOnlyKeys("FailoverPhase"));
    assertThat(text(upserted.get(upserted.size() - 1).get("FailoverPhase"))).isEqualTo("Succeeded");
  }

  /** The summaries of the ordinary activities scheduled, in order (local activities are markers). */
  static List<String> activitySummaries(List<HistoryEvent> events) {
    return events.stream()
        .filter(HistoryEvent::hasActivityTaskScheduledEventAttributes)
        .filter(e -> e.getUserMetadata().hasSummary())
        .map(e -> text(e.getUserMetadata().getSummary()))
        .toList();
  }

  static String currentDetails(WorkflowStub stub) {
    return stub.query(METADATA_QUERY, WorkflowMetadata.class).getCurrentDetails();
  }

  static String text(Payload payload) {
    return DefaultDataConverter.STANDARD_INSTANCE.fromPayload(payload, String.class, String.class);
  }
}
