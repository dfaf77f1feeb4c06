package io.shipstream.failover.dev;

import static io.shipstream.failover.dev.HelmChartTest.kinds;
import static io.shipstream.failover.dev.HelmChartTest.only;
import static io.shipstream.failover.dev.HelmChartTest.parse;
import static io.shipstream.failover.dev.HelmChartTest.template;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's monitoring, rendered by the real helm: with the alert rules and the dashboard
 * enabled it renders a PrometheusRule holding exactly the plain rules file (which promtool then
 * checks again, as rendered), a dashboard ConfigMap with the Grafana sidecar's label holding
 * exactly the dashboard file, and Services and a ServiceMonitor that name the jobs the rules match.
 * Every alert has its runbook section in docs/operating/alerts.md, where its runbook_url points.
 */
class HelmMonitoringTest {
  /** The alerts' runbooks: one section per alert, headed by the alert's name. */
  static final Path RUNBOOKS = Path.of("..", "docs", "operating", "alerts.md").toAbsolutePath().normalize();
  /** Where every alert's runbook_url points by default: {@link #RUNBOOKS} on GitHub. */
  static final String RUNBOOKS_URL = "https://github.com/shipstream/mysql-failover/blob/main/docs/operating/alerts.md";
  static final Path DASHBOARD = HelmChartTest.CHART.resolve("monitoring").resolve("bloodraven-dashboard.json");

  @TempDir
  Path work;

  static List<HasMetadata> monitoring(String... extra) {
    var command = template().set("prometheusRule.enabled", "true").set("prometheusRule.labels.release", "prometheus")
        .set("grafanaDashboard.enabled", "true").set("serviceMonitor.enabled", "true");
    for (int i = 0; i < extra.length; i += 2) {
      command = command.set(extra[i], extra[i + 1]);
    }
    return parse(command.call());
  }

  @Test
  void thePrometheusRuleHoldsThePlainRulesFileAndPromtoolAcceptsItAsRendered() throws Exception {
    List<HasMetadata> rendering = monitoring();
    assertThat(kinds(rendering)).containsEntry("PrometheusRule", 1L).containsEntry("ServiceMonitor", 1L);

    var rule = (GenericKubernetesResource) only(rendering, "PrometheusRule");
    assertThat(rule.getApiVersion()).isEqualTo("monitoring.coreos.com/v1");
    assertThat(rule.getMetadata().getLabels()).containsEntry("release", "prometheus");
    Map<String, Object> plain = Serialization.unmarshal(Files.readString(AlertRulesTest.RULES), Map.class);
    assertThat((Object) rule.get("spec", "groups")).isEqualTo(plain.get("groups"));

    Path rendered = work.resolve("rendered.rules.yml");
    Files.writeString(rendered, Serialization.asYaml(Map.of("groups", rule.get("spec", "groups"))));
    Promtool.run(work, null, "check", "rules", rendered.toString()).report().assertSucceeded();
  }

  @Test
  void theRunbookLinksFollowRunbookBaseUrlAndEveryAlertHasItsRunbookSection() throws Exception {
    var rule = (GenericKubernetesResource) only(monitoring("prometheusRule.runbookBaseUrl",
        "https://wiki.example.com/runbooks/mysql"), "PrometheusRule");
    String runbooks = Files.readString(RUNBOOKS);
    List<Map<String, Object>> groups = rule.get("spec", "groups");
    int alerts = 0;
    for (Map<String, Object> group : groups) {
      for (Map<String, Object> r : (List<Map<String, Object>>) group.get("rules")) {
        String name = (String) r.get("alert");
        Map<String, String> annotations = (Map<String, String>) r.get("annotations");
        assertThat(annotations.get("runbook_url"))
            .isEqualTo("https://wiki.example.com/runbooks/mysql#" + name.toLowerCase(Locale.ROOT));
        assertThat(annotations.get("summary")).as(name).isNotBlank();
        assertThat(runbooks).as("the runbook section of " + name).contains("\n### " + name + "\n");
        alerts++;
      }
    }
    assertThat(alerts).isEqualTo(AlertRulesTest.alertNames().size());
  }

  /**
   * Without runbookBaseUrl every alert links to its section of docs/operating/alerts.md on GitHub:
   * the URL names that page, and its anchor is the one GitHub gives the section's heading (the
   * heading in lower case), so moving the runbooks without the links fails here.
   */
  @Test
  void theDefaultRunbookLinksPointAtTheirSectionOfTheRunbooksPage() throws Exception {
    Map<String, Object> plain = Serialization.unmarshal(Files.readString(AlertRulesTest.RULES), Map.class);
    String runbooks = Files.readString(RUNBOOKS);
    int alerts = 0;
    for (Map<String, Object> group : (List<Map<String, Object>>) plain.get("groups")) {
      for (Map<String, Object> r : (List<Map<String, Object>>) group.get("rules")) {
        String name = (String) r.get("alert");
        String url = ((Map<String, String>) r.get("annotations")).get("runbook_url");
        assertThat(url).as(name).isEqualTo(RUNBOOKS_URL + "#" + name.toLowerCase(Locale.ROOT));
        assertThat(runbooks).as("the heading whose anchor is " + url).contains("\n### " + name + "\n");
        alerts++;
      }
    }
    assertThat(alerts).isEqualTo(AlertRulesTest.alertNames().size());
  }

  @Test
  void theDashboardConfigMapCarriesTheSidecarLabelAndTheDashboardFile() throws Exception {
    ConfigMap map = (ConfigMap) only(monitoring("grafanaDashboard.annotations.grafana_folder", "Databases"),
        "ConfigMap");
    assertThat(map.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
    assertThat(map.getMetadata().getAnnotations()).containsEntry("grafana_folder", "Databases");
    assertThat(map.getMetadata().getNamespace()).isEqualTo(HelmChartTest.NAMESPACE);
    ObjectMapper json = new ObjectMapper();
    JsonNode dashboard = json.readTree(map.getData().get("bloodraven-dashboard.json"));
    assertThat(dashboard).isEqualTo(json.readTree(Files.readString(DASHBOARD)));
    assertThat(dashboard.path("uid").asText()).isEqualTo("bloodraven-failover");
    assertThat(dashboard.path("panels")).allSatisfy(p -> {
      if (!"row".equals(p.path("type").asText())) {
        assertThat(p.path("targets")).as(p.path("title").asText()).isNotEmpty();
      }
    });

    ConfigMap elsewhere = (ConfigMap) only(monitoring("grafanaDashboard.namespace", "monitoring",
        "grafanaDashboard.label", "dashboards", "grafanaDashboard.labelValue", "mysql"), "ConfigMap");
    assertThat(elsewhere.getMetadata().getNamespace()).isEqualTo("monitoring");
    assertThat(elsewhere.getMetadata().getLabels()).containsEntry("dashboards", "mysql");
  }

  @Test
  void theServiceMonitorNamesTheJobsTheRulesMatch() {
    List<HasMetadata> rendering = monitoring();
    var monitor = (GenericKubernetesResource) only(rendering, "ServiceMonitor");
    assertThat((String) monitor.get("spec", "jobLabel")).isEqualTo("bloodraven.shipstream.io/job");
    assertThat(HelmChartTest.of(rendering, Service.class))
        .extracting(s -> s.getMetadata().getLabels().get("bloodraven.shipstream.io/job"))
        .containsExactlyInAnyOrder("bloodraven-worker", "bloodraven-watcher");
  }
}
