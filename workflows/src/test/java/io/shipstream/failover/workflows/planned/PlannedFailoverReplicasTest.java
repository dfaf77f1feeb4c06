package io.shipstream.failover.workflows.planned;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.workflows.fakes.FakeKubernetes;
import io.shipstream.failover.workflows.fakes.FakeMysql;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * The replicas a planned failover leaves where they were: after the promotion the workflow reads
 * every site it did not move (dr here) and warns about each one still on the old primary or not
 * replicating at all, with an Event and in the status message, and the failover still succeeds.
 * The same {@link PlannedRig} as {@link PlannedFailoverWorkflowTest}: dr replicates from iad.
 */
class PlannedFailoverReplicasTest {
  // A rig of its own for every test (JUnit makes a new instance per test method).
  @AutoClose
  final PlannedRig rig = new PlannedRig();
  final FakeMysql mysql = rig.mysql;
  final FakeKubernetes k8s = rig.k8s;

  @Test
  void aSourceKilledDuringWaitingForLagStillFailsOverAndTheReplicaLeftOnItIsReported() {
    PlannedFailoverStatus result = rig.requestActingWhileWaitingForLag("pdx", () -> {
      // kill -9 of iad: pdx already received everything it held, and dr loses its source.
      mysql.server("iad").reachable = false;
      mysql.server("dr").replicating = false;
    });

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(result.transactionsLost()).isZero();
    String expected = "dr still replicates from the old primary iad (iad.db:3306) and its replication is broken (IO"
        + " thread not running, SQL thread not running), so it receives none of pdx's writes; point dr at pdx"
        + " (pdx.db:3306) with GTID positioning: STOP SLAVE; CHANGE MASTER TO MASTER_HOST='pdx.db', MASTER_PORT=3306,"
        + " MASTER_USE_GTID=slave_pos; START SLAVE";
    assertThat(k8s.events).filteredOn(e -> e.reason().equals("ReplicaNotRepointed")).singleElement()
        .satisfies(e -> {
          assertThat(e.type()).isEqualTo("Warning");
          assertThat(e.message()).isEqualTo(expected);
        });
    assertThat(k8s.eventReasons()).as("the old primary could not be re-pointed either")
        .containsSubsequence("RejoinFailed", "ReplicaNotRepointed", "PlannedFailoverCompleted");
    assertThat(result.message()).startsWith("promoted pdx, 0 transactions lost").contains(expected);
    assertThat(k8s.status.activeSite()).isEqualTo("pdx");
    assertThat(mysql.callsTo("replicate")).as("dr is left alone").noneMatch(c -> c.startsWith("replicate dr"));
  }

  @Test
  void aHealthyReplicaOfTheOldPrimaryIsReportedAsDependingOnIt() {
    PlannedFailoverStatus result = rig.request("pdx");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(k8s.events).filteredOn(e -> e.reason().equals("ReplicaNotRepointed")).singleElement()
        .satisfies(e -> assertThat(e.message()).startsWith("dr still replicates from the old primary iad"
            + " (iad.db:3306), not from the new primary pdx: it gets pdx's writes only through iad"));
    assertThat(result.message()).contains("dr still replicates from the old primary iad");
  }

  @Test
  void aReplicaAlreadyOnTheNewPrimaryIsNotReported() {
    mysql.server("dr").replicatesFrom = "pdx";
    PlannedFailoverStatus result = rig.request("pdx");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(k8s.eventReasons()).doesNotContain("ReplicaNotRepointed");
    // What follows the summary (sessions still draining on a loaded machine) depends on timing.
    assertThat(result.message()).startsWith("promoted pdx, 0 transactions lost").doesNotContain("dr ");
    assertThat(mysql.callsTo("inspect")).as("dr was read after the promotion").endsWith("inspect dr");
  }

  @Test
  void aReplicaThatCannotBeReadIsReportedAsUnknown() {
    PlannedFailoverStatus result = rig.requestActingWhileWaitingForLag("pdx",
        () -> mysql.server("dr").reachable = false);

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(k8s.events).filteredOn(e -> e.reason().equals("ReplicaNotRepointed")).singleElement()
        .satisfies(e -> assertThat(e.message()).isEqualTo("dr could not be read after the failover (connection"
            + " refused), so whether it replicates from the new primary pdx is unknown; if it still replicates from"
            + " the old primary iad, point dr at pdx (pdx.db:3306) with GTID positioning"));
  }
}
