package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.topology.Fixture.T0;
import static io.shipstream.failover.model.topology.Fixture.UUID_A;
import static io.shipstream.failover.model.topology.Fixture.down;
import static io.shipstream.failover.model.topology.Fixture.readOnlyProbe;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.Specs;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.EmergencyFailoverSpec;
import io.shipstream.failover.model.topology.Verdict.Blocked;
import io.shipstream.failover.model.topology.Verdict.Cause;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Rows 19a and 19b of the {@link TopologyMatrix} table: {@code spec.emergencyFailover.maxLagOnPromotion}
 * against the transactions the chosen candidate had not received, and the human's override.
 */
class TopologyMatrixLagLimitTest {

  static GroupConfig limited(Long limit) {
    MysqlFailoverGroupSpec base = Specs.withSites(List.of(Fixture.candidate("s0"), Fixture.candidate("s1")));
    return GroupConfig.resolve(new MysqlFailoverGroupSpec(base.sites(), null, null, null, null, null, null, null, null,
        null, null, null, limit == null ? null : new EmergencyFailoverSpec(limit), null, null));
  }

  /** s0 was primary, last seen at {@code primaryLast}; s1 executed {@code executed} and received {@code received}. */
  static TopologyMatrix.Input lost(Long limit, String primaryLast, String executed, String received) {
    Probe p = readOnlyProbe("s1", executed, null, true).withReceivedGtid(received);
    return new TopologyMatrix.Input(limited(limit), Map.of("s0", down("s0", primaryLast),
        "s1", new SiteObservation(SiteState.READ_ONLY, p, p)), "s0", null, null, false, T0);
  }

  /**
   * The table: limit, the failed primary's last set, the candidate's executed and received sets,
   * and what follows (P = promote, B = blocked) with how many it had not received.
   */
  @ParameterizedTest(name = "limit {0}: primary {1}, executed {2}, received {3} -> {4} ({5} not received)")
  @CsvSource(delimiter = '|', nullValues = "-", value = {
      // no limit: never held back, however far behind
      "-  | 0-1-100 | 0-1-10  | 0-1-10  | P | -",
      // MariaDB: Gtid_IO_Pos is a position; received everything, applied less: within any limit, even 0
      "0  | 0-1-100 | 0-1-90  | 0-1-100 | P | 0",
      "0  | 0-1-100 | 0-1-100 | -       | P | 0",
      "0  | 0-1-100 | 0-1-99  | 0-1-99  | B | 1",
      "5  | 0-1-100 | 0-1-90  | 0-1-95  | P | 5",
      "5  | 0-1-100 | 0-1-90  | 0-1-94  | B | 6",
      "5  | 0-1-100 | 0-1-90  | -       | B | 10",
      // MariaDB: a received position behind the executed one (IO thread restarted) adds nothing
      "5  | 0-1-100 | 0-1-96  | 0-1-50  | P | 4",
      // MySQL: executed ∪ Retrieved_Gtid_Set, interval by interval
      "3  | " + UUID_A + ":1-100 | " + UUID_A + ":1-50 | " + UUID_A + ":1-97 | P | 3",
      "2  | " + UUID_A + ":1-100 | " + UUID_A + ":1-50 | " + UUID_A + ":1-97 | B | 3",
      "0  | " + UUID_A + ":1-100 | " + UUID_A + ":1-50 | " + UUID_A + ":40-100 | P | 0",
      "0  | " + UUID_A + ":1-100 | " + UUID_A + ":1-50 | " + UUID_A + ":52-100 | B | 1",
  })
  void row19aAgainstTheLimit(Long limit, String primary, String executed, String received, String outcome,
      Long notReceived) {
    Verdict v = TopologyMatrix.evaluate(lost(limit, primary, executed, received));

    if (outcome.equals("P")) {
      assertThat(v).isInstanceOf(Verdict.Promote.class);
      Verdict.Promote p = (Verdict.Promote) v;
      assertThat(p.candidate()).isEqualTo("s1");
      assertThat(p.forced()).isFalse();
      if (notReceived != null) {
        assertThat(p.reason())
            .contains(notReceived + " transaction(s) not received, within maxLagOnPromotion " + limit);
      }
    } else {
      assertThat(v).isInstanceOf(Blocked.class);
      Blocked b = (Blocked) v;
      assertThat(b.cause()).isEqualTo(Cause.CandidateTooFarBehind);
      assertThat(b.candidate()).isEqualTo("s1");
      assertThat(b.failedSite()).isEqualTo("s0");
      assertThat(b.reason()).contains("site 's1' had not received " + notReceived + " transaction(s)")
          .contains("more than spec.emergencyFailover.maxLagOnPromotion " + limit)
          .contains("bloodraven.shipstream.io/promote-anyway=s1");
    }
  }

  @Test
  void row19aTheReasonNamesTheTransactionsNotReceived() {
    Blocked b = (Blocked) TopologyMatrix.evaluate(lost(5L, "0-1-100", "0-1-90", "0-1-94"));

    assertThat(b.reason()).isEqualTo("the active site 's0' is unreachable; site 's1' had not received 6 "
        + "transaction(s) of the last known set of 's0' (0-1-95..100), more than "
        + "spec.emergencyFailover.maxLagOnPromotion 5: not promoted; to promote it anyway and lose them: kubectl "
        + "annotate mysqlfailovergroup <name> bloodraven.shipstream.io/promote-anyway=s1");
  }

  @Test
  void row19aAPrimaryNeverSeenCannotBeShownWithinTheLimit() {
    Verdict v = TopologyMatrix.evaluate(lost(5L, null, "0-1-90", "0-1-90"));

    assertThat(v).isInstanceOf(Blocked.class).extracting("cause").isEqualTo(Cause.CandidateTooFarBehind);
    assertThat(v.reason()).contains("cannot be known (the GTID set of 's0' was never seen)");
  }

  @Test
  void row19aWithoutALimitAPrimaryNeverSeenIsFailedOverFromAsBefore() {
    assertThat(TopologyMatrix.evaluate(lost(null, null, "0-1-90", "0-1-90"))).isInstanceOf(Verdict.Promote.class);
  }

  @Test
  void row19bTheOverrideNamingTheCandidatePromotesItAndCarriesWhatItLoses() {
    Verdict v = TopologyMatrix.evaluate(lost(5L, "0-1-100", "0-1-90", "0-1-94").withPromoteAnyway("s1"));

    assertThat(v).isInstanceOf(Verdict.Promote.class);
    Verdict.Promote p = (Verdict.Promote) v;
    assertThat(p.candidate()).isEqualTo("s1");
    assertThat(p.failedSiteLastGtid()).isEqualTo("0-1-100");
    assertThat(p.lagOverride()).isEqualTo(new Verdict.LagOverride(6L, "0-1-95..100", 5));
    assertThat(p.reason()).contains("promoting anyway as bloodraven.shipstream.io/promote-anyway requests");
  }

  @Test
  void row19bTheOverrideNamingAnotherSiteDoesNotPromote() {
    Verdict v = TopologyMatrix.evaluate(lost(5L, "0-1-100", "0-1-90", "0-1-94").withPromoteAnyway("s0"));

    assertThat(v).isInstanceOf(Blocked.class).extracting("cause").isEqualTo(Cause.CandidateTooFarBehind);
  }

  @Test
  void row19bTheOverrideIsNotNeededWithinTheLimit() {
    Verdict v = TopologyMatrix.evaluate(lost(5L, "0-1-100", "0-1-90", "0-1-100").withPromoteAnyway("s1"));

    assertThat(v).isInstanceOf(Verdict.Promote.class);
    assertThat(((Verdict.Promote) v).forced()).isFalse();
  }

  @Test
  void aNegativeLimitIsAnInvalidSpecAndAbsentIsNoLimit() {
    GroupConfig.InvalidSpecException e = catchThrowableOfType(GroupConfig.InvalidSpecException.class,
        () -> limited(-1L));

    assertThat(e.problems()).containsExactly(
        "emergencyFailover.maxLagOnPromotion must be 0 or more (transactions), not -1");
    assertThat(limited(null).maxLagOnPromotion()).isNull();
    assertThat(limited(0L).maxLagOnPromotion()).isZero();
  }
}
