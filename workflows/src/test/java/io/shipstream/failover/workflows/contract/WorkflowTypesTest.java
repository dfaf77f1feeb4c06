package io.shipstream.failover.workflows.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.WorkflowRef;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.topology.GroupDeletion;
import io.shipstream.failover.workflows.DryRunWorkflow;
import io.shipstream.failover.workflows.EmergencyFailoverWorkflow;
import io.shipstream.failover.workflows.PlannedFailoverWorkflow;
import io.shipstream.failover.workflows.common.FailoverKind;
import io.temporal.common.metadata.POJOWorkflowInterfaceMetadata;
import org.junit.jupiter.api.Test;

class WorkflowTypesTest {

  @Test
  void theInterfacesRegisterTheConstantsWhoseValuesAreOnTheWire() {
    assertThat(type(PlannedFailoverWorkflow.class)).isEqualTo(WorkflowTypes.PLANNED_FAILOVER)
        .isEqualTo("PlannedFailover");
    assertThat(type(EmergencyFailoverWorkflow.class)).isEqualTo(WorkflowTypes.EMERGENCY_FAILOVER)
        .isEqualTo("EmergencyFailover");
    assertThat(type(DryRunWorkflow.class)).isEqualTo(WorkflowTypes.DRY_RUN).isEqualTo("DryRun");
    assertThat(FailoverKind.PLANNED.workflowType()).isEqualTo(WorkflowTypes.PLANNED_FAILOVER);
    assertThat(FailoverKind.EMERGENCY.workflowType()).isEqualTo(WorkflowTypes.EMERGENCY_FAILOVER);
  }

  /**
   * The model, below the workflows, cannot see {@link WorkflowTypes} and spells the two types
   * itself where it reads {@code status.workflow.type}: it must read what the runbooks write.
   */
  @Test
  void theModelReadsTheTypeTheRunbooksWriteInTheStatus() {
    MysqlFailoverGroupStatus both = MysqlFailoverGroupStatus.empty()
        .withPlannedFailover(new PlannedFailoverStatus("Promoting", "pdx", null, null, null, null, null, null, null,
            null, null, null, null))
        .withEmergencyFailover(new EmergencyFailoverStatus("Fencing", "iad", "pdx", null, null, null, null, null,
            null, null, null, null, null, null));
    assertThat(GroupDeletion.phaseOf(both.withWorkflow(new WorkflowRef(FailoverKind.PLANNED.workflowType(), "wf",
        "run-1")), "run-1")).isEqualTo(Phase.Promoting);
    assertThat(GroupDeletion.phaseOf(both.withWorkflow(new WorkflowRef(FailoverKind.EMERGENCY.workflowType(), "wf",
        "run-2")), "run-2")).isEqualTo(Phase.Fencing);
  }

  private static String type(Class<?> workflowInterface) {
    return POJOWorkflowInterfaceMetadata.newInstance(workflowInterface).getWorkflowType().orElseThrow();
  }
}
