package io.shipstream.failover.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The catalogue's Prometheus names are what Micrometer makes of its meter names: each entry is
 * registered as its kind on a real Prometheus registry and the scrape shows its family, with its
 * help, so a typo in either column fails here rather than in an alert that never fires.
 */
class MetricTest {
  @Test
  void everyEntryIsScrapedUnderItsFamilyWithItsHelp() {
    for (Metric metric : Metric.values()) {
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      Tags tags = Tags.empty();
      for (String tag : metric.tags()) {
        tags = tags.and(tag, "x");
      }
      switch (metric.kind()) {
        case COUNTER -> Counter.builder(metric.meterName()).description(metric.help()).tags(tags)
            .register(registry).increment();
        case GAUGE -> Gauge.builder(metric.meterName(), () -> 1).description(metric.help())
            .baseUnit(metric.baseUnit()).tags(tags).register(registry);
        case TIMER -> Timer.builder(metric.meterName()).description(metric.help()).tags(tags)
            .register(registry).record(Duration.ofMillis(5));
      }
      String series = metric.kind() == Metric.Kind.TIMER ? metric.family() + "_count" : metric.family();
      String scrape = registry.scrape();
      assertThat(scrape).as("%s's scrape", metric)
          .containsPattern("(?m)^" + series + (metric.tags().isEmpty() ? " " : "\\{"))
          .contains(metric.help());
      registry.close();
    }
  }

  @Test
  void meterNamesAndFamiliesAreUnique() {
    Set<String> names = new HashSet<>();
    Set<String> families = new HashSet<>();
    for (Metric metric : Metric.values()) {
      assertThat(names.add(metric.meterName())).as("meter name %s", metric.meterName()).isTrue();
      assertThat(families.add(metric.family())).as("family %s", metric.family()).isTrue();
    }
  }

  @Test
  void aQuerysSeriesNameFindsItsEntry() {
    assertThat(Metric.bySeriesName("bloodraven_failovers_total")).contains(Metric.FAILOVERS);
    assertThat(Metric.bySeriesName("bloodraven_write_window_seconds_bucket")).contains(Metric.WRITE_WINDOW);
    assertThat(Metric.bySeriesName("bloodraven_failovers")).isEmpty();
    assertThat(Arrays.stream(Metric.values()).filter(Metric::fromTemporalSdk)).allMatch(
        m -> m.processes().equals(Set.of(Metric.Process.WORKER)));
  }
}
