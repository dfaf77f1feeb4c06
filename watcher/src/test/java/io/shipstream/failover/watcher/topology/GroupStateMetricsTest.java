package io.shipstream.failover.watcher.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SiteStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.topology.Verdict;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The group-level series the alert rules read, as Prometheus scrapes them: all there at their
 * starting values as soon as a group is watched, then 1 for what holds now.
 */
class GroupStateMetricsTest {
  private static final GroupRef ORDERS = new GroupRef("shop", "orders");
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final GroupStateMetrics metrics = new GroupStateMetrics(registry);

  @Test
  void aWatchedGroupHasEverySeriesBeforeAnythingHappens() {
    metrics.watch(ORDERS);

    assertThat(registry.scrape())
        .contains("bloodraven_group_condition{condition=\"Ready\",group=\"shop/orders\",status=\"Unknown\"} 1.0")
        .contains("bloodraven_group_condition{condition=\"Degraded\",group=\"shop/orders\",status=\"True\"} 0.0")
        .contains("bloodraven_topology_verdict{group=\"shop/orders\",verdict=\"SplitBrain\"} 0.0")
        .contains("bloodraven_failover_blocked{cause=\"CooldownActive\",group=\"shop/orders\"} 0.0")
        .contains("bloodraven_manual_recovery_required{cause=\"divergent_site\",group=\"shop/orders\"} 0.0")
        .contains("bloodraven_watcher_warnings_total{group=\"shop/orders\",reason=\"SplitBrainDetected\"} 0.0")
        .contains("bloodraven_routing_repairs_total{group=\"shop/orders\"} 0.0");
  }

  /** bloodraven_site_ready: a series per site and path, 1 while the site could take over by that path. */
  @Test
  void eachSitesReadinessIsASeriesPerPath() {
    var notPlanned = new io.shipstream.failover.model.topology.SiteReadiness.NotReady(
        io.shipstream.failover.model.topology.SiteReadiness.Reason.ReplicationStopped, "site 'pdx' is not replicating");
    var active = new io.shipstream.failover.model.topology.SiteReadiness.NotReady(
        io.shipstream.failover.model.topology.SiteReadiness.Reason.ActivePrimary, "site 'iad' is the active site");
    metrics.readiness(ORDERS, List.of(
        new io.shipstream.failover.model.topology.SiteReadiness.Readiness("iad", active, active, null, null),
        new io.shipstream.failover.model.topology.SiteReadiness.Readiness("pdx", notPlanned, null, 1, null)));

    assertThat(registry.scrape())
        .contains("bloodraven_site_ready{group=\"shop/orders\",path=\"planned\",site=\"pdx\"} 0.0")
        .contains("bloodraven_site_ready{group=\"shop/orders\",path=\"emergency\",site=\"pdx\"} 1.0")
        .contains("bloodraven_site_ready{group=\"shop/orders\",path=\"emergency\",site=\"iad\"} 0.0");

    metrics.readiness(ORDERS, List.of(
        new io.shipstream.failover.model.topology.SiteReadiness.Readiness("pdx", null, null, 1, null)));
    assertThat(registry.scrape())
        .contains("bloodraven_site_ready{group=\"shop/orders\",path=\"planned\",site=\"pdx\"} 1.0");
    metrics.forget(ORDERS);
    assertThat(registry.scrape()).doesNotContain("bloodraven_site_ready");
  }

  @Test
  void conditionsVerdictAndBlockedCauseFollowTheLatestEvaluation() {
    metrics.conditions(ORDERS, List.of(condition("Ready", "False"), condition("Progressing", "False"),
        condition("Degraded", "True")));
    metrics.verdict(ORDERS, new Verdict.Blocked(Verdict.Cause.DivergentCandidates, "iad", "pdx holds 7-1-1"));

    String scrape = registry.scrape();
    assertThat(scrape)
        .contains("bloodraven_group_condition{condition=\"Ready\",group=\"shop/orders\",status=\"False\"} 1.0")
        .contains("bloodraven_group_condition{condition=\"Ready\",group=\"shop/orders\",status=\"Unknown\"} 0.0")
        .contains("bloodraven_group_condition{condition=\"Degraded\",group=\"shop/orders\",status=\"True\"} 1.0")
        .contains("bloodraven_topology_verdict{group=\"shop/orders\",verdict=\"Blocked\"} 1.0")
        .contains("bloodraven_failover_blocked{cause=\"DivergentCandidates\",group=\"shop/orders\"} 1.0");

    metrics.verdict(ORDERS, new Verdict.Healthy("iad"));

    assertThat(registry.scrape())
        .contains("bloodraven_topology_verdict{group=\"shop/orders\",verdict=\"Healthy\"} 1.0")
        .contains("bloodraven_topology_verdict{group=\"shop/orders\",verdict=\"Blocked\"} 0.0")
        .contains("bloodraven_failover_blocked{cause=\"DivergentCandidates\",group=\"shop/orders\"} 0.0");
  }

  @Test
  void manualRecoveryIsTheLatestFailoverStoppingForAHumanOrADivergentSite() {
    PlannedFailoverStatus stopped = new PlannedFailoverStatus("Failed", "pdx", "iad", null, null,
        "2026-01-01T10:00:00Z", "2026-01-01T10:01:00Z", 60.0, null, "ExecuteFailed", null,
        "promotion of pdx failed; ...: manual recovery required", null);
    MysqlFailoverGroupStatus status = MysqlFailoverGroupStatus.empty().withPlannedFailover(stopped);

    metrics.recovery(ORDERS, status);
    assertThat(registry.scrape())
        .contains("bloodraven_manual_recovery_required{cause=\"failover_stopped\",group=\"shop/orders\"} 1.0");

    // A later emergency failover that succeeded is what the group's latest failover says.
    metrics.recovery(ORDERS, status.withEmergencyFailover(new EmergencyFailoverStatus("Succeeded", "pdx", "iad",
        null, null, "2026-01-01T11:00:00Z", "2026-01-01T11:00:05Z", 5.0, true, null, null, 0L, null, "promoted")));
    assertThat(registry.scrape())
        .contains("bloodraven_manual_recovery_required{cause=\"failover_stopped\",group=\"shop/orders\"} 0.0");

    metrics.recovery(ORDERS, new MysqlFailoverGroupStatus("iad", null, null, null,
        List.of(new SiteStatus("pdx", "READ_ONLY", null, false, "0-1-10,7-2-1", null, "7-2-1")),
        null, null, null, null, null));
    assertThat(registry.scrape())
        .contains("bloodraven_manual_recovery_required{cause=\"divergent_site\",group=\"shop/orders\"} 1.0");
  }

  @Test
  void warningsAreCountedByReasonAndAGroupNoLongerWatchedLeavesNoSeries() {
    metrics.warning(ORDERS, "SplitBrainDetected");
    metrics.warning(ORDERS, "RoutingIncomplete");

    assertThat(registry.scrape())
        .contains("bloodraven_watcher_warnings_total{group=\"shop/orders\",reason=\"SplitBrainDetected\"} 1.0")
        .contains("bloodraven_watcher_warnings_total{group=\"shop/orders\",reason=\"RoutingIncomplete\"} 1.0");

    metrics.forgetAll();

    assertThat(registry.scrape()).doesNotContain("shop/orders");
  }

  private static Condition condition(String type, String status) {
    return new ConditionBuilder().withType(type).withStatus(status).withReason("R").withMessage("m").build();
  }

  @Test
  void transactionsLostConfirmedFollowTheStatusRecordPerSite() {
    List<SiteStatus> sites = List.of(new SiteStatus("iad", "READ_ONLY", null, false, "0-1-12", null, "0-1-11..12"),
        new SiteStatus("pdx", "WRITABLE", null, false, "0-1-10,0-2-15", null, null));
    MysqlFailoverGroupStatus status = new MysqlFailoverGroupStatus("pdx", null, null, null, sites, null, null, null,
        null, null, null, null);
    metrics.recovery(ORDERS, status);
    assertThat(registry.scrape())
        .contains("bloodraven_transactions_lost_confirmed{group=\"shop/orders\",site=\"iad\"} 0.0")
        .contains("bloodraven_transactions_lost_confirmed{group=\"shop/orders\",site=\"pdx\"} 0.0");

    metrics.recovery(ORDERS, status.withLostTransactions(List.of(new MysqlFailoverGroupStatus.LostTransactions("iad",
        "2025-06-01T11:59:00Z", "pdx", "0-1-11..12", 2L, "2025-06-01T12:00:00Z"))));

    assertThat(registry.scrape())
        .contains("bloodraven_transactions_lost_confirmed{group=\"shop/orders\",site=\"iad\"} 2.0")
        .contains("bloodraven_transactions_lost_confirmed{group=\"shop/orders\",site=\"pdx\"} 0.0");
  }
}
