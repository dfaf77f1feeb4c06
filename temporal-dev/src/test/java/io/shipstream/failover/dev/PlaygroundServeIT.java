package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.testsupport.WriteLoad;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code ./temporal-dev/playground serve} keeps up, without flags: the stack, a writer going
 * through the primary Service's labels, and the topology monitor, whose status.sites shows it
 * polls; stopping it prints what the writer saw.
 */
class PlaygroundServeIT {
  @TempDir
  Path work;

  /**
   * And a new user's first look: within 5 s of the endpoints being printed the group says
   * Ready=True, SearchAttributesRegistered=True (the dev Temporal server lists what it registered;
   * it said Unknown/CannotList) and nothing Degraded about how its servers start (they start
   * read-only, as docs/concepts/sidecar-fencing.md asks; they started writable and it said ServerStartsWritable).
   */
  @Test
  void serveRunsAWriterAndTheTopologyMonitorAndReportsTheWriterWhenStopped() throws Exception {
    AtomicLong endpointsPrinted = new AtomicLong();
    ByteArrayOutputStream printed = new ByteArrayOutputStream() {
      @Override
      public synchronized void write(byte[] b, int off, int len) {
        super.write(b, off, len);
        if (endpointsPrinted.get() == 0 && toString(StandardCharsets.UTF_8).contains("mock Kubernetes API")) {
          endpointsPrinted.set(System.nanoTime());
        }
      }
    };
    PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
    try (ServedStack served = ServedStack.start(work.resolve("serve"), ServedStack.Options.parse(List.of()), out)) {
      assertThat(endpointsPrinted.get()).as("the endpoints were printed").isPositive();
      GroupApi api = served.stack().api();
      long deadline = endpointsPrinted.get() + Duration.ofSeconds(5).toNanos();
      Map<String, String> wanted = Map.of("Ready", "True/PrimaryWritable", "Degraded", "False",
          "SearchAttributesRegistered", "True/Registered");
      Map<String, String> seen = conditions(api, wanted.keySet());
      while (!seen.equals(wanted) && System.nanoTime() < deadline) {
        Playground.sleep(50);
        seen = conditions(api, wanted.keySet());
      }
      long after = (System.nanoTime() - endpointsPrinted.get()) / 1_000_000;
      System.out.printf("serve: %s %d ms after the endpoints%n", seen, after);
      assertThat(seen).as("within 5 s of the endpoints (%d ms): %s", after, api.resource().getStatus().conditions())
          .isEqualTo(wanted);
      assertThat(api.condition("Degraded").orElseThrow().getMessage()).doesNotContain("start writable");
      assertThat(api.eventReasons()).doesNotContain("ServerStartsWritable");
      WriteLoad writer = served.writer().orElseThrow();
      writer.awaitAcknowledged(50, Duration.ofSeconds(30));
      assertThat(served.stack().api().routedSite()).contains("iad");
      // TLS on by default: every server refuses plaintext, the group asks verify-identity of all,
      // and the writer's and the monitor's sessions went through it.
      for (var server : served.stack().servers().values()) {
        assertThat(server.queryString("SELECT @@global.require_secure_transport")).as(server.name()).isIn("1", "ON");
      }
      assertThat(served.stack().api().resource().getSpec().tls().sessions().mode()).isEqualTo("verify-identity");
      assertThat(api.eventReasons()).doesNotContain("TlsError");

      long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      MysqlFailoverGroupStatus status = served.stack().api().resource().getStatus();
      while ((status == null || status.sites() == null) && System.nanoTime() < until) {
        Playground.sleep(50);
        status = served.stack().api().resource().getStatus();
      }
      assertThat(status.sites()).as("the monitor has polled every site")
          .extracting(MysqlFailoverGroupStatus.SiteStatus::name).containsExactly("iad", "pdx", "dr");
    }

    assertThat(printed.toString(StandardCharsets.UTF_8))
        .containsPattern("writer: \\d+ rows acknowledged through mysql-orders-primary, \\d+ failed attempts");
  }

  /**
   * Status/reason of each condition of {@code types} the group has now; just the status when False.
   */
  private static Map<String, String> conditions(GroupApi api, java.util.Set<String> types) {
    Map<String, String> seen = new java.util.HashMap<>();
    for (String type : types) {
      api.condition(type).ifPresent(c -> seen.put(type, "False".equals(c.getStatus()) ? "False"
          : c.getStatus() + "/" + c.getReason()));
    }
    return seen;
  }

  /**
   * {@code serve --prometheus}: a real prometheus (Debian's) scrapes the worker process, the
   * watcher and the three sidecars with the chart's rules loaded, and its URL is printed. Without
   * the writer, to keep it short.
   */
  @Test
  void servePrometheusScrapesTheWorkerTheWatcherAndTheSidecars() throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
    long started = System.nanoTime();
    try (ServedStack served = ServedStack.start(work.resolve("serve"),
        ServedStack.Options.parse(List.of("--prometheus", "--no-writer")), out)) {
      PrometheusServer prometheus = served.monitoring().orElseThrow().prometheus();
      assertThat(printed.toString(StandardCharsets.UTF_8)).contains("prometheus " + prometheus.url());
      String worker = "up{job=\"" + StackMonitoring.WORKER_JOB + "\"}";
      String watcher = "up{job=\"" + StackMonitoring.WATCHER_JOB + "\"}";
      String sidecars = "up{job=\"" + StackMonitoring.SIDECAR_JOB + "\"}";
      long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!(prometheus.sum(worker) == 1 && prometheus.sum(watcher) == 1 && prometheus.sum(sidecars) == 3)
          && System.nanoTime() < until) {
        Playground.sleep(200);
      }
      assertThat(prometheus.sum(worker)).as(worker).isEqualTo(1);
      assertThat(prometheus.sum(watcher)).as(watcher).isEqualTo(1);
      assertThat(prometheus.sum(sidecars)).as(sidecars).isEqualTo(3);
      assertThat(prometheus.alertNames()).as("the chart's alert rules are loaded")
          .containsExactlyInAnyOrderElementsOf(AlertRulesTest.alertNames());
      assertThat(prometheus.sum("count(bloodraven_group_condition)")).as("the watcher's series are stored")
          .isPositive();
      System.out.printf("serve --prometheus: every target up %d ms after the start%n",
          (System.nanoTime() - started) / 1_000_000);
    }
  }
}
