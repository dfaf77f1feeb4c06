package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Ages as kubectl prints them for built-in types, and the JSONPath subset the columns use. */
class PrinterTableTest {
  @ParameterizedTest
  @CsvSource({"-5, <invalid>", "-1, 0s", "0, 0s", "119, 119s", "120, 2m", "200, 3m20s", "600, 10m", "10799, 179m",
      "10800, 3h", "11100, 3h5m", "28800, 8h", "172800, 2d", "176400, 2d1h", "691200, 8d", "63072000, 2y",
      "63158400, 2y1d", "252288000, 8y"})
  void agesReadAsKubectlShowsThem(long seconds, String age) {
    assertThat(PrinterTable.age(Duration.ofSeconds(seconds))).isEqualTo(age);
  }

  @Test
  void aColumnPathOutsideTheSubsetIsRefused() {
    assertThat(SimpleJsonPath.parse(".status.conditions[?(@.type==\"Ready\")].status").steps()).hasSize(4);
    assertThat(SimpleJsonPath.parse(".status.sites[0].name").steps()).hasSize(4);
    assertThatThrownBy(() -> SimpleJsonPath.parse(".status.sites[*].name"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[*]");
  }
}
