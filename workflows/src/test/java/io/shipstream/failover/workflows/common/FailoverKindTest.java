package io.shipstream.failover.workflows.common;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.Reason;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The table in {@link Reason}'s Javadoc is how a failed run is counted: every reason has a row, and
 * {@link FailoverKind#result} gives each runbook's label as the row says. Read from the model's
 * source, so the documentation cannot drift from the code.
 */
class FailoverKindTest {
  private static final Path REASON = Path.of("..", "model", "src", "main", "java", "io", "shipstream", "failover",
      "model", "Reason.java");
  private static final Pattern ROW = Pattern.compile("^ \\* \\| (\\w+)\\s*\\| (\\w+)\\s*\\| (\\w+)\\s*\\|$");

  @Test
  void everyReasonIsCountedAsTheTableInReasonSays() throws IOException {
    Map<String, String[]> rows = new LinkedHashMap<>();
    for (String line : Files.readAllLines(REASON)) {
      Matcher m = ROW.matcher(line);
      if (m.matches() && !m.group(1).equals("reason")) {
        rows.put(m.group(1), new String[] {m.group(2), m.group(3)});
      }
    }
    assertThat(rows.keySet()).as("one row per reason").containsExactlyInAnyOrder(
        java.util.Arrays.stream(Reason.values()).map(Reason::name).toArray(String[]::new));
    for (Reason reason : Reason.values()) {
      assertThat(FailoverKind.PLANNED.result(reason)).as("planned " + reason).isEqualTo(rows.get(reason.name())[0]);
      assertThat(FailoverKind.EMERGENCY.result(reason)).as("emergency " + reason).isEqualTo(rows.get(reason.name())[1]);
    }
  }

  @Test
  void aPlannedRequestRefusedForItsScheduleOrAFencedTargetIsRejectedNotAFailureThatPages() {
    // Both are refused before anything is fenced: BloodravenPlannedFailoverFailed must not fire.
    assertThat(FailoverKind.PLANNED.result(Reason.InvalidSchedule)).isEqualTo("rejected");
    assertThat(FailoverKind.PLANNED.result(Reason.TargetFenced)).isEqualTo("rejected");
  }

  @Test
  void aTargetThatMayNeverBePrimaryIsRejectedByBothRunbooksAndPagesNobody() {
    assertThat(FailoverKind.PLANNED.result(Reason.TargetNotCandidate)).isEqualTo("rejected");
    assertThat(FailoverKind.EMERGENCY.result(Reason.TargetNotCandidate)).isEqualTo("rejected");
  }

  @Test
  void anEmergencyFailoverWhosePrimaryAnsweredIsRejectedNotAFailureThatPages() {
    assertThat(FailoverKind.EMERGENCY.result(Reason.PrimaryAnswered)).isEqualTo("rejected");
  }
}
