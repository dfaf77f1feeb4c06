package io.shipstream.failover.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WriteLoadTest {

  /** The retries fall 10, 20, 40, 80 and then every 100 ms apart: their sums are the ladder a write gap ends on. */
  @Test
  void theRetryLadderIsTheSumOfTheBackoffs() {
    assertThat(WriteLoad.retryLadder()).isEqualTo("10, 30, 70, 150, 250, 350, 450, … ms");
  }
}
