package io.shipstream.failover.workflows.planned;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import org.junit.jupiter.api.Test;

/**
 * The replicas a planned failover neither fences nor promotes (dr here): after the promotion the
 * workflow re-points each one at the new primary, and warns, with an Event and in the status
 * message, only about one it could not or would not re-point; the failover succeeds either way.
 * The same {@link PlannedRig} as {@link PlannedFailoverWorkflowTest}: dr replicates from iad.
 */
class PlannedFailoverReplicasTest extends PlannedRigTest {

  @Test
  void aReplicaOfTheOldPrimaryIsRepointedAtTheNewOneAfterTheOldPrimaryAndSilently() {
    PlannedFailoverStatus result = rig.request("pdx");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(mysql.server("dr").replicatesFrom).isEqualTo("pdx");
    assertThat(mysql.calls).containsSubsequence("promote pdx", "replicate iad from pdx", "inspect dr", "inspect pdx",
        "replicate dr from pdx");
    assertThat(k8s.eventReasons()).doesNotContain("ReplicaNotRepointed");
    // What follows the summary (sessions still draining on a loaded machine) depends on timing.
    assertThat(result.message()).startsWith("promoted pdx, 0 transactions lost").doesNotContain("dr ");
  }

  @Test
  void aSourceKilledDuringWaitingForLagStillFailsOverAndTheReplicaLeftOnItFollowsTheNewPrimary() {
    PlannedFailoverStatus result = rig.requestActingWhileWaitingForLag("pdx", () -> {
      // kill -9 of iad: pdx already received everything it held, and dr loses its source.
      mysql.server("iad").reachable = false;
      mysql.server("dr").replicating = false;
    });

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(result.transactionsLost()).isZero();
    // The rejoin of the dead iad is tried a few times before it fails.
    assertThat(mysql.callsTo("replicate")).containsOnly("replicate iad from pdx", "replicate dr from pdx")
        .endsWith("replicate dr from pdx");
    assertThat(mysql.server("dr").replicatesFrom).isEqualTo("pdx");
    assertThat(mysql.server("dr").replicating).isTrue();
    assertThat(k8s.eventReasons()).as("only the dead old primary could not be re-pointed")
        .contains("RejoinFailed").doesNotContain("ReplicaNotRepointed");
    assertThat(k8s.status.activeSite()).isEqualTo("pdx");
  }

  @Test
  void aReplicaAlreadyFollowingTheNewPrimaryIsLeftAsItIs() {
    mysql.server("dr").replicatesFrom = "pdx";
    PlannedFailoverStatus result = rig.request("pdx");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(mysql.callsTo("replicate")).containsExactly("replicate iad from pdx");
    assertThat(k8s.eventReasons()).doesNotContain("ReplicaNotRepointed");
    assertThat(mysql.callsTo("inspect")).as("dr was read after the promotion").endsWith("inspect dr", "inspect pdx");
  }

  @Test
  void aReplicaThatCannotBeReadIsReportedAsNotRepointed() {
    PlannedFailoverStatus result = rig.requestActingWhileWaitingForLag("pdx",
        () -> mysql.server("dr").reachable = false);

    assertThat(result.phase()).isEqualTo("Succeeded");
    String expected = "dr could not be read after the failover (connection refused), so it was not re-pointed at"
        + " the new primary pdx; when it answers, point dr at pdx (pdx.db:3306) with GTID positioning";
    assertThat(k8s.events).filteredOn(e -> e.reason().equals("ReplicaNotRepointed")).singleElement()
        .satisfies(e -> {
          assertThat(e.type()).isEqualTo("Warning");
          assertThat(e.message()).isEqualTo(expected);
        });
    assertThat(result.message()).startsWith("promoted pdx, 0 transactions lost").endsWith("; " + expected);
    assertThat(mysql.callsTo("replicate")).noneMatch(c -> c.startsWith("replicate dr"));
  }

  @Test
  void aReplicaWhoseRepointingFailsIsReportedWithWhy() {
    mysql.server("dr").replicateFails = true;
    PlannedFailoverStatus result = rig.request("pdx");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(k8s.events).filteredOn(e -> e.reason().equals("ReplicaNotRepointed")).singleElement()
        .satisfies(e -> assertThat(e.message()).isEqualTo("could not point dr at the new primary pdx: dr (dr.db:3306)"
            + " cannot replicate from pdx (pdx.db:3306): IO thread: Got fatal error 1236 from master; point dr at pdx"
            + " (pdx.db:3306) with GTID positioning: STOP SLAVE; CHANGE MASTER TO MASTER_HOST='pdx.db',"
            + " MASTER_PORT=3306, MASTER_USE_GTID=slave_pos; START SLAVE"));
    assertThat(mysql.server("dr").replicatesFrom).isEqualTo("iad");
  }

  @Test
  void aReplicaHoldingTransactionsTheNewPrimaryLacksIsLeftWhereItIs() {
    // dr applied five transactions that pdx never had: re-pointed, it would keep them beside pdx's history.
    mysql.server("dr").seqno = 105;
    PlannedFailoverStatus result = rig.request("pdx");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(mysql.callsTo("replicate")).containsExactly("replicate iad from pdx");
    assertThat(mysql.server("dr").replicatesFrom).isEqualTo("iad");
    assertThat(k8s.events).filteredOn(e -> e.reason().equals("ReplicaNotRepointed")).singleElement()
        .satisfies(e -> assertThat(e.message()).startsWith("dr was not re-pointed at the new primary pdx: it holds 5"
            + " transaction(s) 0-1-101..105 that pdx lacks (divergent); it still replicates from iad (iad.db:3306)"));
  }
}
