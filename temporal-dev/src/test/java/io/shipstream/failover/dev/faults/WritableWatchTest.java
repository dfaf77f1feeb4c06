package io.shipstream.failover.dev.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Named.named;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.shipstream.failover.dev.faults.WritableWatch.Answer;
import io.shipstream.failover.dev.faults.WritableWatch.Reading;
import io.shipstream.failover.dev.faults.WritableWatch.Verdict;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** How the split-brain watch judges the answers it collected: every case by hand, no server. */
class WritableWatchTest {

  /**
   * The table: each site's answers, in the order given, and the verdict on them. Issue 30's failed
   * case first, in the watch's terms (target iad, source pdx): pdx answers writable every 50 ms until
   * its fence at about +255 ms, is SIGSTOPped a few milliseconds later, so the probe asked at +302 ms
   * gets nothing for 300 ms; iad, promoted at about +290 ms, answers writable from +293 ms. pdx's
   * last "writable" came back 41 ms before iad's first, which the 100 ms freshness rule counted as
   * both writable at once.
   */
  static Stream<Arguments> answersAndVerdicts() {
    return Stream.of(
        arguments(named("a source frozen right after its fence is not writable beside the target",
            sites(Map.entry("iad", List.of(ro(100, 102), ro(152, 154), ro(204, 206), ro(256, 258), w(290, 293),
                w(343, 345), w(395, 397), w(447, 449))),
                Map.entry("pdx", List.of(w(150, 152), w(200, 202), w(250, 252), none(302, 602), ro(652, 655))))),
            new Verdict(1, null, "pdx last answered writable at +252 ms, iad first at +293 ms", 13)),
        // pdx is writable from its first writable answer's return (+63 ms) to its last one's asking
        // (+160 ms), inside iad's span (+2 ms to +200 ms).
        arguments(named("two servers writable at once are reported with the first instant",
            sites(Map.entry("iad", List.of(w(0, 2), w(50, 52), w(100, 102), w(150, 152), w(200, 202))),
                Map.entry("pdx", List.of(ro(10, 12), w(60, 63), w(110, 113), w(160, 162), ro(210, 212))))),
            new Verdict(2, "iad+pdx at +63 ms", null, 10)),
        arguments(named("the most counts every server writable at the same instant",
            sites(Map.entry("iad", List.of(w(0, 1), w(50, 51), w(100, 101))),
                Map.entry("pdx", List.of(w(10, 11), w(60, 61), w(110, 111))),
                Map.entry("dr", List.of(w(20, 21), w(70, 71), ro(120, 121))))),
            new Verdict(3, "iad+pdx at +11 ms", null, 9)),
        // One answer is one instant: it proves nothing about the time around it.
        arguments(named("a single writable answer between others is not a span",
            sites(Map.entry("iad", List.of(w(0, 2), w(50, 52), w(100, 102), w(150, 152))),
                Map.entry("pdx", List.of(ro(10, 12), w(60, 62), ro(110, 112))))),
            new Verdict(1, null, null, 7)),
        // A server that gave no answer (frozen, dead) cannot acknowledge a write: its span ends there.
        arguments(named("no answer ends a span",
            sites(Map.entry("iad", List.of(w(0, 2), w(50, 52), none(100, 400), w(450, 452), w(500, 502))),
                Map.entry("pdx", List.of(ro(0, 2), w(100, 102), w(150, 152), w(300, 302), ro(350, 352))))),
            new Verdict(1, null, "iad last answered writable at +52 ms, pdx first at +102 ms", 10)),
        // One span ending where another starts is a hand-over, not two at once.
        arguments(named("spans that only touch are not an overlap",
            sites(Map.entry("iad", List.of(w(0, 10), w(100, 110), ro(150, 160))),
                Map.entry("pdx", List.of(ro(0, 10), w(90, 100), w(140, 150))))),
            new Verdict(1, null, null, 6)),
        arguments(named("no answers, none writable", sites(Map.entry("iad", List.of()))),
            new Verdict(0, null, null, 0)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("answersAndVerdicts")
  void judgesTheAnswersItCollected(Map<String, List<Answer>> answers, Verdict verdict) {
    assertThat(WritableWatch.judge(answers)).isEqualTo(verdict);
  }

  private static Answer w(double asked, double back) {
    return new Answer(asked, back, Reading.WRITABLE);
  }

  private static Answer ro(double asked, double back) {
    return new Answer(asked, back, Reading.READ_ONLY);
  }

  private static Answer none(double asked, double back) {
    return new Answer(asked, back, Reading.NONE);
  }

  /** Each site's answers, the sites in the order given. */
  @SafeVarargs
  private static Map<String, List<Answer>> sites(Map.Entry<String, List<Answer>>... sites) {
    Map<String, List<Answer>> answers = new LinkedHashMap<>();
    for (Map.Entry<String, List<Answer>> site : sites) {
      answers.put(site.getKey(), site.getValue());
    }
    return answers;
  }
}
