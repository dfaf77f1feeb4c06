package io.shipstream.failover.model.crd;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.FailoverHistoryEntry;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** status.failoverHistory: newest first, one entry per run, the last ten kept. */
class FailoverHistoryTest {
  private static FailoverHistoryEntry run(int n, String result) {
    return new FailoverHistoryEntry("mysqlfailovergroup/shop/orders", "run-" + n, n % 2 == 0 ? "planned" : "emergency",
        n % 2 == 0 ? "pdx" : "iad", result, "Succeeded".equals(result) ? null : "LagTimeout",
        "2026-04-20T15:00:%02dZ".formatted(n), 0.25);
  }

  @Test
  void theNewestComesFirst() {
    List<FailoverHistoryEntry> history = FailoverHistoryEntry.prepended(null, run(1, "Succeeded"));
    history = FailoverHistoryEntry.prepended(history, run(2, "Failed"));

    assertThat(history).extracting(FailoverHistoryEntry::runId).containsExactly("run-2", "run-1");
  }

  @Test
  void aRetriedWriteOfTheSameRunReplacesItsEntry() {
    List<FailoverHistoryEntry> history = FailoverHistoryEntry.prepended(List.of(run(1, "Succeeded")), run(2, "Failed"));

    history = FailoverHistoryEntry.prepended(history, run(2, "Failed"));

    assertThat(history).extracting(FailoverHistoryEntry::runId).containsExactly("run-2", "run-1");
  }

  @Test
  void onlyTheLastTenAreKept() {
    List<FailoverHistoryEntry> history = new ArrayList<>();
    for (int n = 1; n <= 12; n++) {
      history = FailoverHistoryEntry.prepended(history, run(n, "Succeeded"));
    }

    assertThat(history).hasSize(MysqlFailoverGroupStatus.FAILOVER_HISTORY_KEPT);
    assertThat(history.get(0).runId()).isEqualTo("run-12");
    assertThat(history.get(9).runId()).isEqualTo("run-3");
  }
}
