package io.shipstream.failover.workflows.emergency;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.workflows.EmergencyFailoverWorkflow;
import io.shipstream.failover.workflows.fakes.FakeMysql;
import io.temporal.client.WorkflowClient;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The other survivors of an emergency failover (here dr, dr-only): pdx catches up from a dr that
 * received more of iad's last transactions before it is promoted, and dr replicates from pdx
 * afterwards. Neither can fail the failover: what goes wrong is a warning, and the loss is counted
 * against everything any server was seen to hold.
 */
class EmergencyFailoverSurvivorsTest extends EmergencyRigTest {

  @Test
  void theCandidateCatchesUpFromAFresherDrBeforeItIsPromoted() {
    FakeMysql.Server dr = mysql.server("dr");
    dr.seqno = 101;
    dr.receivedSeqno = 103;

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Succeeded");
    List<String> calls = mysql.calls;
    assertThat(calls).containsSubsequence("drainAndStop pdx", "drainAndStop dr", "catchUp pdx from dr 0-1-103",
        "promote pdx", "replicate dr from pdx");
    assertThat(result.targetGtidAtPromotion()).as("the 3 transactions only dr had received").isEqualTo("0-1-103");
    assertThat(result.transactionsLost()).isZero();
    assertThat(result.message()).contains("caught pdx up with 3 transaction(s) 0-1-101..103 from dr");
    assertThat(k8s.events).anySatisfy(e -> {
      assertThat(e.type()).isEqualTo("Normal");
      assertThat(e.reason()).isEqualTo("CandidateCaughtUp");
    });
    assertThat(k8s.eventReasons()).doesNotContain("DataLossDetected", "CatchUpFailed", "ReplicaNotRepointed");
    assertThat(dr.replicatesFrom).isEqualTo("pdx");
  }

  @Test
  void aFailedCatchUpStillPromotesWithAWarningAndCountsWhatOnlyDrHeldAsLost() {
    mysql.server("dr").seqno = 103;
    mysql.server("pdx").catchUpFails = true;

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(mysql.callsTo("promote")).containsExactly("promote pdx");
    assertThat(mysql.server("pdx").readOnly).isFalse();
    assertThat(result.targetGtidAtPromotion()).isEqualTo("0-1-100");
    // The watcher last saw iad at 100, but dr held 103: those 3 are gone with iad.
    assertThat(result.transactionsLost()).isEqualTo(3);
    assertThat(result.lostGtid()).isEqualTo("0-1-101..103");
    assertThat(k8s.events).anySatisfy(e -> {
      assertThat(e.type()).isEqualTo("Warning");
      assertThat(e.reason()).isEqualTo("CatchUpFailed");
      assertThat(e.message()).contains("pdx lacks 3 transaction(s) 0-1-101..103 that dr holds")
          .contains("promoting pdx with what it has");
    });
    assertThat(k8s.eventReasons()).contains("DataLossDetected").doesNotContain("CandidateCaughtUp");
  }

  @Test
  void aDonorThatDoesNotLogWhatItReplicatesIsSkippedWithAWarning() {
    FakeMysql.Server dr = mysql.server("dr");
    dr.seqno = 102;
    dr.logsReplicaUpdates = false;

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-102");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(mysql.callsTo("catchUp")).isEmpty();
    assertThat(result.transactionsLost()).isEqualTo(2);
    assertThat(k8s.events).anySatisfy(e -> {
      assertThat(e.reason()).isEqualTo("CatchUpSkipped");
      assertThat(e.message()).contains("log_slave_updates");
    });
  }

  @Test
  void drReplicatesFromTheNewPrimaryAfterThePromotionAndTheFailedSiteIsLeftToTheWatcher() {
    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(mysql.callsTo("catchUp")).as("dr (95) holds nothing pdx lacks").isEmpty();
    assertThat(mysql.calls.indexOf("replicate dr from pdx")).isGreaterThan(mysql.calls.indexOf("promote pdx"));
    assertThat(mysql.callsTo("replicate")).containsExactly("replicate dr from pdx");
    assertThat(mysql.server("dr").replicatesFrom).isEqualTo("pdx");
    assertThat(mysql.server("dr").readOnly).isTrue();
  }

  @Test
  void aReplicaThatCannotBeRepointedIsAWarningOnASucceededFailover() {
    FakeMysql.Server dr = mysql.server("dr");
    // dr answers while pdx is compared with it, and is gone when it is re-pointed.
    mysql.beforePromote = () -> dr.reachable = false;

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(result.message()).contains("could not point dr at the new primary pdx");
    assertThat(k8s.events).anySatisfy(e -> {
      assertThat(e.type()).isEqualTo("Warning");
      assertThat(e.reason()).isEqualTo("ReplicaNotRepointed");
    });
    assertThat(k8s.status.activeSite()).isEqualTo("pdx");
    assertThat(k8s.roles).containsEntry("pdx", "primary");
  }

  @Test
  void aSiteHeldBackForDivergentTransactionsIsLeftAloneAndNotCountedAsLoss() {
    // dr is a RecoveryBlocked old primary of an earlier failover: what only it holds is no donation.
    mysql.server("dr").seqno = 103;
    k8s.status = new MysqlFailoverGroupStatus("iad", null, null, null, List.of(new MysqlFailoverGroupStatus.SiteStatus(
        "dr", "READ_ONLY", null, false, "0-1-103", null, "0-1-101..103")), null, null, null, null, null);
    EmergencyFailoverWorkflow wf = rig.stub();
    WorkflowClient.start(wf::run, new EmergencyFailoverWorkflow.Request(EmergencyRig.GROUP, "iad", "pdx", "0-1-100",
        "iad unreachable", Map.of("iad", "0-1-100", "pdx", "0-1-100", "dr", "0-1-103")));

    EmergencyFailoverStatus result = rig.result(wf);

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(mysql.calls).noneMatch(c -> c.endsWith(" dr") || c.contains(" dr "));
    assertThat(result.transactionsLost()).isZero();
    assertThat(k8s.events).anySatisfy(e -> {
      assertThat(e.reason()).isEqualTo("ReplicaNotRepointed");
      assertThat(e.message()).contains("dr holds divergent transactions");
    });
  }

  @Test
  void anUnreachableReplicaIsNamedAndTheLossCountsWhatTheWatcherLastSawOnIt() {
    mysql.server("dr").reachable = false;
    EmergencyFailoverWorkflow wf = rig.stub();
    WorkflowClient.start(wf::run, new EmergencyFailoverWorkflow.Request(EmergencyRig.GROUP, "iad", "pdx", "0-1-100",
        "iad unreachable", Map.of("iad", "0-1-100", "pdx", "0-1-100", "dr", "0-1-104")));

    EmergencyFailoverStatus result = rig.result(wf);

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(mysql.callsTo("replicate")).isEmpty();
    assertThat(result.transactionsLost()).isEqualTo(4);
    assertThat(k8s.events).anySatisfy(e -> {
      assertThat(e.reason()).isEqualTo("ReplicaNotRepointed");
      assertThat(e.message()).contains("dr was unreachable during the failover");
    });
  }
}
