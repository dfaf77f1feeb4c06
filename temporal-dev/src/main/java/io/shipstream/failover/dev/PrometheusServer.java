package io.shipstream.failover.dev;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shipstream.failover.testsupport.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A real {@code prometheus} server from Debian's package, on a free loopback port, with its own
 * configuration and data directory under {@code dir}: it scrapes the given jobs every second and
 * evaluates the chart's rules file, so every query runs against what it really stored. Its log
 * goes to {@code dir/prometheus.log}. {@code ./temporal-dev/playground serve --prometheus} and
 * OnCallIT run it through {@link StackMonitoring}; the promtool checks find their binary here too.
 */
final class PrometheusServer implements AutoCloseable {
  /** The chart's alert rules, from the repository root (the playground) or a module directory (tests). */
  static final Path CHART_RULES_IN_REPOSITORY =
      Path.of("helm", "failover", "monitoring", "bloodraven-alerts.rules.yml");

  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process process;
  private final URI base;

  private PrometheusServer(Process process, URI base) {
    this.process = process;
    this.base = base;
  }

  /** The answer to one instant query: its status, error and the series of the vector. */
  record Answer(String query, String status, String error, List<JsonNode> series) {
    boolean ok() {
      return "success".equals(status);
    }
  }

  /**
   * Starts scraping {@code jobs} (job name to host:port targets), with {@code rules} copied next to
   * the configuration; returns once the server is ready.
   */
  static PrometheusServer start(Path dir, Map<String, List<String>> jobs, Path rules) throws Exception {
    Files.createDirectories(dir);
    Files.copy(rules, dir.resolve("rules.yml"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    String scrapes = jobs.entrySet().stream().map(j -> "  - job_name: " + j.getKey() + "\n"
        + "    static_configs:\n      - targets: [" + j.getValue().stream().map(t -> "'" + t + "'")
            .collect(Collectors.joining(", "))
        + "]\n").collect(Collectors.joining());
    Files.writeString(dir.resolve("prometheus.yml"), """
        global:
          scrape_interval: 1s
          scrape_timeout: 900ms
          evaluation_interval: 1s
        rule_files: [rules.yml]
        scrape_configs:
        """ + scrapes);
    int port = FreePorts.next();
    Process process = new ProcessBuilder(binary("prometheus").toString(),
        "--config.file=" + dir.resolve("prometheus.yml"), "--storage.tsdb.path=" + dir.resolve("data"),
        "--web.listen-address=127.0.0.1:" + port, "--log.level=warn")
        .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
    PrometheusServer server = new PrometheusServer(process, URI.create("http://127.0.0.1:" + port));
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!server.ready()) {
      if (!process.isAlive() || System.nanoTime() > until) {
        server.close();
        throw new IllegalStateException(
            "prometheus did not get ready: " + Files.readString(dir.resolve("prometheus.log")));
      }
      Thread.sleep(100);
    }
    return server;
  }

  /**
   * The path of a binary of Debian's {@code prometheus} package ({@code prometheus}, {@code
   * promtool}): on PATH or in /usr/bin; otherwise an IllegalStateException saying how to install it.
   */
  static Path binary(String name) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      Path candidate = Path.of(dir, name);
      if (!dir.isEmpty() && Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    Path debian = Path.of("/usr/bin", name);
    if (Files.isExecutable(debian)) {
      return debian;
    }
    throw new IllegalStateException(name + " not found on PATH: install Debian's prometheus package with "
        + "scripts/prerequisites (apt-get install --no-install-recommends prometheus)");
  }

  /** The chart's alert rules file, looked up from the working directory: the repository root or a module. */
  static Path chartRules() {
    for (Path base : List.of(Path.of("."), Path.of(".."))) {
      Path rules = base.resolve(CHART_RULES_IN_REPOSITORY);
      if (Files.isRegularFile(rules)) {
        return rules.toAbsolutePath().normalize();
      }
    }
    throw new IllegalStateException(CHART_RULES_IN_REPOSITORY + " not found from " + Path.of("").toAbsolutePath());
  }

  /** Where its web UI and HTTP API answer. */
  URI url() {
    return base;
  }

  private boolean ready() {
    try {
      return HTTP.send(HttpRequest.newBuilder(base.resolve("/-/ready")).timeout(Duration.ofSeconds(2)).build(),
          HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Runs an instant query at the server's now through {@code /api/v1/query}. */
  Answer query(String promql) throws IOException, InterruptedException {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(base.resolve("/api/v1/query"))
        .timeout(Duration.ofSeconds(10))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8)))
        .build(), HttpResponse.BodyHandlers.ofString());
    JsonNode body = JSON.readTree(r.body());
    List<JsonNode> series = new java.util.ArrayList<>();
    JsonNode data = body.path("data");
    if ("vector".equals(data.path("resultType").asText()) || "matrix".equals(data.path("resultType").asText())) {
      data.path("result").forEach(series::add);
    } else if ("scalar".equals(data.path("resultType").asText())) {
      series.add(data.path("result"));
    }
    return new Answer(promql, body.path("status").asText(), body.path("error").asText(null), series);
  }

  /** The names of the alerting rules the server has loaded, through {@code /api/v1/rules}. */
  List<String> alertNames() throws IOException, InterruptedException {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(base.resolve("/api/v1/rules?type=alert"))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    List<String> names = new java.util.ArrayList<>();
    JSON.readTree(r.body()).path("data").path("groups").forEach(g -> g.path("rules")
        .forEach(rule -> names.add(rule.path("name").asText())));
    return names;
  }

  /** The sum of a query's values (0 for no series): a counter's total over its label sets. */
  double sum(String promql) {
    Answer a;
    try {
      a = query(promql);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    if (!a.ok()) {
      throw new IllegalStateException(promql + ": " + a.error());
    }
    return a.series().stream().mapToDouble(s -> s.path("value").path(1).asDouble()).sum();
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
