package io.shipstream.failover.workflows.emergency;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.workflows.EmergencyFailoverWorkflow;
import io.shipstream.failover.workflows.fakes.FakeMysql;
import io.shipstream.failover.workflows.fakes.WorkflowWaits;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.sdk.v1.WorkflowMetadata;
import io.temporal.client.WorkflowStub;
import io.temporal.common.converter.DefaultDataConverter;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * The emergency runbook in the Temporal UI: the same static summary, current details and activity
 * summaries as the planned one (they come from the shared skeleton), read back from the history
 * and the {@code __temporal_workflow_metadata} query.
 */
class EmergencyFailoverConsoleTest extends EmergencyRigTest {
  @Test
  void theHistoryReadsAsTheRunbook() {
    EmergencyFailoverWorkflow wf = rig.start("pdx", "0-1-100");
    assertThat(rig.result(wf).phase()).isEqualTo("Succeeded");

    WorkflowStub stub = WorkflowStub.fromTyped(wf);
    assertThat(stub.query("__temporal_workflow_metadata", WorkflowMetadata.class).getCurrentDetails())
        .contains("emergency failover of").contains("**Phase:** Succeeded");
    List<HistoryEvent> events = rig.client.fetchHistory(EmergencyRig.GROUP.workflowId()).getEvents();
    assertThat(text(events.get(0).getUserMetadata().getSummary())).startsWith("emergency failover ")
        .contains("iad → ");
    List<String> summaries = events.stream()
        .filter(HistoryEvent::hasActivityTaskScheduledEventAttributes)
        .filter(e -> e.getUserMetadata().hasSummary())
        .map(e -> text(e.getUserMetadata().getSummary()))
        .toList();
    assertThat(summaries).contains("fence iad (best effort)", "promote pdx once its relay log is applied");
  }

  /**
   * Held in the catch-up from dr (pdx stopped at 0-1-100, dr received up to 0-1-103): the details
   * say how many transactions pdx lacks, which it knows exactly since both stopped replicating.
   */
  @Test
  void theCatchUpShowsHowFarBehindTheCandidateIs() {
    FakeMysql.Server dr = mysql.server("dr");
    dr.seqno = 101;
    dr.receivedSeqno = 103;
    CountDownLatch catchUp = new CountDownLatch(1);
    mysql.server("pdx").waitGate = catchUp;
    EmergencyFailoverWorkflow wf = rig.start("pdx", "0-1-100");
    WorkflowStub stub = WorkflowStub.fromTyped(wf);

    String held =
        WorkflowWaits.await(() -> details(stub), d -> d.contains("catching pdx up"), "the catch-up's details");
    assertThat(held).contains("**Phase:** Promoting")
        .containsPattern("catching pdx up from dr: pdx missing 3 transaction\\(s\\) 0-1-101\\.\\.103 that dr holds, "
            + "at \\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z");
    catchUp.countDown();
    assertThat(rig.result(wf).phase()).isEqualTo("Succeeded");
    assertThat(details(stub)).contains("**Phase:** Succeeded").doesNotContain("missing");
  }

  private static String details(WorkflowStub stub) {
    return stub.query("__temporal_workflow_metadata", WorkflowMetadata.class).getCurrentDetails();
  }

  static String text(Payload payload) {
    return DefaultDataConverter.STANDARD_INSTANCE.fromPayload(payload, String.class, String.class);
  }
}
