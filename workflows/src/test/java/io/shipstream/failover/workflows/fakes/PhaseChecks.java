package io.shipstream.failover.workflows.fakes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

/**
 * What the status can be relied on to show of a run's phases. The publisher coalesces its writes
 * (a phase superseded while the previous write was in flight is never written), and a workflow
 * task that is run again writes its last phases again. So the status shows the first phase and
 * the last, every phase the run stayed in, and nothing out of the runbook's order.
 */
public final class PhaseChecks {
  private PhaseChecks() {}

  /**
   * {@code shown} (in the order written) starts with the runbook's first phase, ends with its
   * last, follows its order (a phase written again later counts where it first appeared), and
   * includes every phase of {@code held}. {@code runbook} lists the phases the run went through,
   * a phase that was entered twice listed twice.
   */
  public static void assertShown(List<String> shown, List<String> runbook, String... held) {
    assertThat(shown).as("phases written").isNotEmpty();
    assertThat(shown.get(0)).as("first phase written").isEqualTo(runbook.get(0));
    assertThat(shown.get(shown.size() - 1)).as("last phase written").isEqualTo(runbook.get(runbook.size() - 1));
    assertThat(runbook).as("the runbook's order, of the phases written %s", shown)
        .containsSubsequence(firstAppearances(shown, runbook));
    if (held.length > 0) {
      assertThat(shown).as("the phases the run stayed in").contains(held);
    }
  }

  /** The written phases with a tail written again dropped: each write matched to the runbook in order. */
  private static List<String> firstAppearances(List<String> shown, List<String> runbook) {
    List<String> out = new ArrayList<>();
    int at = 0;
    for (String phase : shown) {
      int next = runbook.subList(at, runbook.size()).indexOf(phase);
      if (next >= 0) {
        out.add(phase);
        at += next + 1;
      } else if (!out.contains(phase)) {
        out.add(phase); // not in the runbook at all: containsSubsequence reports it
      }
    }
    return out;
  }
}
