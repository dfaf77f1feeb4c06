package io.shipstream.failover.watcher.topology;

import static io.shipstream.failover.watcher.topology.Fixtures.NOW;
import static io.shipstream.failover.watcher.topology.Fixtures.ORDERS;
import static io.shipstream.failover.watcher.topology.Fixtures.dead;
import static io.shipstream.failover.watcher.topology.Fixtures.replica;
import static io.shipstream.failover.watcher.topology.Fixtures.writable;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.topology.PauseAnnotation;
import io.shipstream.failover.model.topology.SiteObservation;
import io.shipstream.failover.model.topology.SiteState;
import io.shipstream.failover.model.topology.TopologyMatrix;
import io.shipstream.failover.model.topology.Verdict;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A paused group as the watcher acts on it: what would act is reported once and not done, what
 * only reports goes on reporting, and resuming acts on what still stands.
 */
class PausedReactionsTest {
  private final Fixtures.RecordingEffects effects = new Fixtures.RecordingEffects();
  private final VerdictReactions reactions = new VerdictReactions(effects);
  /** What the monitor keeps about the group while its polls run. */
  private final GroupMemory memory = new GroupMemory();

  /** iad unreachable for three polls, pdx and dr caught up: the matrix promotes pdx. */
  private static TopologyMatrix.Input deadPrimary() {
    SiteObservation iad = new SiteObservation(SiteState.UNREACHABLE, dead("iad"), writable("iad", "0-1-10"));
    return new TopologyMatrix.Input(Fixtures.config("0s", List.of()), Map.of(
        "iad", iad,
        "pdx", new SiteObservation(SiteState.READ_ONLY, replica("pdx", "0-1-10"), replica("pdx", "0-1-10")),
        "dr", new SiteObservation(SiteState.READ_ONLY, replica("dr", "0-1-10"), replica("dr", "0-1-10"))),
        "iad", null, null, false, NOW);
  }

  /** dr, which may never be primary, is writable beside iad. */
  private static TopologyMatrix.Input writableDr() {
    return new TopologyMatrix.Input(Fixtures.config("0s", List.of()), Map.of(
        "iad", new SiteObservation(SiteState.WRITABLE, writable("iad", "0-1-10"), writable("iad", "0-1-10")),
        "pdx", new SiteObservation(SiteState.READ_ONLY, replica("pdx", "0-1-10"), replica("pdx", "0-1-10")),
        "dr", new SiteObservation(SiteState.WRITABLE, writable("dr", "0-1-10"), writable("dr", "0-1-10"))),
        "iad", null, null, false, NOW);
  }

  private Verdict paused(TopologyMatrix.Input in) {
    return reactions.react(memory, ORDERS, in, null, Optional.empty(), true);
  }

  @Test
  void aDeadPrimaryOfAPausedGroupIsReportedOnceAndNotFailedOverUntilItResumes() {
    reactions.pause(memory, ORDERS, PauseAnnotation.read("true"));
    Verdict first = paused(deadPrimary());
    paused(deadPrimary());

    assertThat(first).isInstanceOf(Verdict.Promote.class);
    assertThat(effects.starts()).as("no failover while paused").isEmpty();
    assertThat(effects.events()).containsExactly(
        "Normal AutomationPaused: " + PauseAnnotation.pausedMessage(),
        "Warning ActionHeld: paused: would start an emergency failover from 'iad' to 'pdx' (" + first.reason()
            + "); nothing was done (remove " + PauseAnnotation.ANNOTATION + " to let the watcher act)");

    reactions.pause(memory, ORDERS, Optional.empty());
    reactions.react(memory, ORDERS, deadPrimary(), null, Optional.empty(), false);

    assertThat(effects.starts()).as("resumed: the failover that still stands starts").singleElement()
        .extracting(Verdict.Promote::candidate).isEqualTo("pdx");
    assertThat(effects.events()).filteredOn(e -> e.startsWith("Normal AutomationResumed")).hasSize(1);
    assertThat(effects.events()).filteredOn(e -> e.startsWith("Warning EmergencyFailoverStarted")).hasSize(1);
  }

  @Test
  void aPausedGroupFencesNothing() {
    Verdict v = paused(writableDr());

    assertThat(v).isInstanceOf(Verdict.FenceNonPromotable.class);
    assertThat(effects.fenced).isEmpty();
    assertThat(effects.events()).singleElement().asString().startsWith("Warning ActionHeld: paused: would fence [dr]");

    reactions.react(memory, ORDERS, writableDr(), null, Optional.empty(), false);
    assertThat(effects.fenced).as("resumed").containsExactly("dr");
  }

  @Test
  void whatOnlyReportsGoesOnReportingWhilePaused() {
    TopologyMatrix.Input healthy = new TopologyMatrix.Input(Fixtures.config("0s", List.of()), Map.of(
        "iad", new SiteObservation(SiteState.WRITABLE, writable("iad", "0-1-10"), writable("iad", "0-1-10")),
        "pdx", new SiteObservation(SiteState.READ_ONLY, replica("pdx", "0-1-10"), replica("pdx", "0-1-10")),
        "dr", new SiteObservation(SiteState.READ_ONLY, replica("dr", "0-1-10"), replica("dr", "0-1-10"))),
        "iad", null, null, false, NOW);

    assertThat(paused(healthy)).isInstanceOf(Verdict.Healthy.class);
    assertThat(effects.events()).isEmpty();
    assertThat(effects.fenced).isEmpty();
    assertThat(effects.starts()).isEmpty();
  }

  @Test
  void pausingAndResumingAreEachOneEventAndABadValueIsRefusedOnce() {
    reactions.pause(memory, ORDERS, Optional.empty());
    reactions.pause(memory, ORDERS, PauseAnnotation.read("false"));
    assertThat(effects.events()).as("a group never paused says nothing").isEmpty();

    reactions.pause(memory, ORDERS, PauseAnnotation.read("yes"));
    reactions.pause(memory, ORDERS, PauseAnnotation.read("yes"));
    assertThat(effects.events()).singleElement().asString().startsWith("Warning PauseRejected: the "
        + PauseAnnotation.ANNOTATION + " annotation is 'yes'").contains("the group is not paused");

    reactions.pause(memory, ORDERS, PauseAnnotation.read("true"));
    reactions.pause(memory, ORDERS, PauseAnnotation.read("true"));
    reactions.pause(memory, ORDERS, Optional.empty());
    assertThat(effects.events()).extracting(e -> e.substring(0, e.indexOf(':')))
        .containsExactly("Warning PauseRejected", "Normal AutomationPaused", "Normal AutomationResumed");
  }
}
