package io.shipstream.failover.workflows.planned;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.planned.OtherReplicas.Step;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Plan;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every row of {@link OtherReplicas}'s table, for a failover from iad to pdx that leaves dr (and,
 * in one case, a second site) to be dealt with. The sites are {@link PlannedRig}'s: each server
 * listens on {@code <site>.db:3306}; pdx was promoted at {@code 0-1-100}, and iad is server 1.
 */
class OtherReplicasTest {
  static final Plan IAD_TO_PDX = plan(List.of("iad", "pdx", "dr", "sfo"));
  static final List<String> PDX = List.of("0-1-100");
  static final String REPOINT_DR = "point dr at pdx (pdx.db:3306) with GTID positioning: STOP SLAVE; CHANGE "
      + "MASTER TO MASTER_HOST='pdx.db', MASTER_PORT=3306, MASTER_USE_GTID=slave_pos; START SLAVE";

  /**
   * A replica of the old primary, working or not; of another site of the group, a chain to replace;
   * of the new primary with a thread stopped, restarted by the re-pointing; and with the site's host
   * in another case, as MySQL may report it.
   */
  @ParameterizedTest(name = "a replica of {0}:{1}, threads running: {2}")
  @CsvSource({"iad.db, 3306, true", "iad.db, 3306, false", "IAD.db, 3306, true", "sfo.db, 3306, true",
      "pdx.db, 3306, false"})
  void aReplicaOfASiteOfTheGroupHoldingNothingExtraIsRepointed(String host, int port, boolean running) {
    assertThat(step(replica(host, port, running, "0-1-95", "0-1-95"))).isEqualTo(Step.REPOINT);
  }

  @Test
  void whatAReplicaReceivedButNeverAppliedIsFetchedAgainFromTheNewPrimary() {
    assertThat(step(replica("iad.db", 3306, false, "0-1-90", "0-1-100"))).isEqualTo(Step.REPOINT);
  }

  /**
   * A MariaDB position names one GTID per domain: once pdx (server 2) has written, it no longer
   * names iad's last transaction, so the set pdx was promoted at must count beside the one read
   * after dr. With only the later one, dr would look divergent.
   */
  @Test
  void whatTheNewPrimaryWasPromotedAtCountsBesideWhatItHoldsNow() {
    ServerState onlyIadsWrites = replica("iad.db", 3306, true, "0-1-100", "0-1-100");
    assertThat(OtherReplicas.step(IAD_TO_PDX, "dr", onlyIadsWrites, List.of("0-1-100", "0-2-110")))
        .isEqualTo(Step.REPOINT);
    ServerState alsoPdxsWrites = replica("iad.db", 3306, true, "0-2-104", "0-2-104");
    assertThat(OtherReplicas.step(IAD_TO_PDX, "dr", alsoPdxsWrites, List.of("0-1-100", "0-2-110")))
        .as("pdx's first writes, relayed by iad").isEqualTo(Step.REPOINT);
    assertThat(OtherReplicas.step(IAD_TO_PDX, "dr", onlyIadsWrites, List.of("0-2-110")).repoint()).isFalse();
    assertThat(OtherReplicas.step(IAD_TO_PDX, "dr", onlyIadsWrites, Arrays.asList("0-1-100", null)))
        .as("pdx unread after dr").isEqualTo(Step.REPOINT);
  }

  /** The new primary, and another server, a chain someone built: the old primary's host on another port too. */
  @ParameterizedTest(name = "a working replica of {0}:{1}")
  @CsvSource({"pdx.db, 3306", "relay.db, 3306", "iad.db, 3307"})
  void aWorkingReplicaOfTheNewPrimaryOrOfAServerOutsideTheGroupIsLeftAlone(String host, int port) {
    assertThat(step(replica(host, port, true, "0-1-95", "0-1-95"))).isEqualTo(Step.NONE);
  }

  @Test
  void aBrokenReplicaOfAServerOutsideTheGroupIsReportedWithWhereToLook() {
    assertThat(report(replica("relay.db", 3306, false, "0-1-95", "0-1-95"))).isEqualTo("dr replicates from"
        + " relay.db:3306, outside the group, and its replication is broken (IO thread not running, SQL thread not"
        + " running); it was left alone: check SHOW SLAVE STATUS on dr for the error, or " + REPOINT_DR);
  }

  @Test
  void aReplicaHoldingTransactionsTheNewPrimaryLacksIsLeftWhereItIs() {
    String divergent = "dr was not re-pointed at the new primary pdx: it holds 5 transaction(s) 0-1-101..105 that pdx"
        + " lacks (divergent); it still replicates from iad (iad.db:3306) for a person to decide what becomes of"
        + " them, then " + REPOINT_DR;
    assertThat(report(replica("iad.db", 3306, true, "0-1-105", "0-1-105"))).isEqualTo(divergent);
    assertThat(report(replica("iad.db", 3306, true, "0-1-95", "0-1-105"))).as("received, not yet applied")
        .isEqualTo(divergent);
    assertThat(report(replica("iad.db", 3306, true, "0-1-95,0-7-98", null))).as("another writer's transaction under"
        + " a seqno pdx has too").startsWith("dr was not re-pointed at the new primary pdx: it holds 1 transaction(s)"
            + " 0-7-98..98 that pdx lacks");
  }

  @Test
  void aReplicaWhoseGtidSetCannotBeComparedIsLeftWhereItIs() {
    assertThat(report(replica("iad.db", 3306, true, "3E11FA47-71CA-11E1-9E33-C80AA9429562:1-95", null)))
        .startsWith("dr was not re-pointed at the new primary pdx: its GTID set cannot be compared with pdx's (")
        .endsWith("); once it is known to hold nothing pdx lacks, " + REPOINT_DR);
  }

  @Test
  void aServerWithoutReplicationIsReportedAndLeftAlone() {
    ServerState standalone = new ServerState("dr", true, null, "MariaDB", "10.11.6-MariaDB", true, false, false,
        false, null, null, "0-1-95", null, null, 0);
    assertThat(report(standalone)).isEqualTo("dr is no replica of any server, so it receives none of pdx's writes; it"
        + " was left alone: " + REPOINT_DR);
  }

  @Test
  void aSiteThatCouldNotBeReadIsReportedAsNotRepointed() {
    assertThat(report(ServerState.unreachable("dr", "connection refused"))).isEqualTo("dr could not be read after"
        + " the failover (connection refused), so it was not re-pointed at the new primary pdx; when it answers,"
        + " point dr at pdx (pdx.db:3306) with GTID positioning");
    assertThat(OtherReplicas.step(IAD_TO_PDX, "dr", null, PDX).report()).as("not read at all")
        .startsWith("dr could not be read after the failover (not read)");
  }

  @Test
  void aFailedRepointingSaysWhyAndWhatToRunInTheReplicasFlavor() {
    ServerState mysql = new ServerState("dr", true, null, "MySQL", "9.7.0", true, true, true, false, "iad.db", 3306,
        "u:1-95", "u:1-95", null, 0);
    assertThat(OtherReplicas.notRepointed(IAD_TO_PDX, "dr", mysql, "IO thread: error 1236")).isEqualTo("could not"
        + " point dr at the new primary pdx: IO thread: error 1236; point dr at pdx (pdx.db:3306) with GTID"
        + " positioning: STOP REPLICA; CHANGE REPLICATION SOURCE TO SOURCE_HOST='pdx.db', SOURCE_PORT=3306,"
        + " SOURCE_AUTO_POSITION=1; START REPLICA");
  }

  @Test
  void theOthersAreEverySiteButTheSourceAndTheTargetInSpecOrder() {
    assertThat(OtherReplicas.others(IAD_TO_PDX)).extracting(s -> s.name()).containsExactly("dr", "sfo");
    assertThat(OtherReplicas.others(plan(List.of("iad", "pdx")))).as("two sites: nothing to re-point").isEmpty();
  }

  private static Step step(ServerState dr) {
    return OtherReplicas.step(IAD_TO_PDX, "dr", dr, PDX);
  }

  private static String report(ServerState dr) {
    Step step = step(dr);
    assertThat(step.repoint()).as("a reported site is not re-pointed").isFalse();
    return step.report();
  }

  /** A MariaDB replica of {@code host:port}, with both threads running or both stopped. */
  /**
   * A dry run's forecast is the same rule on the sites as read now, the new primary holding the
   * source's set: dr (a replica of iad) would be re-pointed, sfo (divergent) would be reported,
   * and neither the source nor the target is listed.
   */
  @Test
  void aDryRunForecastsTheSameStepsFromTheSitesAsReadNow() {
    ServerState iad = new ServerState("iad", true, null, "MariaDB", "10.11.6-MariaDB", false, false, false, false, null,
        null, "0-1-100", null, null, 0);
    ServerState sfo = new ServerState("sfo", true, null, "MariaDB", "10.11.6-MariaDB", true, true, true, true, "iad.db",
        3306, "0-1-105", "0-1-105", 0L, 0);
    Map<String, ServerState> states = Map.of("iad", iad, "pdx", replica("iad.db", 3306, true, "0-1-100", "0-1-100"),
        "dr", replica("iad.db", 3306, true, "0-1-95", "0-1-95"), "sfo", sfo);

    Map<String, String> forecast = PlannedFailoverPlanner.repointingForecast(IAD_TO_PDX, states);

    assertThat(forecast).containsOnlyKeys("dr", "sfo");
    assertThat(forecast.get("dr")).as("re-pointed").isNull();
    assertThat(forecast.get("sfo"))
        .startsWith("sfo was not re-pointed at the new primary pdx: it holds 5 transaction(s)");
  }

  private static ServerState replica(String host, int port, boolean running, String executed, String received) {
    return new ServerState("dr", true, null, "MariaDB", "10.11.6-MariaDB", true, true, running, running, host, port,
        executed, received, running ? 0L : null, 0);
  }

  private static Plan plan(List<String> sites) {
    MysqlFailoverGroupSpec spec = PlannedRig.spec(null);
    spec = new MysqlFailoverGroupSpec(sites.stream().map(s -> PlannedRig.site(s, "primary-candidate")).toList(),
        spec.credentialsSecretRef(), spec.pollInterval(), spec.failureThreshold(), spec.recoveryThreshold(),
        spec.failoverCooldown(), spec.connectionDrainTimeout(), spec.plannedFailover(), spec.splitBrainPolicy(),
        spec.dns(), spec.sidecar(), spec.dragonfly());
    GroupConfig config = GroupConfig.resolve(spec);
    return new Plan(config, config.site("iad").orElseThrow(), config.site("pdx").orElseThrow(), Duration.ofMinutes(5),
        true, null);
  }
}
