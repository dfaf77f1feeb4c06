package io.shipstream.failover.workflows.planned;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.PlannedFailoverAnnotation;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.CheckedRequest;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Plan;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Proceed;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The planner's decisions, row by row. The sites are {@link PlannedRig}'s: each server listens on
 * {@code <site>.db:3306}, iad is the writable source and pdx the replica asked to take over.
 */
class PlannedFailoverPlannerTest {
  private static final GroupConfig CONFIG = GroupConfig.resolve(PlannedRig.spec(null));

  /**
   * Whether the target replicates directly from the source, as the spec names the source's
   * endpoint: only then may its promotion skip the relay-log check (one exchange instead of two).
   * The host is compared as MySQL may report it (any case); an empty cell is a source the target
   * did not report.
   */
  @ParameterizedTest(name = "pdx replicating from {0}:{1} replicates directly from iad: {2}")
  @CsvSource({
      "iad.db, 3306, true",
      "IAD.DB, 3306, true",
      "iad.db, 3307, false",
      "pdx.db, 3306, false",
      "dr.db, 3306, false",
      "10.0.0.3, 3306, false",
      ", 3306, false",
      "iad.db, , false",
      ", , false"})
  void theTargetReplicatesDirectlyFromTheSourceOnlyAtItsEndpoint(String host, Integer port, boolean direct) {
    assertThat(planToPdx("0-1-100", host, port, "0-1-100").targetReplicatesFromSource()).isEqualTo(direct);
  }

  /**
   * What the target is to execute before the fence: the source's set when validated, whenever the
   * target lacked any of it then (so only what the source commits afterwards waits inside the write
   * window); nothing when it held it all, or when a set is missing or of the other flavor (the lag
   * gate, after the fence, reports that). An empty cell is a set the server did not report.
   */
  @ParameterizedTest(name = "source {0}, target {1}: catch up to [{2}] before the fence")
  @CsvSource(delimiter = '|', value = {
      "0-1-100                        | 0-1-100                 | ",
      "0-1-100                        | 0-1-90                  | 0-1-100",
      "0-1-100                        | 0-1-100,1-2-5           | ",
      "0-1-100,1-2-5                  | 0-1-100                 | 0-1-100,1-2-5",
      "''                             | 0-1-3                   | ",
      "3E11FA47-71CA-11E1-9E33-C80AA9429562:1-100 | 3E11FA47-71CA-11E1-9E33-C80AA9429562:1-60 | 3E11FA47-71CA-11E1-9E33-C80AA9429562:1-100",
      "3E11FA47-71CA-11E1-9E33-C80AA9429562:1-100 | 3E11FA47-71CA-11E1-9E33-C80AA9429562:1-100 | ",
      "0-1-100                        | 3E11FA47-71CA-11E1-9E33-C80AA9429562:1-60 | ",
      "0-1-100                        |                         | ",
      "                               | 0-1-100                 | ",
      "not-a-set                      | 0-1-100                 | "})
  void theTargetCatchesUpBeforeTheFenceWithWhatItLackedWhenValidated(String source, String target, String catchUp) {
    // Its replication delay unknown: never taken for a replica that is current.
    assertThat(planToPdx(source, "iad.db", 3306, target, true, null).catchUpBeforeFence()).isEqualTo(catchUp);
  }

  /**
   * A target streaming from its source with no delay and at most {@code CURRENT_LAG_TRANSACTIONS}
   * (10) transactions short is not waited for before the fence: under steady writes every replica
   * is a few short at any instant, and the lag gate takes those few with the rest. Any other
   * target lacking something is.
   */
  @ParameterizedTest(name = "target {0}, replicating {1}, {2} s behind: catch up to [{3}] before the fence")
  @CsvSource(delimiter = '|', value = {
      "0-1-95  | true  | 0 | ",
      "0-1-90  | true  | 0 | ",
      "0-1-89  | true  | 0 | 0-1-100",
      "0-1-95  | true  | 1 | 0-1-100",
      "0-1-95  | true  |   | 0-1-100",
      "0-1-100 | true  | 3 | "})
  void aStreamingTargetAFewTransactionsShortIsNotWaitedForBeforeTheFence(String target, boolean replicating,
      Long secondsBehind, String catchUp) {
    assertThat(planToPdx("0-1-100", "iad.db", 3306, target, replicating, secondsBehind).catchUpBeforeFence())
        .isEqualTo(catchUp);
  }

  /** The plan for a switchover to pdx, iad (writable, {@code sourceGtid}) the source, pdx replicating from {@code host:port}. */
  private static Plan planToPdx(String sourceGtid, String host, Integer port, String targetGtid) {
    return planToPdx(sourceGtid, host, port, targetGtid, true, 0L);
  }

  /** As above; pdx's threads both running or both stopped, and its replication delay (null: unknown). */
  private static Plan planToPdx(String sourceGtid, String host, Integer port, String targetGtid, boolean replicating,
      Long secondsBehind) {
    ServerState iad = new ServerState("iad", true, null, "MariaDB", "10.11.6-MariaDB", false, false, false, false,
        null, null, sourceGtid, null, null, 2);
    ServerState pdx = new ServerState("pdx", true, null, "MariaDB", "10.11.6-MariaDB", true, true, replicating,
        replicating, host, port, targetGtid, targetGtid, secondsBehind, 0);
    CheckedRequest request = new CheckedRequest(CONFIG, PlannedFailoverAnnotation.parse("pdx"));

    var decision = PlannedFailoverPlanner.decide(request, null, Map.of("iad", iad, "pdx", pdx), Instant.EPOCH);

    assertThat(decision).isInstanceOf(Proceed.class);
    return ((Proceed) decision).plan();
  }
}
