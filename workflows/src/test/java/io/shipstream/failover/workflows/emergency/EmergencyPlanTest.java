package io.shipstream.failover.workflows.emergency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.common.FailoverAbort;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What an emergency failover refuses before it touches anything. */
class EmergencyPlanTest {
  static final MysqlFailoverGroupSpec SPEC = EmergencyRig.spec();

  @Test
  void resolvesBothSitesAndTheirServers() {
    EmergencyPlan plan = EmergencyPlan.resolve(EmergencyRig.GROUP, SPEC, "iad", "pdx");
    assertThat(plan.failedServer().host()).isEqualTo("iad.db");
    assertThat(plan.targetServer().site()).isEqualTo("pdx");
    assertThat(plan.targetServer().credentialsSecret()).isEqualTo("orders-mysql");
    assertThat(plan.config().connectionDrainTimeout()).hasSeconds(30);
  }

  @Test
  void refusesUnknownSitesTheFailedSiteItselfAndDrOnlySites() {
    assertRefused(() -> EmergencyPlan.resolve(EmergencyRig.GROUP, SPEC, "sfo", "pdx"), Reason.UnknownSite,
        "unknown failed site 'sfo'");
    assertRefused(() -> EmergencyPlan.resolve(EmergencyRig.GROUP, SPEC, "iad", null), Reason.UnknownSite,
        "unknown candidate site 'null'");
    assertRefused(() -> EmergencyPlan.resolve(EmergencyRig.GROUP, SPEC, "iad", "iad"), Reason.TargetUnhealthy,
        "the candidate is the failed site");
    assertRefused(() -> EmergencyPlan.resolve(EmergencyRig.GROUP, SPEC, "iad", "dr"), Reason.TargetNotCandidate,
        "role dr-only");
  }

  @Test
  void refusesAnInvalidSpecWithEveryProblem() {
    var oneSite = new MysqlFailoverGroupSpec(List.of(EmergencyRig.site("iad", null)), null, null, null, null, null,
        null, null, null, null, null, null);
    assertRefused(() -> EmergencyPlan.resolve(EmergencyRig.GROUP, oneSite, "iad", "pdx"), Reason.InvalidSpec,
        "spec.sites must hold 2 to 16 sites");
  }

  @Test
  void acceptsOnlyAReachableReadOnlyCandidate() {
    EmergencyPlan plan = EmergencyPlan.resolve(EmergencyRig.GROUP, SPEC, "iad", "pdx");
    plan.checkCandidate(state(true, true));
    assertRefused(() -> plan.checkCandidate(ServerState.unreachable("pdx", "connection refused")),
        Reason.TargetUnhealthy, "candidate pdx is unreachable: connection refused");
    assertRefused(() -> plan.checkCandidate(state(true, false)), Reason.TargetUnhealthy, "already writable");
  }

  @Test
  void checkCandidateRefusesACandidateWhoseSqlThreadStoppedOnAnErrorAndNotOneAStopLeftIdle() {
    EmergencyPlan plan = EmergencyPlan.resolve(EmergencyRig.GROUP, SPEC, "iad", "pdx");
    ServerState broken = new ServerState("pdx", true, null, "mariadb", "10.11.6", true, true, false, false, "iad.db",
        3306, "0-1-5", "0-1-9", null, 0, "Could not execute Write_rows_v1 event on table shop.orders; Duplicate entry");
    ServerState stopped = new ServerState("pdx", true, null, "mariadb", "10.11.6", true, true, false, false, "iad.db",
        3306, "0-1-5", "0-1-9", null, 0, "");

    assertRefused(() -> plan.checkCandidate(broken), Reason.TargetUnhealthy,
        "candidate pdx cannot apply what it received: the SQL thread of site 'pdx' stopped on an error: Could not "
            + "execute Write_rows_v1 event");
    // Stopped without an error (a DBA's STOP): the relay-log drain applies what it received.
    plan.checkCandidate(stopped);
  }

  private static ServerState state(boolean reachable, boolean readOnly) {
    return new ServerState("pdx", reachable, null, "mariadb", "10.11.6", readOnly, true, true, true, "iad.db", 3306,
        "0-1-5", "0-1-5", 0L, 0);
  }

  private static void assertRefused(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, Reason reason,
      String message) {
    assertThatThrownBy(call).isInstanceOfSatisfying(FailoverAbort.class, e -> {
      assertThat(e.reason()).isEqualTo(reason);
      assertThat(e.getMessage()).contains(message);
    });
  }
}
