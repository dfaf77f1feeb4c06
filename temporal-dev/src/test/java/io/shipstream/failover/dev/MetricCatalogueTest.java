package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.runtime.Metric;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * runtime's {@link Metric} catalogue is the whole list: no production source names a
 * {@code bloodraven} meter it lacks (the meters are created lazily in the sidecar, the watcher and
 * the workflows, and the workflows spell their names themselves, since they cannot see the
 * catalogue), and every metric the chart's alert rules and dashboard query is in it, so a renamed
 * meter cannot leave an alert that never fires. AlertRulesTest checks the real {@code /metrics} of
 * each process against it too.
 */
class MetricCatalogueTest {
  private static final Path ROOT = ReferenceDocsTest.ROOT;
  private static final Pattern METER_NAME = Pattern.compile("bloodraven[._][a-z0-9_.]+");
  private static final Pattern SERIES = Pattern.compile("\\b((?:bloodraven|temporal)_[a-z0-9_]+)\\b");
  private static final Path CATALOGUE = Path.of("runtime/src/main/java/io/shipstream/failover/runtime/Metric.java");

  @Test
  void everyMeterNameInTheSourcesIsCatalogued() throws IOException {
    Set<String> unknown = new TreeSet<>();
    List<String> meterNames = Arrays.stream(Metric.values()).map(Metric::meterName).toList();
    int seen = 0;
    for (Path file : ContractLiteralsTest.productionSources()) {
      if (file.endsWith(CATALOGUE)) {
        continue;
      }
      for (String literal : ContractLiteralsTest.stringLiterals(Files.readString(file))) {
        if (METER_NAME.matcher(literal).matches()) {
          seen++;
          if (!meterNames.contains(literal)) {
            unknown.add(literal + " (" + ROOT.relativize(file) + ")");
          }
        }
      }
    }
    assertThat(seen).as("the workflows' meter names are found at all").isGreaterThanOrEqualTo(7);
    assertThat(unknown).as("meters registered by name outside runtime's Metric catalogue: add them there (and"
        + " run %s)", ReferenceDocs.COMMAND).isEmpty();
  }

  @Test
  void everyMetricTheChartQueriesIsCatalogued() throws IOException {
    Set<String> unknown = new TreeSet<>();
    Set<String> used = new TreeSet<>();
    try (Stream<Path> files = Files.walk(ROOT.resolve("helm"))) {
      for (Path file : files.filter(f -> f.toString().matches(".*\\.(ya?ml|json)$"))
          .filter(f -> !f.toString().contains("/crds/")).toList()) {
        SERIES.matcher(read(file)).results().map(m -> m.group(1)).forEach(series -> {
          used.add(series);
          if (Metric.bySeriesName(series).isEmpty()) {
            unknown.add(series + " (" + ROOT.relativize(file) + ")");
          }
        });
      }
    }
    assertThat(used).as("the alert rules and the dashboard are read").contains("bloodraven_group_condition",
        "bloodraven_watcher_is_leader", "temporal_request_failure_total");
    assertThat(unknown).as("series the chart queries that no catalogued metric serves").isEmpty();
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
