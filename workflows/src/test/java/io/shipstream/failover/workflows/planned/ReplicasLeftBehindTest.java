package io.shipstream.failover.workflows.planned;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Plan;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every row of {@link ReplicasLeftBehind}'s table, for a failover from iad to pdx that leaves dr
 * (and, in one case, a second replica) where it was. The sites are {@link PlannedRig}'s: each
 * server listens on {@code <site>.db:3306}.
 */
class ReplicasLeftBehindTest {
  static final Plan IAD_TO_PDX = plan(List.of("iad", "pdx", "dr"));
  static final String REPOINT_DR = "point dr at pdx (pdx.db:3306) with GTID positioning: STOP SLAVE; CHANGE "
      + "MASTER TO MASTER_HOST='pdx.db', MASTER_PORT=3306, MASTER_USE_GTID=slave_pos; START SLAVE";

  /**
   * The new primary; another server, a chain someone built; and the old primary's host on another
   * port, which is another server.
   */
  @ParameterizedTest(name = "a working replica of {0}:{1}")
  @CsvSource({"pdx.db, 3306", "relay.db, 3306", "iad.db, 3307"})
  void aWorkingReplicaOfAnyServerButTheOldPrimaryIsFine(String host, int port) {
    assertThat(findings(replica(host, port, true))).isEmpty();
  }

  @Test
  void aWorkingReplicaOfTheOldPrimaryDependsOnIt() {
    assertThat(findings(replica("iad.db", 3306, true))).containsExactly("dr still replicates from the old primary "
        + "iad (iad.db:3306), not from the new primary pdx: it gets pdx's writes only through iad, and only while "
        + "iad replicates from pdx and logs what it applies (log_slave_updates); " + REPOINT_DR);
  }

  @Test
  void aBrokenReplicaOfTheOldPrimaryGetsNothing() {
    ServerState lostItsSource = new ServerState("dr", true, null, "MariaDB", "10.11.6-MariaDB", true, true, false,
        true, "IAD.db", 3306, "0-1-95", "0-1-95", null, 0);
    assertThat(findings(lostItsSource)).containsExactly("dr still replicates from the old primary iad (IAD.db:3306)"
        + " and its replication is broken (IO thread not running, SQL thread running), so it receives none of"
        + " pdx's writes; " + REPOINT_DR);
  }

  @Test
  void aBrokenReplicaOfAnyOtherServerIsReportedWithWhereToLook() {
    assertThat(findings(replica("pdx.db", 3306, false))).containsExactly("dr replicates from pdx (pdx.db:3306) but"
        + " its replication is broken (IO thread not running, SQL thread not running), so it receives none of"
        + " pdx's writes; check SHOW SLAVE STATUS on dr for the error, then " + REPOINT_DR);
    assertThat(findings(replica("relay.db", 3306, false))).singleElement().asString()
        .startsWith("dr replicates from relay.db:3306 but its replication is broken");
  }

  @Test
  void aServerWithoutReplicationIsReported() {
    ServerState standalone = new ServerState("dr", true, null, "MariaDB", "10.11.6-MariaDB", true, false, false,
        false, null, null, "0-1-95", null, null, 0);
    assertThat(findings(standalone)).containsExactly("dr is no replica of any server, so it receives none of pdx's"
        + " writes; " + REPOINT_DR);
  }

  @Test
  void aSiteThatCouldNotBeReadIsReportedAsUnknown() {
    assertThat(findings(ServerState.unreachable("dr", "connection refused"))).containsExactly("dr could not be read"
        + " after the failover (connection refused), so whether it replicates from the new primary pdx is unknown;"
        + " if it still replicates from the old primary iad, point dr at pdx (pdx.db:3306) with GTID positioning");
    assertThat(ReplicasLeftBehind.findings(IAD_TO_PDX, Map.of())).as("not read at all").singleElement().asString()
        .startsWith("dr could not be read after the failover (not read)");
  }

  @Test
  void aMysqlReplicaGetsMysqlStatements() {
    ServerState mysql = new ServerState("dr", true, null, "MySQL", "9.7.0", true, true, true, false, "iad.db", 3306,
        "u:1-95", "u:1-95", null, 0);
    assertThat(findings(mysql)).singleElement().asString().endsWith("point dr at pdx (pdx.db:3306) with GTID"
        + " positioning: STOP REPLICA; CHANGE REPLICATION SOURCE TO SOURCE_HOST='pdx.db', SOURCE_PORT=3306,"
        + " SOURCE_AUTO_POSITION=1; START REPLICA");
  }

  @Test
  void everyOtherSiteIsCheckedInSpecOrderAndTheSourceAndTargetNever() {
    Plan plan = plan(List.of("iad", "pdx", "dr", "sfo"));
    assertThat(ReplicasLeftBehind.others(plan)).extracting(s -> s.name()).containsExactly("dr", "sfo");
    assertThat(ReplicasLeftBehind.findings(plan, Map.of("dr", replica("iad.db", 3306, true),
        "sfo", replica("iad.db", 3306, false)))).satisfiesExactly(
            dr -> assertThat(dr).startsWith("dr still replicates from the old primary iad"),
            sfo -> assertThat(sfo).startsWith("sfo still replicates from the old primary iad"));
    assertThat(ReplicasLeftBehind.others(plan(List.of("iad", "pdx")))).as("two sites: nothing left behind").isEmpty();
  }

  private static List<String> findings(ServerState dr) {
    return ReplicasLeftBehind.findings(IAD_TO_PDX, Map.of("dr", dr));
  }

  /** A MariaDB replica of {@code host:port}, with both threads running or both stopped. */
  private static ServerState replica(String host, int port, boolean running) {
    return new ServerState("dr", true, null, "MariaDB", "10.11.6-MariaDB", true, true, running, running, host, port,
        "0-1-95", "0-1-95", running ? 0L : null, 0);
  }

  private static Plan plan(List<String> sites) {
    MysqlFailoverGroupSpec spec = PlannedRig.spec(null);
    spec = new MysqlFailoverGroupSpec(sites.stream().map(s -> PlannedRig.site(s, "primary-candidate")).toList(),
        spec.credentialsSecretRef(), spec.pollInterval(), spec.failureThreshold(), spec.recoveryThreshold(),
        spec.failoverCooldown(), spec.connectionDrainTimeout(), spec.plannedFailover(), spec.splitBrainPolicy(),
        spec.dns(), spec.sidecar(), spec.dragonfly());
    GroupConfig config = GroupConfig.resolve(spec);
    return new Plan(config, config.site("iad").orElseThrow(), config.site("pdx").orElseThrow(), Duration.ofMinutes(5));
  }
}
