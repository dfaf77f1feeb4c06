package io.shipstream.failover.model.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The pause annotation: its grammar, and the table of what a paused group holds back. */
class PauseAnnotationTest {

  @Test
  void absentIsNotPaused() {
    assertThat(PauseAnnotation.read(null)).isEmpty();
    assertThat(PauseAnnotation.pauses(PauseAnnotation.read(null))).isFalse();
  }

  @ParameterizedTest(name = "''{0}'' pauses: {1}")
  @CsvSource(delimiter = '|', value = {
      "true    | true",
      "' true '| true",
      "false   | false",
  })
  void trueAndFalse(String value, boolean paused) {
    Optional<PauseAnnotation> a = PauseAnnotation.read(value);

    assertThat(a).get().extracting(PauseAnnotation::valid).isEqualTo(true);
    assertThat(PauseAnnotation.pauses(a)).isEqualTo(paused);
  }

  @ParameterizedTest(name = "''{0}'' is refused and does not pause")
  @CsvSource(delimiter = '|', value = {"''", "yes", "TRUE", "1", "true, kernel upgrade", "no"})
  void anythingElseIsRefusedAndChangesNothing(String value) {
    Optional<PauseAnnotation> a = PauseAnnotation.read(value);

    assertThat(a).get().extracting(PauseAnnotation::valid).isEqualTo(false);
    assertThat(PauseAnnotation.pauses(a)).as("a typo pauses nothing").isFalse();
    assertThat(a.get().problem()).contains("'" + value + "'").contains(PauseAnnotation.ANNOTATION + "=true")
        .contains("not paused");
  }

  @Test
  void theTableOfWhatIsHeld() {
    assertThat(PauseAnnotation.held(new Verdict.Promote("iad", "pdx", "0-1-100", "replicas confirmed: x")))
        .hasValueSatisfying(s -> assertThat(s).startsWith("start an emergency failover from 'iad' to 'pdx'")
            .contains("replicas confirmed: x"));
    assertThat(PauseAnnotation.held(new Verdict.FenceNonPromotable(List.of("dr"), "dr is writable")))
        .hasValueSatisfying(s -> assertThat(s).startsWith("fence [dr]"));
    assertThat(PauseAnnotation.held(new Verdict.SplitBrain(List.of("iad", "pdx"), "iad", List.of("pdx"), "two")))
        .hasValueSatisfying(s -> assertThat(s).startsWith("fence [pdx] and keep 'iad'"));

    // Verdicts that only report are not held: they report as usual.
    assertThat(PauseAnnotation.held(new Verdict.SplitBrain(List.of("iad", "pdx"), null, List.of(), "two"))).isEmpty();
    assertThat(PauseAnnotation.held(new Verdict.Healthy("iad"))).isEmpty();
    assertThat(PauseAnnotation.held(new Verdict.Degraded("iad", "dr lags"))).isEmpty();
    assertThat(PauseAnnotation.held(new Verdict.NoPrimary("none"))).isEmpty();
    assertThat(PauseAnnotation.held(new Verdict.TotalLoss("all gone"))).isEmpty();
    assertThat(PauseAnnotation.held(new Verdict.Blocked(Verdict.Cause.CooldownActive, "iad", "cooldown", null)))
        .isEmpty();
  }
}
