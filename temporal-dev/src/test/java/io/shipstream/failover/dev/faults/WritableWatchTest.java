package io.shipstream.failover.dev.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.dev.faults.WritableWatch.Answer;
import io.shipstream.failover.dev.faults.WritableWatch.Reading;
import io.shipstream.failover.dev.faults.WritableWatch.Verdict;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How the split-brain watch judges the answers it collected: every case by hand, no server. */
class WritableWatchTest {

  /**
   * Issue 30's failed case, in the watch's terms (target iad, source pdx): pdx answers writable
   * every 50 ms until its fence at about +255 ms, is SIGSTOPped a few milliseconds later, so the
   * probe asked at +302 ms gets nothing for 300 ms; iad, promoted at about +290 ms, answers
   * writable from +293 ms. pdx's last "writable" came back 41 ms before iad's first, which the
   * 100 ms freshness rule counted as both writable at once.
   */
  @Test
  void aSourceFrozenRightAfterItsFenceIsNotWritableBesideTheTarget() {
    Verdict v = judge(Map.entry("iad", List.of(ro(100, 102), ro(152, 154), ro(204, 206), ro(256, 258), w(290, 293),
        w(343, 345), w(395, 397), w(447, 449))),
        Map.entry("pdx", List.of(w(150, 152), w(200, 202), w(250, 252), none(302, 602), ro(652, 655))));

    assertThat(v.most()).isEqualTo(1);
    assertThat(v.firstOverlap()).isNull();
    assertThat(v.closestHandOver()).isEqualTo("pdx last answered writable at +252 ms, iad first at +293 ms");
    assertThat(v.answers()).isEqualTo(13);
  }

  @Test
  void twoServersWritableAtOnceAreReportedWithTheFirstInstant() {
    Verdict v = judge(Map.entry("iad", List.of(w(0, 2), w(50, 52), w(100, 102), w(150, 152), w(200, 202))),
        Map.entry("pdx", List.of(ro(10, 12), w(60, 63), w(110, 113), w(160, 162), ro(210, 212))));

    // pdx is writable from its first writable answer's return (+63 ms) to its last one's asking
    // (+160 ms), inside iad's span (+2 ms to +200 ms).
    assertThat(v.most()).isEqualTo(2);
    assertThat(v.firstOverlap()).isEqualTo("iad+pdx at +63 ms");
    assertThat(v.closestHandOver()).isNull();
  }

  @Test
  void theMostCountsEveryServerWritableAtTheSameInstant() {
    Verdict v = judge(Map.entry("iad", List.of(w(0, 1), w(50, 51), w(100, 101))),
        Map.entry("pdx", List.of(w(10, 11), w(60, 61), w(110, 111))),
        Map.entry("dr", List.of(w(20, 21), w(70, 71), ro(120, 121))));

    assertThat(v.most()).isEqualTo(3);
  }

  /** One answer is one instant: it proves nothing about the time around it. */
  @Test
  void aSingleWritableAnswerBetweenOthersIsNotASpan() {
    Verdict v = judge(Map.entry("iad", List.of(w(0, 2), w(50, 52), w(100, 102), w(150, 152))),
        Map.entry("pdx", List.of(ro(10, 12), w(60, 62), ro(110, 112))));

    assertThat(v.most()).isEqualTo(1);
  }

  /** A server that gave no answer (frozen, dead) cannot acknowledge a write: its span ends there. */
  @Test
  void noAnswerEndsASpan() {
    Verdict v = judge(Map.entry("iad", List.of(w(0, 2), w(50, 52), none(100, 400), w(450, 452), w(500, 502))),
        Map.entry("pdx", List.of(ro(0, 2), w(100, 102), w(150, 152), w(300, 302), ro(350, 352))));

    assertThat(v.most()).isEqualTo(1);
    assertThat(v.closestHandOver()).isEqualTo("iad last answered writable at +52 ms, pdx first at +102 ms");
  }

  /** One span ending where another starts is a hand-over, not two at once. */
  @Test
  void spansThatOnlyTouchAreNotAnOverlap() {
    Verdict v = judge(Map.entry("iad", List.of(w(0, 10), w(100, 110), ro(150, 160))),
        Map.entry("pdx", List.of(ro(0, 10), w(90, 100), w(140, 150))));

    assertThat(v.most()).isEqualTo(1);
  }

  @Test
  void noAnswersNoneWritable() {
    Map<String, List<Answer>> answers = new LinkedHashMap<>();
    answers.put("iad", new ArrayList<>());
    Verdict v = WritableWatch.judge(answers);
    assertThat(v.most()).isZero();
    assertThat(v.firstOverlap()).isNull();
    assertThat(v.closestHandOver()).isNull();
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

  /** The verdict on each site's answers, the sites in the order given. */
  @SafeVarargs
  private static Verdict judge(Map.Entry<String, List<Answer>>... sites) {
    Map<String, List<Answer>> answers = new LinkedHashMap<>();
    for (Map.Entry<String, List<Answer>> site : sites) {
      answers.put(site.getKey(), site.getValue());
    }
    return WritableWatch.judge(answers);
  }
}
