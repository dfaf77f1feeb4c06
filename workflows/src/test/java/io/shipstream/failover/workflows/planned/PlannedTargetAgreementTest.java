package io.shipstream.failover.workflows.planned;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.model.topology.SiteObservation;
import io.shipstream.failover.model.topology.SiteReadiness;
import io.shipstream.failover.model.topology.TopologyMatrix;
import io.shipstream.failover.workflows.activities.KubernetesActivities.GroupSnapshot;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.CheckedRequest;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Proceed;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Reject;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The planner (Validating, and so the dry run) and each site's planned readiness answer alike, as
 * issue #34 requires: both ask {@code PlannedTarget}. Each row is one situation of {@link
 * PlannedRig}'s group (iad the writable source, pdx and dr replicas, dr dr-only), given once as the
 * servers' inspections; the planner decides on them as Validating would, and {@link SiteReadiness}
 * judges the same states as the watcher's polls. For every site as target, the planner's outcome
 * and the readiness reason must be a pair of {@link #CORRESPONDS}; each row also pins pdx's pair.
 */
class PlannedTargetAgreementTest {
  private static final MysqlFailoverGroupSpec SPEC = PlannedRig.spec(null);
  private static final GroupConfig CONFIG = GroupConfig.resolve(SPEC);
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  private static final String A = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
  private static final String P = "4f22fb58-82db-22f2-af44-d91bb0530673";
  private static final String SET = A + ":1-100";
  private static final String PROCEED = "Proceed";

  /**
   * Which readiness reasons each planner outcome may meet. A refusal of the shared rule maps to the
   * one readiness reason of the same row; a Proceed meets a ready site or one of readiness's own
   * checks (what would make an accepted switchover slow or wrong), never a refusal of the rule. So
   * readiness is never laxer than the planner, and stricter only where it says why.
   */
  static final Map<String, Set<SiteReadiness.Reason>> CORRESPONDS = Map.of(
      PROCEED, reasons(null, SiteReadiness.Reason.SqlThreadError, SiteReadiness.Reason.Lagging,
          SiteReadiness.Reason.ErrantTransactions),
      Reason.TargetNotCandidate.name(), reasons(SiteReadiness.Reason.NotCandidate),
      Reason.AlreadyActive.name(), reasons(SiteReadiness.Reason.ActivePrimary),
      Reason.TargetFenced.name(), reasons(SiteReadiness.Reason.Fenced),
      Reason.NoActivePrimary.name(), reasons(SiteReadiness.Reason.NoActiveSite, SiteReadiness.Reason.NoLiveSource),
      Reason.SourceCrashed.name(), reasons(SiteReadiness.Reason.NoLiveSource),
      Reason.TargetUnhealthy.name(), reasons(SiteReadiness.Reason.NotPolled, SiteReadiness.Reason.Unreachable,
          SiteReadiness.Reason.Writable, SiteReadiness.Reason.ReplicationStopped, SiteReadiness.Reason.SqlThreadError));

  static Set<SiteReadiness.Reason> reasons(SiteReadiness.Reason... rs) {
    return new HashSet<>(Arrays.asList(rs));
  }

  static ServerState primary(String site) {
    return new ServerState(site, true, null, "MySQL", "8.4.3", false, false, false, false, null, null, SET, null, null,
        2);
  }

  static ServerState replica(String site) {
    return replica(site, true, true, SET, 0L, null);
  }

  static ServerState replica(String site, boolean io, boolean sql, String gtid, Long behind, String sqlError) {
    return new ServerState(site, true, null, "MySQL", "8.4.3", true, true, io, sql, "iad.db", 3306, gtid, gtid, behind,
        0, sqlError);
  }

  static Map<String, ServerState> healthy() {
    Map<String, ServerState> m = new LinkedHashMap<>();
    m.put("iad", primary("iad"));
    m.put("pdx", replica("pdx"));
    m.put("dr", replica("dr"));
    return m;
  }

  static Stream<Arguments> table() {
    return Stream.of(
        row("healthy", "iad", List.of(), m -> m, PROCEED, null),
        row("pdx fenced", "iad", List.of("pdx"), m -> m, Reason.TargetFenced, SiteReadiness.Reason.Fenced),
        row("pdx unreachable", "iad", List.of(),
            m -> set(m, "pdx", ServerState.unreachable("pdx", "connect timed out")),
            Reason.TargetUnhealthy, SiteReadiness.Reason.Unreachable),
        row("pdx not read", "iad", List.of(), m -> set(m, "pdx", null), Reason.TargetUnhealthy,
            SiteReadiness.Reason.NotPolled),
        row("pdx writable", "iad", List.of(), m -> set(m, "pdx", primary("pdx")), Reason.TargetUnhealthy,
            SiteReadiness.Reason.Writable),
        row("pdx SQL thread stopped by hand", "iad", List.of(), m -> set(m, "pdx", replica("pdx", true, false, SET,
            null, null)), Reason.TargetUnhealthy, SiteReadiness.Reason.ReplicationStopped),
        row("pdx IO thread stopped", "iad", List.of(), m -> set(m, "pdx", replica("pdx", false, true, SET, null, null)),
            Reason.TargetUnhealthy, SiteReadiness.Reason.ReplicationStopped),
        row("pdx SQL thread stopped on an error", "iad", List.of(), m -> set(m, "pdx", replica("pdx", true, false, SET,
            null, "Error 1062")), Reason.TargetUnhealthy, SiteReadiness.Reason.SqlThreadError),
        // Readiness's own checks: the planner accepts, the switchover would be slow or wrong.
        row("pdx SQL thread runs with an error", "iad", List.of(), m -> set(m, "pdx", replica("pdx", true, true, SET,
            0L, "Error 1062")), PROCEED, SiteReadiness.Reason.SqlThreadError),
        row("pdx 600 s behind, maxLagWait 5m", "iad", List.of(), m -> set(m, "pdx", replica("pdx", true, true, SET,
            600L, null)), PROCEED, SiteReadiness.Reason.Lagging),
        row("pdx holds errant transactions", "iad", List.of(), m -> set(m, "pdx", replica("pdx", true, true,
            SET + "," + P + ":1-2", 0L, null)), PROCEED, SiteReadiness.Reason.ErrantTransactions),
        row("iad unreachable", "iad", List.of(),
            m -> set(m, "iad", ServerState.unreachable("iad", "connect timed out")),
            Reason.SourceCrashed, SiteReadiness.Reason.NoLiveSource),
        row("iad not read", "iad", List.of(), m -> set(m, "iad", null), Reason.SourceCrashed,
            SiteReadiness.Reason.NoLiveSource),
        row("iad read-only (fenced)", "iad", List.of("iad"), m -> set(m, "iad", replica("iad")),
            Reason.NoActivePrimary, SiteReadiness.Reason.NoLiveSource),
        row("iad unreachable and pdx unreachable", "iad", List.of(), m -> set(set(m, "iad",
            ServerState.unreachable("iad", null)), "pdx", ServerState.unreachable("pdx", null)), Reason.SourceCrashed,
            SiteReadiness.Reason.NoLiveSource),
        row("no active site recorded, iad the one writable", null, List.of(), m -> m, PROCEED, null),
        row("no active site recorded, pdx the one writable", null, List.of(), m -> set(set(m, "pdx", primary("pdx")),
            "iad", replica("iad")), Reason.AlreadyActive, SiteReadiness.Reason.ActivePrimary),
        row("no active site recorded, two writable", null, List.of(), m -> set(m, "dr", primary("dr")),
            Reason.NoActivePrimary, SiteReadiness.Reason.NoActiveSite),
        row("no active site recorded, none writable", null, List.of(), m -> set(m, "iad", replica("iad")),
            Reason.NoActivePrimary, SiteReadiness.Reason.NoActiveSite),
        row("active site not of the spec", "sfo", List.of(), m -> m, Reason.NoActivePrimary,
            SiteReadiness.Reason.NoActiveSite),
        row("pdx the active site", "pdx", List.of(), m -> set(set(m, "pdx", primary("pdx")), "iad", replica("iad")),
            Reason.AlreadyActive, SiteReadiness.Reason.ActivePrimary));
  }

  static Arguments row(String name, String active, List<String> fenced, UnaryOperator<Map<String, ServerState>> change,
      Object planner, SiteReadiness.Reason readiness) {
    return Arguments.of(name, active, fenced, change, planner.toString(), readiness);
  }

  /** Sets a site's inspection; null: the site was not read. */
  static Map<String, ServerState> set(Map<String, ServerState> m, String site, ServerState s) {
    if (s == null) {
      m.remove(site);
    } else {
      m.put(site, s);
    }
    return m;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("table")
  void plannerAndReadinessAgree(String name, String active, List<String> fenced,
      UnaryOperator<Map<String, ServerState>> change, String pdxPlanner, SiteReadiness.Reason pdxReadiness) {
    Map<String, ServerState> states = change.apply(healthy());
    MysqlFailoverGroupStatus status = MysqlFailoverGroupStatus.empty().withActiveSite(active).withFencedSites(fenced);
    List<SiteReadiness.Readiness> readiness = SiteReadiness.evaluate(new TopologyMatrix.Input(CONFIG, polls(states),
        active, null, active, false, NOW).withFenced(fenced));

    for (SiteSpec target : CONFIG.sites()) {
      String planner = planner(status, states, target.name());
      SiteReadiness.NotReady planned = readiness.stream().filter(r -> r.site().equals(target.name())).findFirst()
          .orElseThrow().planned();
      SiteReadiness.Reason reason = planned == null ? null : planned.reason();
      assertThat(CORRESPONDS.get(planner)).as("%s, target %s: planner %s, readiness %s (%s)", name, target.name(),
          planner, reason, planned == null ? "ready" : planned.message()).contains(reason);
      if (target.name().equals("pdx")) {
        assertThat(planner).as("the planner on pdx").isEqualTo(pdxPlanner);
        assertThat(reason).as("pdx's readiness").isEqualTo(pdxReadiness);
      }
    }
  }

  /** The planner's outcome for a request to {@code target}, as Validating reaches it: its Reject reason, or Proceed. */
  private static String planner(MysqlFailoverGroupStatus status, Map<String, ServerState> states, String target) {
    var pre = PlannedFailoverPlanner.precheck(new GroupSnapshot(SPEC, status, target, 1L), target);
    if (pre instanceof Reject r) {
      return r.reason().name();
    }
    var decision = PlannedFailoverPlanner.decide((CheckedRequest) pre, status, states, NOW);
    if (decision instanceof Reject r) {
      return r.reason().name();
    }
    assertThat(decision).isInstanceOf(Proceed.class);
    return PROCEED;
  }

  /** The inspections as the watcher's polls of the same servers; a site not read has no verdict yet. */
  private static Map<String, SiteObservation> polls(Map<String, ServerState> states) {
    Map<String, SiteObservation> polls = new LinkedHashMap<>();
    for (SiteSpec site : CONFIG.sites()) {
      ServerState s = states.get(site.name());
      if (s == null) {
        polls.put(site.name(), SiteObservation.unknown());
        continue;
      }
      Probe p = new Probe(s.site(), s.reachable(), s.readOnly(), s.gtidExecuted(), s.site().equals("pdx") ? P : null,
          s.replicating(), s.secondsBehindSource(), s.error(), NOW)
          .withSourceIo(s.replicaConfigured() ? (s.ioThreadRunning() ? "Yes" : "No") : null, null)
          .withSourceSql(s.replicaConfigured() ? s.sqlThreadRunning() : null, s.lastSqlError());
      polls.put(site.name(), new SiteObservation(p.observed(), p, s.reachable() ? p : null));
    }
    return polls;
  }
}
