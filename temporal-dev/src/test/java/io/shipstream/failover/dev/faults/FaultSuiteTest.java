package io.shipstream.failover.dev.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The suite's command line: which cases a run gets, and what a bad argument says. */
class FaultSuiteTest {
  private static final String CASE = "source-sigstop-lag-wait-through-promotion";

  @Test
  void repeatRunsTheSelectionThatManyTimesInARow() {
    List<FaultPlan> plans = FaultSuite.plans(new String[] {"--cases", CASE + ",baseline", "--repeat", "3"});
    assertThat(plans).extracting(FaultPlan::name)
        .containsExactly(CASE, "baseline", CASE, "baseline", CASE, "baseline");
  }

  @Test
  void aCaseNamedTwiceRunsTwice() {
    assertThat(FaultSuite.plans(new String[] {"--cases", CASE + "," + CASE})).extracting(FaultPlan::name)
        .containsExactly(CASE, CASE);
  }

  @Test
  void badArgumentsSayWhat() {
    assertThatThrownBy(() -> FaultSuite.plans(new String[] {"--cases"})).hasMessage("--cases needs a value");
    assertThatThrownBy(() -> FaultSuite.plans(new String[] {"--repeat", "--cases", CASE}))
        .hasMessage("--repeat needs a value");
    assertThatThrownBy(() -> FaultSuite.plans(new String[] {"--repeat", "0"}))
        .hasMessageContaining("--repeat needs a count of 1 or more");
    assertThatThrownBy(() -> FaultSuite.plans(new String[] {"--cases", "nope"})).hasMessageContaining("no case nope");
    assertThatThrownBy(() -> FaultSuite.plans(new String[] {"--frobnicate"}))
        .hasMessage("unknown argument --frobnicate");
    assertThatThrownBy(() -> FaultSuite.flavor(new String[] {"--flavor", "oracle"}))
        .hasMessageContaining("unknown flavor 'oracle'");
  }

  @Test
  void repeatedCasesAreSummedUp() {
    FaultPlan plan = FaultPlan.catalog().get(CASE);
    List<CaseResult> results = List.of(
        new CaseResult(plan, "yes", "Succeeded", 6.2, 40.0, List.of(new CaseResult.Check("one-writable", true, ""))),
        new CaseResult(plan, "yes", "Succeeded", 5.4, 0.3, List.of(new CaseResult.Check("one-writable", false, ""))),
        new CaseResult(FaultPlan.catalog().get("baseline"), "yes", "Succeeded", 3.0, 0.2, List.of()));
    assertThat(FaultSuite.repeats(results)).isEqualTo(CASE + ": 2 runs, 1 passed, 5.4-6.2 s each\n");
  }
}
