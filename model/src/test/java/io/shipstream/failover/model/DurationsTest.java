package io.shipstream.failover.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {

  @ParameterizedTest(name = "{0} = {1}ms")
  @CsvSource({
      "500ms, 500",
      "2s, 2000",
      "5m, 300000",
      "1h30m, 5400000",
      "1h0m0s, 3600000",
      "1.5s, 1500",
      "0.1s, 100",
      "' 30s ', 30000",
      "0s, 0",
      "90m, 5400000",
      "1m1m, 120000",
  })
  void parsesKubernetesStyleDurations(String text, long millis) {
    assertThat(Durations.parse(text)).isEqualTo(Duration.ofMillis(millis));
  }

  @Test
  void keepsSubMillisecondPrecision() {
    assertThat(Durations.parse("0.25ms")).isEqualTo(Duration.ofNanos(250_000));
  }

  @ParameterizedTest
  @ValueSource(strings = {"30", "abc", "-5s", "5 s", "1h 30m", "5S", "1d", "s", "1.s", "30sec", "1h30"})
  void refusesAnythingElseSayingWhatIsExpected(String text) {
    assertThatThrownBy(() -> Durations.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("invalid duration '" + text + "': expected e.g. 500ms, 30s, 5m, 1h30m");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "  "})
  void refusesEmpty(String text) {
    assertThatThrownBy(() -> Durations.parse(text)).hasMessage("empty duration");
    assertThatThrownBy(() -> Durations.parse(null)).hasMessage("empty duration");
  }

  @ParameterizedTest
  @ValueSource(strings = {"99999999999h", "2562047h47m16.854775808s", "2562047h2562047h"})
  void refusesDurationsTooLargeToRepresent(String text) {
    assertThatThrownBy(() -> Durations.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("duration '" + text + "' is too large");
  }

  @ParameterizedTest(name = "{0}ms -> {1}")
  @CsvSource({
      "0, 0s",
      "500, 500ms",
      "1500, 1s500ms",
      "90000, 1m30s",
      "5400000, 1h30m",
      "172800000, 48h",
      "3600001, 1h1ms",
  })
  void formatsTheWayAUserWritesIt(long millis, String text) {
    assertThat(Durations.format(Duration.ofMillis(millis))).isEqualTo(text);
    assertThat(Durations.parse(text)).isEqualTo(Duration.ofMillis(millis));
  }

  @Test
  void formatNeverPrintsNothing() {
    assertThat(Durations.format(Duration.ofNanos(250_000))).isEqualTo("0.25ms");
    assertThat(Durations.format(Duration.ofNanos(1_500_001))).isEqualTo("1.500001ms");
    assertThat(Durations.format(Duration.ofSeconds(-90))).isEqualTo("-1m30s");
  }

  @Test
  void formatThenParseGivesBackTheSameDuration() {
    for (long nanos : new long[] {1, 999_999, 1_000_000, 61_000_000_123L, Long.MAX_VALUE}) {
      Duration d = Duration.ofNanos(nanos);
      assertThat(Durations.parse(Durations.format(d))).as(Durations.format(d)).isEqualTo(d);
    }
  }
}
