package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.topology.GroupDeletion.Run.NONE;
import static io.shipstream.failover.model.topology.GroupDeletion.Run.RUNNING;
import static io.shipstream.failover.model.topology.GroupDeletion.Run.UNKNOWN;
import static io.shipstream.failover.model.topology.GroupDeletion.Step.ADD_FINALIZER;
import static io.shipstream.failover.model.topology.GroupDeletion.Step.CANCEL;
import static io.shipstream.failover.model.topology.GroupDeletion.Step.CLEAN;
import static io.shipstream.failover.model.topology.GroupDeletion.Step.HOLD;
import static io.shipstream.failover.model.topology.GroupDeletion.Step.NOTHING;
import static io.shipstream.failover.model.topology.GroupDeletion.Step.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.WorkflowRef;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class GroupDeletionTest {

  /** The table of {@link GroupDeletion}, row by row. */
  static Stream<Arguments> table() {
    return Stream.of(
        Arguments.of(false, false, NONE, false, null, false, ADD_FINALIZER),
        Arguments.of(false, false, RUNNING, false, Phase.Promoting, false, ADD_FINALIZER),
        Arguments.of(false, true, RUNNING, false, Phase.Draining, false, NOTHING),
        Arguments.of(false, true, UNKNOWN, false, null, false, NOTHING),
        Arguments.of(true, false, RUNNING, false, Phase.Draining, false, NOTHING),
        Arguments.of(true, false, NONE, false, null, false, NOTHING),
        Arguments.of(true, true, UNKNOWN, false, null, false, HOLD),
        Arguments.of(true, true, UNKNOWN, false, Phase.Draining, true, HOLD),
        Arguments.of(true, true, RUNNING, false, Phase.Promoting, false, WAIT),
        Arguments.of(true, true, RUNNING, false, Phase.Resuming, false, WAIT),
        Arguments.of(true, true, RUNNING, false, Phase.PromotingDragonfly, false, WAIT),
        Arguments.of(true, true, RUNNING, false, Phase.Pending, false, CANCEL),
        Arguments.of(true, true, RUNNING, false, Phase.Scheduled, false, CANCEL),
        Arguments.of(true, true, RUNNING, false, Phase.Fencing, false, CANCEL),
        Arguments.of(true, true, RUNNING, false, Phase.Draining, false, CANCEL),
        Arguments.of(true, true, RUNNING, false, Phase.WaitingForLag, false, CANCEL),
        Arguments.of(true, true, RUNNING, false, null, false, CANCEL),
        Arguments.of(true, true, RUNNING, false, Phase.WaitingForLag, true, WAIT),
        Arguments.of(true, true, RUNNING, false, null, true, WAIT),
        Arguments.of(true, true, NONE, false, null, false, CLEAN),
        Arguments.of(true, true, NONE, false, Phase.Failed, true, CLEAN),
        // An emergency failover is waited for, never cancelled: its primary is already lost.
        Arguments.of(true, true, RUNNING, true, Phase.Fencing, false, WAIT),
        Arguments.of(true, true, RUNNING, true, Phase.Pending, false, WAIT),
        Arguments.of(true, true, RUNNING, true, null, false, WAIT),
        Arguments.of(true, true, RUNNING, true, Phase.Promoting, false, WAIT));
  }

  @ParameterizedTest
  @MethodSource("table")
  void decides(boolean deleting, boolean finalizer, GroupDeletion.Run run, boolean emergency, Phase phase,
      boolean cancelSent, GroupDeletion.Step step) {
    assertThat(GroupDeletion.decide(deleting, finalizer, run, emergency, phase, cancelSent)).isEqualTo(step);
  }

  @Test
  void everyPhaseFromPromotingOnAndTheSessionStoresPromotionTakeNoCancel() {
    List<Phase> past = new ArrayList<>();
    for (Phase p : Phase.values()) {
      if (GroupDeletion.pastCancel(p)) {
        past.add(p);
      }
    }
    assertThat(past).containsExactly(Phase.PromotingDragonfly, Phase.Promoting, Phase.Resuming, Phase.Succeeded,
        Phase.Failed);
  }

  @Test
  void thePhaseIsTheOneOfTheRunTheStatusNames() {
    MysqlFailoverGroupStatus planned = MysqlFailoverGroupStatus.empty()
        .withWorkflow(new WorkflowRef("PlannedFailover", "wf", "run-1"))
        .withPlannedFailover(new PlannedFailoverStatus("Promoting", "pdx", null, null, null, null, null, null, null,
            null, null, null, null));
    assertThat(GroupDeletion.phaseOf(planned, "run-1")).isEqualTo(Phase.Promoting);
    assertThat(GroupDeletion.phaseOf(planned, "run-2")).as("another run").isNull();
    assertThat(GroupDeletion.phaseOf(null, "run-1")).isNull();
    MysqlFailoverGroupStatus emergency = planned.withWorkflow(new WorkflowRef("EmergencyFailover", "wf", "run-3"))
        .withEmergencyFailover(new EmergencyFailoverStatus("Fencing", "iad", "pdx", null, null, null, null, null,
            null, null, null, null, null, null));
    assertThat(GroupDeletion.phaseOf(emergency, "run-3")).as("the emergency's, not the planned one's")
        .isEqualTo(Phase.Fencing);
  }

  @Test
  void deletingIsTheDeletionTimestampAndTheFinalizerIsOurs() {
    MysqlFailoverGroup group = new MysqlFailoverGroup();
    assertThat(GroupDeletion.deleting(group)).isFalse();
    assertThat(GroupDeletion.hasFinalizer(group)).isFalse();
    group.getMetadata().setFinalizers(List.of("someone.else/finalizer"));
    assertThat(GroupDeletion.hasFinalizer(group)).isFalse();
    group.getMetadata().setFinalizers(List.of("someone.else/finalizer", GroupDeletion.FINALIZER));
    group.getMetadata().setDeletionTimestamp("2026-12-02T04:00:00Z");
    assertThat(GroupDeletion.hasFinalizer(group)).isTrue();
    assertThat(GroupDeletion.deleting(group)).isTrue();
  }
}
