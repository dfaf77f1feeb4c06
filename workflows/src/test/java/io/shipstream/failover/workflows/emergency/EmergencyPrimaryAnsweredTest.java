package io.shipstream.failover.workflows.emergency;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.fakes.FakeMysql;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The emergency runbook's look at the failed primary right before its fence ({@link
 * OldPrimaryRecheck}): a primary that answers while the status names it active is not dead, and the
 * run ends {@code Failed}/{@code PrimaryAnswered} with nothing fenced, promoted or recorded, counted
 * as rejected; one that still does not answer is failed over as before.
 */
class EmergencyPrimaryAnsweredTest extends EmergencyRigTest {

  private FakeMysql.Server iadBack(boolean readOnly) {
    FakeMysql.Server iad = mysql.server("iad");
    iad.reachable = true;
    iad.readOnly = readOnly;
    iad.seqno = 101;
    return iad;
  }

  @Test
  void f1AFailedPrimaryThatAnswersWritableEndsTheRunWithNothingFencedAndNoCooldown() {
    iadBack(false);

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Failed");
    assertThat(result.reason()).isEqualTo("PrimaryAnswered");
    assertThat(result.message()).startsWith("iad answered (writable, executed 0-1-101) right before its fence while "
        + "the status names it active: it is not dead, so nothing was fenced or promoted and no cooldown starts")
        .contains("the watcher had decided: iad unreachable for 3 polls from 2 sites");
    assertThat(mysql.callsTo("fence")).as("nothing fenced").isEmpty();
    assertThat(mysql.callsTo("promote")).isEmpty();
    assertThat(mysql.callsTo("kill")).isEmpty();
    assertThat(mysql.server("iad").readOnly).as("iad takes writes as before").isFalse();
    assertThat(k8s.roles).as("no role label touched").isEmpty();
    assertThat(k8s.status.activeSite()).isEqualTo("iad");
    assertThat(k8s.status.lastFailover()).as("the cooldown reads lastFailover: nothing recorded").isNull();
    assertThat(k8s.eventReasons()).containsExactly("FailoverStarted", "FailoverRejected");
    assertThat(k8s.events.get(1).type()).isEqualTo("Warning");
    assertThat(k8s.events.get(1).message()).startsWith("PrimaryAnswered: iad answered (writable");
    awaitOne("bloodraven_failovers", Map.of("target_site", "pdx", "result", "rejected"));
    assertThat(rig.metrics.counter("bloodraven_failovers", Map.of("result", "failed_other"))).as("no page").isZero();
  }

  @Test
  void f1AFailedPrimaryThatCameBackReadOnlyFromItsOwnConfigurationIsNotDeadEither() {
    iadBack(true);

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.reason()).isEqualTo("PrimaryAnswered");
    assertThat(result.message()).startsWith("iad answered (read-only, executed 0-1-101)");
    assertThat(mysql.callsTo("fence")).isEmpty();
    assertThat(k8s.status.lastFailover()).isNull();
  }

  @Test
  void f2AnAnsweringServerOfAGroupThatNamesNoActiveSiteIsFencedAsBefore() {
    k8s.status = MysqlFailoverGroupStatus.empty();
    iadBack(false);

    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(mysql.callsTo("fence")).containsExactly("fence iad");
  }

  @Test
  void f3AFailedPrimaryThatStillDoesNotAnswerIsFailedOverAsBefore() {
    EmergencyFailoverStatus result = rig.run("pdx", "0-1-100");

    assertThat(result.phase()).isEqualTo("Succeeded");
    assertThat(mysql.calls.indexOf("inspect iad")).as("looked at before its fence").isNotNegative()
        .isLessThan(mysql.calls.indexOf("fence iad"));
    assertThat(k8s.status.activeSite()).isEqualTo("pdx");
    assertThat(k8s.status.lastFailover()).as("the cooldown starts").isNotNull();
    assertThat(k8s.eventReasons()).doesNotContain("FailoverRejected");
    awaitOne("bloodraven_failovers", Map.of("target_site", "pdx", "result", "success"));
  }

  @Test
  void theTableRowByRow() {
    ServerState writable = new ServerState("iad", true, null, "mariadb", "10.11", false, false, false, false, null,
        null, "0-1-7", null, null, 2);
    assertThat(OldPrimaryRecheck.decide(writable, "iad", "iad", "t")).get().asString()
        .startsWith("iad answered (writable, executed 0-1-7)");
    assertThat(OldPrimaryRecheck.decide(writable, "iad", null, "t")).as("f2").isEmpty();
    assertThat(OldPrimaryRecheck.decide(ServerState.unreachable("iad", "refused"), "iad", "iad", "t")).as("f3")
        .isEmpty();
    assertThat(OldPrimaryRecheck.decide(null, "iad", "iad", "t")).as("f3: no answer within the wait").isEmpty();
  }

  /** The scope reports every 10 ms, after the workflow has returned. */
  private void awaitOne(String name, Map<String, String> tags) {
    long until = System.nanoTime() + 5_000_000_000L;
    while (rig.metrics.counter(name, tags) == 0 && System.nanoTime() < until) {
      Thread.yield();
    }
    assertThat(rig.metrics.counter(name, tags)).as(name + tags).isEqualTo(1);
  }
}
