package io.shipstream.failover.activities.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.WorkflowRef;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.workflows.contract.WorkflowTypes;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code status.emergencyFailover} as the emergency workflow writes it, beside everything else in the status. */
class EmergencyFailoverStatusTest {
  private static final Instant NOW = OrdersGroupRig.NOW;
  private static final GroupRef ORDERS = OrdersGroupRig.ORDERS;

  @RegisterExtension
  final OrdersGroupRig rig = new OrdersGroupRig(Map.of());
  private final MockCluster cluster = rig.cluster;
  private final KubernetesActivitiesImpl activities = rig.activities;

  @Test
  void isWrittenOnAFreshResourceWithoutStatus() {
    assertThat(cluster.group(ORDERS).getStatus()).isNull();

    activities.writeEmergencyFailoverStatus(ORDERS, emergency("Fencing", null, null), workflowRef("run-1"));

    MysqlFailoverGroup cr = cluster.group(ORDERS);
    assertThat(cr.getStatus().emergencyFailover()).isEqualTo(emergency("Fencing", null, null));
    assertThat(cr.getStatus().workflow()).isEqualTo(workflowRef("run-1"));
    assertThat(cr.getStatus().activeSite()).isNull();
    assertThat(cr.getSpec().sites()).hasSize(2);
  }

  @Test
  void replacesItsOwnBlockWholeAndPreservesTheRest() {
    cluster.setStatus(ORDERS, MysqlFailoverGroupStatus.empty()
        .withFailover("iad", "2025-02-01T00:00:00Z", "0-1-42")
        .withPlannedFailover(new PlannedFailoverStatus("Succeeded", "iad", "pdx", "0-1-42", "0-1-42", null, null,
            null, 0L, null, null, "promoted iad", null))
        .withEmergencyFailover(emergency("Succeeded", 3L, "0-1-40..42"))
        .withWorkflow(workflowRef("run-0")));

    activities.writeEmergencyFailoverStatus(ORDERS, emergency("Pending", null, null), workflowRef("run-1"));

    MysqlFailoverGroupStatus status = cluster.group(ORDERS).getStatus();
    assertThat(status.emergencyFailover().phase()).isEqualTo("Pending");
    // Replaced whole: the loss of the previous failover does not linger in the new one.
    assertThat(status.emergencyFailover().transactionsLost()).isNull();
    assertThat(status.emergencyFailover().lostGtid()).isNull();
    assertThat(status.workflow().runId()).isEqualTo("run-1");
    assertThat(status.activeSite()).isEqualTo("iad");
    assertThat(status.promotionGtidExecuted()).isEqualTo("0-1-42");
    assertThat(status.plannedFailover().message()).isEqualTo("promoted iad");
  }

  @Test
  void aLossIsStoredExactlyAsReported() {
    activities.writeEmergencyFailoverStatus(ORDERS, emergency("Succeeded", 3L, "0-1-98..100"), workflowRef("run-1"));
    activities.recordFailover(ORDERS, "pdx", "2025-03-01T12:00:03Z", "0-1-97");

    MysqlFailoverGroupStatus status = cluster.group(ORDERS).getStatus();
    assertThat(status.emergencyFailover().transactionsLost()).isEqualTo(3L);
    assertThat(status.emergencyFailover().lostGtid()).isEqualTo("0-1-98..100");
    assertThat(status.emergencyFailover().oldPrimaryFenced()).isFalse();
    assertThat(status.activeSite()).isEqualTo("pdx");
  }

  /**
   * Issue 31 item 14: the write of a run's terminal phase puts the run first in
   * status.failoverHistory; the writes before it leave the history alone, a retried terminal
   * write does not add it twice, and a planned run's end is recorded the same way.
   */
  @Test
  void theTerminalWritePutsTheRunFirstInTheFailoverHistory() {
    activities.writeEmergencyFailoverStatus(ORDERS, emergency("Fencing", null, null), workflowRef("run-1"));
    assertThat(cluster.group(ORDERS).getStatus().failoverHistory()).isNull();

    EmergencyFailoverStatus succeeded = new EmergencyFailoverStatus("Succeeded", "iad", "pdx", "iad unreachable", null,
        "2025-03-01T12:00:00Z", "2025-03-01T12:00:04Z", 4.25, true, "0-1-100", "0-1-100", 0L, "", "promoted pdx");
    activities.writeEmergencyFailoverStatus(ORDERS, succeeded, workflowRef("run-1"));
    activities.writeEmergencyFailoverStatus(ORDERS, succeeded, workflowRef("run-1"));
    activities.writePlannedFailoverStatus(ORDERS, new PlannedFailoverStatus("Failed", "iad", "pdx", null, null,
        "2025-03-01T13:00:00Z", "2025-03-01T13:05:00Z", 300.0, null, "LagTimeout", null, "pdx lagged", null),
        new WorkflowRef(WorkflowTypes.PLANNED_FAILOVER, "mysqlfailovergroup/shop/orders", "run-2"));

    assertThat(cluster.group(ORDERS).getStatus().failoverHistory()).containsExactly(
        new MysqlFailoverGroupStatus.FailoverHistoryEntry("mysqlfailovergroup/shop/orders", "run-2", "planned", "iad",
            "Failed", "LagTimeout", "2025-03-01T13:00:00Z", 300.0),
        new MysqlFailoverGroupStatus.FailoverHistoryEntry("mysqlfailovergroup/shop/orders", "run-1", "emergency",
            "pdx", "Succeeded", null, "2025-03-01T12:00:00Z", 4.25));
    assertThat(cluster.group(ORDERS).getStatus().plannedFailover().phase()).isEqualTo("Failed");
    assertThat(cluster.group(ORDERS).getStatus().emergencyFailover().phase()).isEqualTo("Succeeded");
  }

  /** Issue 34 item 3: a run's write window goes into its history entry beside its duration. */
  @Test
  void theHistoryEntryCarriesTheRunsWriteWindow() {
    io.shipstream.failover.model.crd.WriteWindow window = io.shipstream.failover.model.crd.WriteWindow.between(
        java.time.Instant.parse("2025-03-01T13:00:01.100Z"), java.time.Instant.parse("2025-03-01T13:00:01.237Z"),
        0.01, null);
    activities.writePlannedFailoverStatus(ORDERS, new PlannedFailoverStatus("Succeeded", "pdx", "iad", "0-1-100",
        "0-1-100", "2025-03-01T13:00:00Z", "2025-03-01T13:00:02Z", 2.0, 0L, null, null, "promoted pdx", null, null,
        window), new WorkflowRef(WorkflowTypes.PLANNED_FAILOVER, "mysqlfailovergroup/shop/orders", "run-3"));

    MysqlFailoverGroupStatus status = cluster.group(ORDERS).getStatus();
    assertThat(status.failoverHistory()).containsExactly(new MysqlFailoverGroupStatus.FailoverHistoryEntry(
        "mysqlfailovergroup/shop/orders", "run-3", "planned", "pdx", "Succeeded", null, "2025-03-01T13:00:00Z", 2.0,
        0.137));
    assertThat(status.plannedFailover().writeWindow()).isEqualTo(window);
    assertThat(window.from()).isEqualTo("2025-03-01T13:00:01.100Z");
  }

  private static EmergencyFailoverStatus emergency(String phase, Long lost, String lostGtid) {
    return new EmergencyFailoverStatus(phase, "iad", "pdx", "iad unreachable for 3 polls", null,
        "2025-03-01T12:00:00Z", null, null, false, "0-1-100", lost == null ? null : "0-1-97", lost, lostGtid, null);
  }

  private static WorkflowRef workflowRef(String runId) {
    return new WorkflowRef(WorkflowTypes.EMERGENCY_FAILOVER, "mysqlfailovergroup/shop/orders", runId);
  }
}
