package io.shipstream.failover.model.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The rows of {@link LagAgainstWait}'s table. */
class LagAgainstWaitTest {

  @ParameterizedTest(name = "{0} vs {1}, {2} s behind, maxLagWait {3} s: {4} transactions, warning ''{5}''")
  @CsvSource(nullValues = "null", value = {
      "0-1-100, 0-1-100, 0,    300, 0,    null",
      "0-1-100, 0-1-95,  0,    300, 5,    null",
      "0-1-100, 0-1-95,  null, 300, 5,    null",
      "0-1-100, 0-1-95,  1,    300, 5,    the lag gate would hold writes for about 1 s",
      "0-1-100, 0-1-40,  299,  300, 60,   the lag gate would hold writes for about 299 s",
      "0-1-100, 0-1-40,  300,  300, 60,   the lag gate would likely time out (LagTimeout)",
      "0-1-100, 0-1-40,  900,  300, 60,   the lag gate would likely time out (LagTimeout)",
      "0-1-100, null,    2,    300, null, the lag gate would hold writes for about 2 s",
      "garbage, 0-1-1,   0,    300, null, null",
      "3E11FA47-71CA-11E1-9E33-C80AA9429562:1-10, 3E11FA47-71CA-11E1-9E33-C80AA9429562:1-7, 0, 300, 3, null"})
  void judges(String source, String target, Long seconds, long maxLagWait, Long transactions, String warning) {
    LagAgainstWait lag = LagAgainstWait.judge(source, target, seconds, Duration.ofSeconds(maxLagWait));

    assertThat(lag.transactions()).isEqualTo(transactions);
    assertThat(lag.seconds()).isEqualTo(seconds);
    if (warning == null) {
      assertThat(lag.warning()).isEqualTo(Optional.empty());
    } else {
      assertThat(lag.warning()).get().asString().contains(warning).contains("maxLagWait " + maxLagWait + " s");
    }
  }
}
