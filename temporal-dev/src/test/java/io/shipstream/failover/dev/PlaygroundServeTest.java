package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import org.junit.jupiter.api.Test;

/** The last line {@code ./temporal-dev/playground annotate} prints. */
class PlaygroundServeTest {

  @Test
  void aDeferredRequestSaysUntilWhenAndWhyNotNull() {
    PlannedFailoverStatus deferred = status("Deferred", "CooldownActive", "2026-05-01T10:05:00Z", null);

    assertThat(PlaygroundServe.outcome(deferred))
        .isEqualTo("deferred until 2026-05-01T10:05:00Z (CooldownActive); it starts by itself then, or "
            + "./temporal-dev/playground cancel ends it now")
        .doesNotContain("null");
  }

  @Test
  void aScheduledRequestSaysWhen() {
    PlannedFailoverStatus scheduled = new PlannedFailoverStatus("Scheduled", "pdx", null, null, null,
        "2026-05-01T10:00:00Z", null, null, null, null, null, null, null, "2026-05-01T12:00:00Z");
    assertThat(PlaygroundServe.outcome(scheduled)).isEqualTo("scheduled at 2026-05-01T12:00:00Z; it starts by itself "
        + "then, or ./temporal-dev/playground cancel ends it now");
  }

  @Test
  void anEndedRunPrintsItsMessageOrElseItsPhaseAndReason() {
    assertThat(PlaygroundServe.outcome(status("Failed", "LagTimeout", null, "pdx stayed 3 s behind")))
        .isEqualTo("pdx stayed 3 s behind");
    assertThat(PlaygroundServe.outcome(status("Failed", "Cancelled", null, null))).isEqualTo("Failed (Cancelled)");
  }

  private static PlannedFailoverStatus status(String phase, String reason, String retryAfter, String message) {
    return new PlannedFailoverStatus(phase, "pdx", "iad", null, null, "2026-05-01T10:00:00Z", null, null, null, reason,
        retryAfter, message, null);
  }
}
