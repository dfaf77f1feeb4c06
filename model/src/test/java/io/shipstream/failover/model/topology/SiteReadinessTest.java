package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.topology.Fixture.T0;
import static io.shipstream.failover.model.topology.Fixture.UUID_A;
import static io.shipstream.failover.model.topology.Fixture.UUID_B;
import static io.shipstream.failover.model.topology.Fixture.UUID_C;
import static io.shipstream.failover.model.topology.Fixture.candidate;
import static io.shipstream.failover.model.topology.Fixture.down;
import static io.shipstream.failover.model.topology.Fixture.drOnly;
import static io.shipstream.failover.model.topology.Fixture.readOnlyProbe;
import static io.shipstream.failover.model.topology.Fixture.writable;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.Specs;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.EmergencyFailoverSpec;
import io.shipstream.failover.model.topology.SiteReadiness.Readiness;
import io.shipstream.failover.model.topology.SiteReadiness.Reason;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link SiteReadiness}: a group a (active, MySQL {@code A:1-100}), b and c (replicas), d (dr-only),
 * changed one way per row; each row says what b's planned and emergency readiness are, and which
 * site the emergency path ranks first.
 */
class SiteReadinessTest {
  static final String P = UUID_A + ":1-100";

  static GroupConfig config(Long maxLagOnPromotion) {
    MysqlFailoverGroupSpec base = Specs.withSites(List.of(candidate("a"), candidate("b"), candidate("c"), drOnly("d")));
    return GroupConfig.resolve(new MysqlFailoverGroupSpec(base.sites(), null, null, null, null, null, null, null, null,
        null, null, null, maxLagOnPromotion == null ? null : new EmergencyFailoverSpec(maxLagOnPromotion), null, null));
  }

  static SiteObservation replica(String site, String gtid, String serverId) {
    Probe p = readOnlyProbe(site, gtid, serverId, true).withSourceSql(true, null).withSourceIo("Yes", null)
        .withReceivedGtid(gtid);
    return new SiteObservation(SiteState.READ_ONLY, p, p);
  }

  static SiteObservation observed(Probe p) {
    return new SiteObservation(p.observed(), p, p.reachable() ? p : null);
  }

  static Map<String, SiteObservation> healthy() {
    Map<String, SiteObservation> m = new LinkedHashMap<>();
    m.put("a", writable("a", P));
    m.put("b", replica("b", P, UUID_B));
    m.put("c", replica("c", UUID_A + ":1-99", UUID_C));
    m.put("d", replica("d", P, null));
    return m;
  }

  static Probe bProbe() {
    return bProbe(true, 0L);
  }

  /** b's poll: read-only, at a's set, both threads running unless told otherwise. */
  static Probe bProbe(boolean replicating, Long secondsBehind) {
    return new Probe("b", true, true, P, UUID_B, replicating, secondsBehind, null, T0).withSourceIo("Yes", null)
        .withReceivedGtid(P).withSourceSql(true, null);
  }

  static Stream<Arguments> table() {
    return Stream.of(
        row("healthy: b is first in line", m -> m, null, List.of(), null, null, "b"),
        // A DBA's STOP REPLICA SQL_THREAD: no planned switchover (the lag gate would never pass),
        // but the emergency drain applies the relay log, so the matrix would still promote b.
        row("SQL thread stopped by hand", m -> put(m, "b", observed(bProbe(false, null).withSourceSql(false, null))),
            null, List.of(), Reason.ReplicationStopped, null, "b"),
        row("SQL thread stopped on an error", m -> put(m, "b", observed(bProbe(false, null)
            .withSourceSql(false, "Error 1062"))), null, List.of(), Reason.SqlThreadError, Reason.SqlThreadError, "c"),
        row("fenced", m -> m, null, List.of("b"), Reason.Fenced, Reason.Fenced, "c"),
        row("unreachable", m -> put(m, "b", new SiteObservation(SiteState.UNREACHABLE,
            Probe.unreachable("b", "connect timed out", T0), bProbe())), null, List.of(), Reason.Unreachable,
            Reason.Unreachable, "c"),
        row("not polled yet", m -> put(m, "b", SiteObservation.unknown()), null, List.of(), Reason.NotPolled,
            Reason.NotPolled, "c"),
        row("600 s behind, maxLagWait 5m", m -> put(m, "b", observed(bProbe(true, 600L))), null,
            List.of(), Reason.Lagging, null, "b"),
        // b wrote B:1-2 as a replica: passed over by the matrix, refused as a planned target too; c
        // lacks A:100 that b holds, so the matrix blocks and no one is first.
        row("errant transactions", m -> put(m, "b", replica("b", P + "," + UUID_B + ":1-2", UUID_B)), null,
            List.of(), Reason.ErrantTransactions, Reason.ErrantTransactions, null),
        row("errant transactions, c holds the rest", m -> put(put(m, "c", replica("c", P, UUID_C)), "b",
            replica("b", P + "," + UUID_B + ":1-2", UUID_B)), null, List.of(), Reason.ErrantTransactions,
            Reason.ErrantTransactions, "c"),
        // maxLagOnPromotion 0: b received all of a's set, c lacks one; b first, c never (the matrix blocks).
        row("c behind maxLagOnPromotion", m -> m, 0L, List.of(), null, null, "b"),
        row("active site lost: the real emergency", m -> put(m, "a", down("a", P)), null, List.of(),
            Reason.NoLiveSource, null, "b"),
        row("a second writable site", m -> put(m, "c", writable("c", P)), null, List.of(), null, Reason.GroupState,
            null));
  }

  static Arguments row(String name, UnaryOperator<Map<String, SiteObservation>> change, Long lagLimit,
      List<String> fenced, Reason bPlanned, Reason bEmergency, String first) {
    return Arguments.of(name, change, lagLimit, fenced, bPlanned, bEmergency, first);
  }

  static Map<String, SiteObservation> put(Map<String, SiteObservation> m, String site, SiteObservation o) {
    m.put(site, o);
    return m;
  }

  static TopologyMatrix.Input input(UnaryOperator<Map<String, SiteObservation>> change, Long lagLimit,
      List<String> fenced) {
    return new TopologyMatrix.Input(config(lagLimit), change.apply(healthy()), "a", null, "a", false, T0)
        .withFenced(fenced);
  }

  static Readiness of(List<Readiness> all, String site) {
    return all.stream().filter(r -> r.site().equals(site)).findFirst().orElseThrow();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("table")
  void readinessOfB(String name, UnaryOperator<Map<String, SiteObservation>> change, Long lagLimit, List<String> fenced,
      Reason bPlanned, Reason bEmergency, String first) {
    TopologyMatrix.Input in = input(change, lagLimit, fenced);
    List<Readiness> all = SiteReadiness.evaluate(in);
    Readiness b = of(all, "b");
    assertThat(b.planned() == null ? null : b.planned().reason()).as(b.message()).isEqualTo(bPlanned);
    assertThat(b.emergency() == null ? null : b.emergency().reason()).as(b.message()).isEqualTo(bEmergency);
    assertThat(all.stream().filter(r -> Integer.valueOf(1).equals(r.emergencyRank())).map(Readiness::site).findFirst()
        .orElse(null)).isEqualTo(first);
    assertThat(of(all, "a").planned().reason()).isEqualTo(Reason.ActivePrimary);
    assertThat(of(all, "a").emergency().reason()).isEqualTo(Reason.ActivePrimary);
    assertThat(of(all, "d").planned().reason()).isIn(Reason.NotCandidate, Reason.NoLiveSource);
    assertThat(of(all, "d").emergency().reason()).isIn(Reason.NotCandidate, Reason.GroupState);
    assertThat(SiteReadiness.readySites(all)).allMatch(s -> of(all, s).ready());
  }

  /**
   * The site ranked first is the one the matrix promotes when the active site is really lost: the
   * readiness is the failover's own rule, in every row of the table.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("table")
  void firstInLineIsWhatTheMatrixPromotes(String name, UnaryOperator<Map<String, SiteObservation>> change,
      Long lagLimit, List<String> fenced, Reason bPlanned, Reason bEmergency, String first) {
    TopologyMatrix.Input in = input(change, lagLimit, fenced);
    Map<String, SiteObservation> lost = new LinkedHashMap<>(in.sites());
    lost.put("a", down("a", in.observation("a").lastReachable() == null ? null
        : in.observation("a").lastReachable().gtidExecuted()));
    Verdict real = TopologyMatrix.evaluate(new TopologyMatrix.Input(in.config(), lost, "a", null, "a", false, T0)
        .withFenced(fenced));
    String promoted = real instanceof Verdict.Promote p ? p.candidate() : null;
    assertThat(promoted).isEqualTo(first);
  }

  @Test
  void lagLimitBlocksTheSiteBehindOnceThoseAheadAreLost() {
    List<Readiness> all = SiteReadiness.evaluate(input(m -> m, 0L, List.of()));
    assertThat(of(all, "b").emergencyRank()).isEqualTo(1);
    assertThat(of(all, "c").emergency().reason()).isEqualTo(Reason.Lagging);
    assertThat(of(all, "c").emergency().message()).contains("maxLagOnPromotion 0");
    assertThat(of(all, "c").plannedReady()).isTrue();
    assertThat(SiteReadiness.readySites(all)).containsExactly("b", "c");
  }

  @Test
  void everyCandidateReadyIsRankedInOrder() {
    List<Readiness> all = SiteReadiness.evaluate(input(m -> m, null, List.of()));
    assertThat(of(all, "b").emergencyRank()).isEqualTo(1);
    assertThat(of(all, "c").emergencyRank()).isEqualTo(2);
    assertThat(of(all, "b").message()).isEqualTo("planned target: ready; emergency candidate: ready (rank 1)");
  }

  /**
   * No active site recorded: the emergency path has nothing to fail over from, while a planned
   * switchover, as the planner takes it, hands over from the one writable site (a); with two
   * writable sites there is no source to choose.
   */
  @Test
  void noActiveSiteRecordedLeavesOnlyThePlannedPathFromTheOneWritableSite() {
    List<Readiness> all = SiteReadiness.evaluate(new TopologyMatrix.Input(config(null), healthy(), null, null, null,
        false, T0));
    assertThat(all).allMatch(r -> r.emergency().reason() == Reason.NoActiveSite);
    assertThat(of(all, "a").planned().reason()).isEqualTo(Reason.ActivePrimary);
    assertThat(of(all, "a").planned().message()).isEqualTo("site 'a' is already the writable primary");
    assertThat(of(all, "d").planned().reason()).isEqualTo(Reason.NotCandidate);
    assertThat(SiteReadiness.readySites(all)).containsExactly("b", "c");

    List<Readiness> twoWritable = SiteReadiness.evaluate(new TopologyMatrix.Input(config(null),
        put(healthy(), "c", writable("c", P)), null, null, null, false, T0));
    assertThat(SiteReadiness.readySites(twoWritable)).isEmpty();
    assertThat(of(twoWritable, "b").planned().reason()).isEqualTo(Reason.NoActiveSite);
    assertThat(of(twoWritable, "b").planned().message())
        .isEqualTo("more than one writable server [a, c]: refusing to choose a source");
  }

  @Test
  void stoppedReplicationNamesTheThread() {
    TopologyMatrix.Input in =
        input(m -> put(m, "b", observed(bProbe(false, null).withSourceSql(false, null))), null, List.of());
    assertThat(of(SiteReadiness.evaluate(in), "b").planned().message())
        .isEqualTo("target b is not replicating (io thread running, sql thread stopped)");
  }

  @Test
  void semiSyncNotAckingIsANoteNotAVerdict() {
    MysqlFailoverGroupSpec base = Specs.withSites(List.of(candidate("a"), candidate("b")));
    MysqlFailoverGroupSpec spec = new MysqlFailoverGroupSpec(base.sites(), null, null, null, null, null, null, null,
        null, null, null, null, null, null, new MysqlFailoverGroupSpec.SemiSyncSpec(true, null, null, null, null));
    TopologyMatrix.Input in = new TopologyMatrix.Input(GroupConfig.resolve(spec),
        Map.of("a", writable("a", P), "b", replica("b", P, UUID_B)), "a", null, "a", false, T0);
    Readiness b = of(SiteReadiness.evaluate(in, Map.of("b", false)), "b");
    assertThat(b.ready()).isTrue();
    assertThat(b.notes()).singleElement().asString().startsWith("SemiSyncNotAcking");
    assertThat(of(SiteReadiness.evaluate(in, Map.of("b", true)), "b").notes()).isEmpty();
  }
}
