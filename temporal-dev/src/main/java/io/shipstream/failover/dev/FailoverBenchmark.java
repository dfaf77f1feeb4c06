package io.shipstream.failover.dev;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.shipstream.failover.testsupport.Flavor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The whole benchmark in one command: N planned failovers through Temporal and N through the
 * same runbook called directly (the orchestration overhead as a ratio), N primary kills with the
 * default monitor knobs, and the scale run (G groups at once on one control plane, against one
 * group alone). Prints Markdown on stdout and writes every run's numbers as JSON. Numbers are
 * printed, never asserted.
 *
 * <pre>./temporal-dev/benchmark all [--n N] [--groups G] [--skip planned,emergency,scale] [--json FILE]
 *     [--remote-rtt MS[,MS...]] [--flavor mysql,mariadb]</pre>
 *
 * {@code --flavor} picks the servers the planned and emergency parts run on, one after the other
 * (default: MariaDB and, where it can run, MySQL 9.7); the scale run is MariaDB's.
 *
 * {@code --remote-rtt} runs the planned part once per round trip given (0: loopback, the default),
 * with pdx behind a link that slow, as when the sites are regions apart.
 */
public final class FailoverBenchmark {
  private FailoverBenchmark() {}

  public static void main(String[] args) throws IOException {
    int n = 10;
    int groups = 20;
    List<String> skip = List.of();
    List<Long> remoteRtts = List.of(0L);
    String flavorArg = null;
    Path json = Path.of("temporal-dev/target/benchmark-results.json");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--n" -> n = Integer.parseInt(args[++i]);
        case "--groups" -> groups = Integer.parseInt(args[++i]);
        case "--skip" -> skip = List.of(args[++i].split(","));
        case "--json" -> json = Path.of(args[++i]);
        case "--remote-rtt" -> remoteRtts = java.util.Arrays.stream(args[++i].split(",")).map(Long::parseLong).toList();
        case "--flavor" -> flavorArg = args[++i];
        default -> throw new IllegalArgumentException("unknown argument " + args[i]
            + "; use --n N, --groups G, --skip planned,emergency,scale, --json FILE, --remote-rtt MS[,MS...],"
            + " --flavor mysql,mariadb");
      }
    }
    List<Flavor> flavors = BenchmarkTable.flavors(flavorArg);
    Path work = Path.of(System.getProperty("benchmark.work", "temporal-dev/target/benchmark"));
    Map<String, Object> results = new LinkedHashMap<>();
    List<String> tables = new ArrayList<>();
    for (Flavor flavor : flavors) {
      // Keys as before for MariaDB; MySQL's carry its name.
      String suffix = flavor == Flavor.MARIADB ? "" : "-" + flavor.name().toLowerCase(java.util.Locale.ROOT);
      if (!skip.contains("planned")) {
        for (long rtt : remoteRtts) {
          PlannedFailoverBenchmark.Result planned =
              PlannedFailoverBenchmark.measure(work, n, java.time.Duration.ofMillis(rtt), flavor);
          results.put((rtt == 0 ? "planned" : "planned-remote-rtt-" + rtt + "ms") + suffix, planned);
          tables.add(PlannedFailoverBenchmark.table(planned));
        }
      }
      if (!skip.contains("emergency")) {
        List<EmergencyFailoverBenchmark.Run> emergency = EmergencyFailoverBenchmark.measure(work, n, "2s", flavor);
        results.put("emergency" + suffix, emergency);
        tables.add(EmergencyFailoverBenchmark.table(emergency, "2s (default)", flavor));
      }
    }
    if (!skip.contains("scale")) {
      ScaleBenchmark.Result scale = ScaleBenchmark.measure(work.resolve("scale"), groups);
      results.put("scale", scale);
      tables.add(scaleTable(scale));
    }
    System.out.println();
    tables.forEach(System.out::println);
    Files.createDirectories(json.toAbsolutePath().getParent());
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), results);
    System.out.println("every run as JSON: " + json.toAbsolutePath());
  }

  static String scaleTable(ScaleBenchmark.Result r) {
    double single = BenchmarkTable.median(r.singleMs().stream().sorted().toList());
    double singleCpu = BenchmarkTable.median(r.single().stream().map(ScaleBenchmark.Round::jvmCpuMs).sorted().toList());
    StringBuilder t = new StringBuilder(String.format("scale: %d groups (each its own pair of mariadbd) failing over"
        + " at once on one Temporal server, one worker, one watcher; one group alone on the same stack: median %.0f ms"
        + " of %d, using %.0f ms of this JVM's CPU; in a steady state with nothing failing over, the watcher's"
        + " topology monitor used %.0f ms of CPU per group per minute%n", r.groups(), single, r.singleMs().size(),
        singleCpu, r.watcherCpuMsPerGroupMinute()));
    t.append("| round | all Succeeded after (ms) | slowest group (ms) | median group (ms) | total / single group |"
        + " JVM CPU (ms) | machine CPU, all processes (ms) | floor: machine CPU / cores (ms) |"
        + " API requests per group | load average |\n")
        .append("|---|---|---|---|---|---|---|---|---|---|\n");
    int i = 1;
    for (ScaleBenchmark.Round round : r.rounds()) {
      t.append(String.format("| %d | %.0f | %.0f (%s) | %.0f | %.2f | %.0f | %.0f | %.0f | %.0f | %.1f |%n", i++,
          round.totalMs(), round.slowestMs(), round.slowestGroup(),
          BenchmarkTable.median(round.groupMs().stream().sorted().toList()), round.totalMs() / single,
          round.jvmCpuMs(), round.machineBusyMs(), round.machineBusyMs() / Runtime.getRuntime().availableProcessors(),
          round.apiRequests() / (double) round.groups(), round.loadAverage()));
    }
    return t.append('\n').append(r.profile()).toString();
  }
}
