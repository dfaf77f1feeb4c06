package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What on-call sees, end to end: a real {@code prometheus} (Debian's package) scrapes the worker
 * process, the watcher and the three sidecars of the embedded stack every second while a planned
 * failover (iad to pdx) and then an emergency one (pdx killed, back to iad) run. Afterwards every
 * query of the chart's dashboard and every expression of its alert rules runs against it without
 * error; those that describe the failovers return series; the failover counters moved by exactly
 * one per failover; and no alert about trouble the failovers did not cause would fire.
 */
class OnCallIT extends StackPerTest {
  private static final Path DASHBOARD = HelmChartTest.CHART.resolve("monitoring").resolve("bloodraven-dashboard.json");
  /** Panels that are empty on a group that is fine after its failovers, by design. */
  private static final Set<String> EMPTY_WHEN_HEALTHY = Set.of("Waiting for a human", "Session-store promotions",
      "Temporal and API errors");
  /** Alerts that must stay silent through an ordinary planned and emergency failover. */
  private static final Set<String> SILENT = Set.of("BloodravenPlannedFailoverFailed",
      "BloodravenEmergencyFailoverFailed", "BloodravenManualRecoveryRequired", "BloodravenNoPrimary",
      "BloodravenSplitBrain", "BloodravenFailoverBlocked", "BloodravenWatcherDown", "BloodravenWorkerDown",
      "BloodravenWatcherNoLeader", "BloodravenTransactionsLost");

  @Test
  void prometheusSeesBothFailoversAndEveryDashboardQueryAndAlertEvaluates() throws Exception {
    long started = System.nanoTime();
    stack = FailoverStack.start(work, FailoverStack.Options.emergency());
    stack.startSidecars(SidecarMesh.Knobs.playground());
    // Its own configuration and data under target/, afresh on every run.
    Path dir = Path.of("target", "oncall-prometheus").toAbsolutePath();
    deleteRecursively(dir);
    // The worker process itself, with its /metrics, in place of the stack's bare worker, and prometheus.
    try (StackMonitoring monitoring = StackMonitoring.start(stack, dir)) {
      PrometheusServer prometheus = monitoring.prometheus();
      Await.until(stack, () -> prometheus.sum("up") == 5 && prometheus.sum("count(bloodraven_site_state)") > 0,
          Duration.ofSeconds(30), "prometheus scraping the worker, the watcher and three sidecars");
      // Before any failover: the counters' totals, 0 where no series exists yet.
      double plannedBefore = prometheus.sum("bloodraven_planned_failovers_total");
      double emergencyBefore = prometheus.sum("bloodraven_failovers_total");
      log(started, "stack and prometheus up");

      String requested = Instant.now().toString();
      stack.api().annotate("pdx");
      PlannedFailoverStatus planned = stack.waits().plannedEnd(requested, Duration.ofSeconds(60));
      assertThat(planned.phase()).as(planned.toString()).isEqualTo("Succeeded");
      log(started, "planned failover iad -> pdx Succeeded");

      stack.server("pdx").kill9();
      Await.until(stack, () -> "Succeeded".equals(stack.api().emergencyPhase()) && "iad".equals(stack.api().resource()
          .getStatus().activeSite()), Duration.ofSeconds(60), "the emergency failover back to iad");
      log(started, "emergency failover pdx -> iad Succeeded");

      Await.until(stack, () -> prometheus.sum("bloodraven_planned_failovers_total") > plannedBefore
          && prometheus.sum("bloodraven_failovers_total") > emergencyBefore, Duration.ofSeconds(20),
          "prometheus to scrape both failovers from the worker");
      // A few more scrapes: a count that went on moving would show.
      Thread.sleep(2_000);
      assertThat(prometheus.sum("bloodraven_planned_failovers_total") - plannedBefore).isEqualTo(1);
      assertThat(prometheus.sum("bloodraven_planned_failovers_total{result=\"success\",target_site=\"pdx\"}"))
          .isEqualTo(1);
      assertThat(prometheus.sum("bloodraven_failovers_total") - emergencyBefore).isEqualTo(1);
      assertThat(prometheus.sum("bloodraven_failovers_total{result=\"success\",target_site=\"iad\"}")).isEqualTo(1);
      assertThat(prometheus.sum("bloodraven_dns_flips_total{result=\"success\"}")).as("one flip per failover")
          .isEqualTo(2);

      List<String> failures = new ArrayList<>();
      for (Map.Entry<String, List<String>> panel : dashboardQueries().entrySet()) {
        for (String expr : panel.getValue()) {
          PrometheusServer.Answer a = prometheus.query(grafanaVariablesResolved(expr));
          if (!a.ok()) {
            failures.add("panel '" + panel.getKey() + "': " + expr + " -> " + a.error());
          } else if (a.series().isEmpty() && !EMPTY_WHEN_HEALTHY.contains(panel.getKey())) {
            failures.add("panel '" + panel.getKey() + "' returned no series: " + expr);
          }
        }
      }
      for (Map.Entry<String, String> alert : alertExpressions().entrySet()) {
        PrometheusServer.Answer a = prometheus.query(alert.getValue());
        if (!a.ok()) {
          failures.add("alert " + alert.getKey() + ": " + a.error());
        } else if (SILENT.contains(alert.getKey()) && !a.series().isEmpty()) {
          failures.add("alert " + alert.getKey() + " would fire: " + a.series());
        }
      }
      log(started, dashboardQueries().values().stream().mapToInt(List::size).sum() + " dashboard queries and "
          + alertExpressions().size() + " alert expressions run");
      assertThat(failures).isEmpty();
    }
  }

  /** Every panel's queries, by panel title. */
  static Map<String, List<String>> dashboardQueries() throws Exception {
    JsonNode dashboard = new ObjectMapper().readTree(Files.readString(DASHBOARD));
    Map<String, List<String>> queries = new LinkedHashMap<>();
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        queries.computeIfAbsent(panel.path("title").asText(), t -> new ArrayList<>()).add(target.path("expr").asText());
      }
    }
    return queries;
  }

  /** Grafana's variables as a user looking at the last minutes would have them: every group. */
  static String grafanaVariablesResolved(String expr) {
    return expr.replace("$__rate_interval", "1m").replace("$__range", "10m").replace("$group", ".*");
  }

  /** Every alert's expression, by alert name, read from the rules file. */
  static Map<String, String> alertExpressions() throws Exception {
    Map<String, String> out = new LinkedHashMap<>();
    Matcher m = Pattern
        .compile("(?ms)^\\s*- alert: (\\w+)\\s*\\n(?:\\s*#[^\\n]*\\n)*\\s*expr: \\|\\n(.*?)\\n\\s*(?:for|labels):")
        .matcher(Files.readString(AlertRulesTest.RULES));
    while (m.find()) {
      out.put(m.group(1), m.group(2).strip());
    }
    assertThat(out.keySet()).containsExactlyElementsOf(AlertRulesTest.alertNames());
    return out;
  }

  private static void deleteRecursively(Path dir) throws java.io.IOException {
    if (Files.exists(dir)) {
      try (var paths = Files.walk(dir)) {
        for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  private static void log(long started, String what) {
    System.out.printf("%6d ms  %s%n", (System.nanoTime() - started) / 1_000_000, what);
  }
}
