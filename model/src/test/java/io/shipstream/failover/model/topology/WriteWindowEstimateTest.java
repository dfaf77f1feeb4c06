package io.shipstream.failover.model.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** One round trip to the source, two to the target, plus the target's lag. */
class WriteWindowEstimateTest {

  @ParameterizedTest(name = "source {0} ms, target {1} ms, lag {2} s: {3} ms")
  @CsvSource(nullValues = "null", value = {
      "1,   1,   0,    3",
      "1,   1,   null, 3",
      "1,   1,   -1,   3",
      "40,  2,   0,    44",
      "2,   40,  0,    82",
      "10,  20,  3,    3050"})
  void estimates(long sourceMillis, long targetMillis, Long lagSeconds, long expectedMillis) {
    assertThat(WriteWindowEstimate.estimate(Duration.ofMillis(sourceMillis), Duration.ofMillis(targetMillis),
        lagSeconds)).isEqualTo(Duration.ofMillis(expectedMillis));
  }
}
