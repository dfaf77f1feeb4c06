package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.runtime.Metric;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.sidecar.Sidecar;
import io.shipstream.failover.sidecar.SidecarConfig;
import io.shipstream.failover.testsupport.FreePorts;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.watcher.WatcherApp;
import io.shipstream.failover.watcher.WatcherConfig;
import io.shipstream.failover.worker.WorkerApp;
import io.shipstream.failover.worker.WorkerConfig;
import io.shipstream.failover.workflows.PlannedFailoverWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.testserver.TestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's alert rules and the processes' metrics, checked by Prometheus's own promtool: the
 * rules file is valid, every alert has a unit test that passes (it fires on the series it is for
 * and stays silent on a healthy group), and the real {@code /metrics} of the worker, the watcher
 * and a sidecar pass {@code promtool check metrics}. promtool's output is printed, so the test
 * report keeps it.
 */
class AlertRulesTest {
  static final Path RULES = HelmChartTest.CHART.resolve("monitoring").resolve("bloodraven-alerts.rules.yml");
  static final String UNIT_TESTS = "/prometheus/bloodraven-alerts.test.yml";
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static final Pattern ALERT = Pattern.compile("(?m)^\\s*- alert: (\\w+)\\s*$");

  @TempDir
  Path work;

  /** The alert names of the rules file, in order. */
  static List<String> alertNames() throws Exception {
    Matcher m = ALERT.matcher(Files.readString(RULES));
    return m.results().map(r -> r.group(1)).toList();
  }

  @Test
  void theRulesFileIsValid() throws Exception {
    Promtool.run(work, null, "check", "rules", RULES.toString()).report().assertSucceeded();
  }

  @Test
  void everyAlertHasAUnitTestAndTheyPass() throws Exception {
    Files.copy(RULES, work.resolve(RULES.getFileName()), StandardCopyOption.REPLACE_EXISTING);
    Path tests = work.resolve("bloodraven-alerts.test.yml");
    try (var in = AlertRulesTest.class.getResourceAsStream(UNIT_TESTS)) {
      Files.copy(in, tests);
    }

    Promtool.Run run = Promtool.run(work, null, "test", "rules", tests.getFileName().toString()).report();

    run.assertSucceeded();
    String text = Files.readString(tests);
    for (String alert : alertNames()) {
      // A firing case: an expected alert under the alert's own test, not only the healthy group's.
      assertThat(Pattern.compile("alertname: " + alert + "\\s+exp_alerts:\\s*(&\\S+\\s*)?\\n\\s+- exp_labels")
          .matcher(text).find()).as("a unit test in which %s fires", alert).isTrue();
      assertThat(text).as("the healthy group checked for %s", alert)
          .contains("alertname: " + alert + ", exp_alerts: []}");
    }
  }

  @Test
  void theWorkersMetricsPassPromtool() throws Exception {
    TestServer.InProcessTestServer temporal = TestServer.createServer(true);
    WorkflowServiceStubs service = WorkflowServiceStubs.newServiceStubs(
        WorkflowServiceStubsOptions.newBuilder().setChannel(temporal.getChannel()).build());
    try (MockCluster cluster = MockCluster.start()) {
      WorkerConfig config = WorkerConfig.from(Map.of("HTTP_PORT", "0", "METRICS_REPORT_INTERVAL", "100ms",
          "SHUTDOWN_TIMEOUT", "1s", "AUTH_TOKEN", "t"), new String[0]);
      WorkerApp worker = WorkerApp.start(config, cluster.client(), service);
      try {
        // A rejected request, so that the failover counters are in the scrape too.
        GroupRef orders = new GroupRef(MockCluster.NAMESPACE, "orders");
        cluster.createGroup(orders.name(), List.of(MockCluster.site("orders", "iad", "10.0.1.10"),
            MockCluster.site("orders", "pdx", "10.0.2.10")),
            Map.of(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION, "nowhere"));
        PlannedFailoverWorkflow workflow = WorkflowClient.newInstance(service).newWorkflowStub(
            PlannedFailoverWorkflow.class, WorkflowOptions.newBuilder().setWorkflowId(orders.workflowId())
                .setTaskQueue(config.taskQueue()).setWorkflowExecutionTimeout(Duration.ofSeconds(30)).build());
        PlannedFailoverStatus result = workflow.run(new PlannedFailoverWorkflow.Request(orders, "nowhere"));
        assertThat(result.reason()).isEqualTo("UnknownSite");

        String scrape = scrape(URI.create("http://127.0.0.1:" + worker.httpPort() + "/metrics"),
            s -> s.contains("bloodraven_planned_failovers_total{"));

        checkMetrics("worker", scrape);
      } finally {
        worker.close();
      }
    } finally {
      service.shutdownNow();
      temporal.close();
    }
  }

  @Test
  void theWatchersAndASidecarsMetricsPassPromtool() throws Exception {
    TestServer.InProcessTestServer temporal = TestServer.createServer(true);
    WorkflowServiceStubs service = WorkflowServiceStubs.newServiceStubs(
        WorkflowServiceStubsOptions.newBuilder().setChannel(temporal.getChannel()).build());
    try (MockCluster cluster = MockCluster.start()) {
      // Sites whose MySQL answers nobody: the monitor's gauges of every site and of the group are there.
      cluster.createGroup("orders", List.of(MockCluster.site("orders", "iad", "10.0.1.10"),
          MockCluster.site("orders", "pdx", "10.0.2.10")));
      WatcherApp watcher = WatcherApp.start(WatcherConfig.defaults().withHttpHost("127.0.0.1")
          .withActiveSiteToken(SharedToken.of("t")), cluster.client(), WorkflowClient.newInstance(service));
      try {
        URI watcherUrl = URI.create("http://127.0.0.1:" + watcher.httpAddress().getPort());
        String watcherScrape = scrape(watcherUrl.resolve("/metrics"),
            s -> s.contains("bloodraven_group_condition{") && s.contains("bloodraven_site_state{"));
        checkMetrics("watcher", watcherScrape);

        SidecarConfig config = new SidecarConfig("iad", "orders", MockCluster.NAMESPACE, "127.0.0.1",
            FreePorts.next(), "root", "", watcherUrl, List.of(URI.create("http://127.0.0.1:" + FreePorts.next())),
            Duration.ofSeconds(2), Duration.ofMillis(500), "127.0.0.1", FreePorts.next(), SharedToken.of("t"),
            Set.of());
        Sidecar sidecar = Sidecar.start(config);
        try {
          String sidecarScrape = scrape(URI.create("http://127.0.0.1:" + sidecar.port() + "/metrics"),
              s -> s.contains("bloodraven_sidecar_fences_total{"));
          assertThat(sidecarScrape).as("the sidecar names its group and site")
              .contains("group=\"shop/orders\"").contains("site=\"iad\"");
          checkMetrics("sidecar", sidecarScrape);
        } finally {
          sidecar.close();
        }
      } finally {
        watcher.close();
      }
    } finally {
      service.shutdownNow();
      temporal.close();
    }
  }

  /**
   * {@code promtool check metrics} reads the exposition on stdin: it must parse (exit 0, or 3 for
   * lint findings), and our own families must be lint-clean. What it finds in the JVM binders'
   * and the Temporal SDK's families (no HELP, a {@code _count} gauge) is theirs to fix, and stays
   * visible in the report.
   */
  private void checkMetrics(String process, String scrape) throws Exception {
    System.out.println("--- " + process + ": " + scrape.lines().count() + " lines of /metrics");
    Promtool.Run run = Promtool.run(work, scrape, "check", "metrics").report();
    assertThat(run.exit()).as("promtool could not parse the %s's /metrics:%n%s", process, run.output())
        .isIn(0, 3);
    assertThat(run.output().lines().filter(l -> l.startsWith("bloodraven_")))
        .as("promtool's findings on the %s's own metrics", process).isEmpty();
    Metric.Process served = Metric.Process.valueOf(process.toUpperCase(Locale.ROOT));
    List<String> uncatalogued = scrape.lines().filter(l -> l.startsWith("bloodraven_"))
        .map(l -> l.replaceFirst("[{ ].*", "")).distinct()
        .filter(series -> !Metric.bySeriesName(series).map(m -> m.processes().contains(served)).orElse(false))
        .toList();
    assertThat(uncatalogued).as("series the %s serves that runtime's Metric catalogue does not list for it",
        process).isEmpty();
  }

  private static String scrape(URI uri, Predicate<String> ready) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    String body = "";
    while (System.nanoTime() < until) {
      try {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
            HttpResponse.BodyHandlers.ofString());
        body = r.body();
        if (r.statusCode() == 200 && ready.test(body)) {
          return body;
        }
      } catch (java.io.IOException e) {
        body = e.toString();
      }
      Thread.sleep(100);
    }
    throw new AssertionError(uri + " did not show what was awaited within 20 s; last answer:\n" + body);
  }
}
