package io.shipstream.failover.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * How MySQL's replication_connection_status times become a silence, or none (see {@link
 * MySqlDialect#silence}), and the last error's age ({@link MySqlDialect#age}).
 */
class SourceViewSilenceTest {
  @Test
  void theNewerOfTheLastHeartbeatAndTheLastQueuedTransactionCountsByTheServersClock() {
    assertThat(MySqlDialect.silence("uuid:7", "100.250000", "101.000000", "103.500000"))
        .isEqualTo(Duration.ofMillis(2500));
    assertThat(MySqlDialect.silence("", "100.250000", "0.000000", "100.750000")).as("heartbeats only")
        .isEqualTo(Duration.ofMillis(500));
  }

  @Test
  void aQueuedTransactionWithoutItsTimestampLeavesTheSilenceUnknown() {
    // The performance schema off: the transaction is named, its timestamps are zero, and a busy
    // source sends no heartbeats, so the old heartbeat would look like silence.
    assertThat(MySqlDialect.silence("uuid:24", "95.000000", "0.000000", "103.000000")).isNull();
  }

  @Test
  void nothingReceivedYetOrNothingReadIsUnknown() {
    assertThat(MySqlDialect.silence("", "0.000000", "0.000000", "103.000000")).isNull();
    assertThat(MySqlDialect.silence("", null, "0", "103")).isNull();
  }

  @Test
  void theLastErrorIsDatedByTheServersClockAndNoErrorHasNoAge() {
    assertThat(MySqlDialect.age("101.200000", "103.000000")).isEqualTo(Duration.ofMillis(1800));
    assertThat(MySqlDialect.age("0.000000", "103.000000")).as("no error yet: a zero timestamp").isNull();
    assertThat(MySqlDialect.age(null, "103.000000")).isNull();
  }
}
