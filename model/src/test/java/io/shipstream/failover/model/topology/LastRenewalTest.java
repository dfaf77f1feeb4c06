package io.shipstream.failover.model.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.topology.LastRenewal.Anchored;
import io.shipstream.failover.model.topology.LastRenewal.Answer;
import io.shipstream.failover.model.topology.LastRenewal.Outcome;
import io.shipstream.failover.model.topology.LastRenewal.Reading;
import io.shipstream.failover.model.topology.LastRenewal.Unknown;
import io.shipstream.failover.model.topology.LastRenewal.View;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every row of {@link LastRenewal}'s table. The story: iad's region went dark at {@link #CUT},
 * pdx was named active 15 s later ({@link #NAMED}), and the renewers are read 5 s after that.
 */
class LastRenewalTest {
  private static final Instant CUT = Instant.parse("2026-12-03T02:00:00Z");
  private static final Instant NAMED = CUT.plusSeconds(15);
  private static final Instant READ = NAMED.plusSeconds(5);
  private static final Duration SKEW = Duration.ofSeconds(1);
  /** The view iad's sidecar last got: iad active, observed just before the cut. */
  private static final View IAD = new View("iad", CUT.minusMillis(700));
  /** The naming as the renewers answer with it now. */
  private static final View PDX = new View("pdx", NAMED.plusMillis(300));

  private static Answer at(Instant when, View view) {
    return new Answer(Duration.between(when, READ), view);
  }

  private static Reading read(String renewer, View now, List<Answer> answers) {
    return new Reading(renewer, null, READ, Duration.ofHours(1), now, answers, true, List.of(), true);
  }

  private static Outcome of(Reading... readings) {
    return LastRenewal.of("iad", "pdx", NAMED, SKEW, List.of(readings));
  }

  @Test
  void aDarkRegionIsAnchoredAtTheLastAnswerAnyRenewerGaveBeforeTheCut() {
    Outcome outcome = of(
        read("watcher 10.0.0.7", PDX, List.of(at(CUT.minusMillis(400), IAD), at(CUT.minusMillis(5_400), IAD))),
        read("the sidecar of pdx", PDX, List.of(at(CUT.minusMillis(2_100), IAD))),
        read("the sidecar of dfw", PDX, List.of(at(CUT.minusMillis(3_000), null))));

    assertThat(outcome).isInstanceOfSatisfying(Anchored.class, a -> {
      assertThat(a.at()).isEqualTo(CUT.minusMillis(400));
      assertThat(a.renewer()).isEqualTo("watcher 10.0.0.7");
      assertThat(a.basis()).contains("an answer to iad that did not fence it", "the latest of 3 renewer(s) read");
    });
  }

  @Test
  void anAnswerWithoutAViewRenewsTheLease() {
    // A peer without a view answers 204: a contact, and nothing in it fences.
    assertThat(of(read("the sidecar of pdx", PDX, List.of(at(CUT.minusMillis(100), null)))))
        .isInstanceOfSatisfying(Anchored.class, a -> assertThat(a.at()).isEqualTo(CUT.minusMillis(100)));
  }

  @Test
  void aRenewerThatCannotBeReadLeavesNoAnchor() {
    assertThat(of(read("the sidecar of pdx", PDX, List.of()), Reading.unread("watcher 10.0.0.8", "connect timed out")))
        .isInstanceOfSatisfying(Unknown.class, u -> assertThat(u.why())
            .isEqualTo("watcher 10.0.0.8 could not be read (connect timed out): it may renew the lease of iad still"));
    assertThat(of()).isInstanceOf(Unknown.class);
  }

  @Test
  void aRenewerWhoseViewDoesNotFenceTheOldPrimaryMayRenewItYet() {
    // Still the old view: a peer that has not polled the watcher since the naming.
    assertThat(of(read("the sidecar of dfw", IAD, List.of(at(CUT.minusSeconds(1), IAD)))))
        .isInstanceOfSatisfying(Unknown.class, u -> assertThat(u.why()).startsWith("the sidecar of dfw answers with "
            + "a view naming iad observed at " + IAD.observedAt() + ", which does not fence iad"));
    // No view at all.
    assertThat(of(read("the sidecar of dfw", null, List.of()))).isInstanceOf(Unknown.class);
    // A view naming the target, but from before the naming (less the skew): older than what iad may hold.
    assertThat(of(read("the sidecar of dfw", new View("pdx", NAMED.minusSeconds(2)), List.of())))
        .isInstanceOf(Unknown.class);
  }

  @Test
  void answersThatFencedTheOldPrimaryAreNotRenewals() {
    // After the naming the peer answered with the new view twice: those fence iad (were it listening).
    Outcome outcome = of(read("the sidecar of pdx", PDX,
        List.of(at(READ.minusSeconds(1), PDX), at(NAMED.plusSeconds(1), PDX), at(CUT.minusSeconds(4), IAD))));
    assertThat(outcome).isInstanceOfSatisfying(Anchored.class, a -> assertThat(a.at()).isEqualTo(CUT.minusSeconds(4)));
  }

  @Test
  void anOldViewNamingTheTargetRenewsTheLease() {
    // pdx was active once before iad: a stale peer handing on that view is not taken over iad's newer one.
    View before = new View("pdx", CUT.minusSeconds(3_600));
    Outcome outcome = of(read("the sidecar of dfw", PDX, List.of(at(NAMED.plusSeconds(2), before))));
    assertThat(outcome).isInstanceOfSatisfying(Anchored.class, a -> assertThat(a.at()).isEqualTo(NAMED.plusSeconds(2)));
  }

  @Test
  void aLogThatLetAnswersGoStandsForThemByItsOldest() {
    Reading r = new Reading("watcher 10.0.0.7", null, READ, Duration.ofHours(1), PDX,
        List.of(at(READ.minusSeconds(1), PDX), at(NAMED.plusSeconds(1), PDX)), false, List.of(), true);
    assertThat(of(r)).isInstanceOfSatisfying(Anchored.class, a -> {
      assertThat(a.at()).isEqualTo(NAMED.plusSeconds(1));
      assertThat(a.basis()).contains("the oldest answer to iad it holds (it let older ones go)");
    });
  }

  @Test
  void aCompleteLogWithNoRenewalStandsForTheProcessBeforeItByItsStart() {
    Reading restarted = new Reading("the sidecar of pdx", null, READ, Duration.ofSeconds(12), PDX,
        List.of(at(READ.minusSeconds(1), PDX)), true, List.of(), true);
    assertThat(of(restarted)).isInstanceOfSatisfying(Anchored.class, a -> {
      assertThat(a.at()).isEqualTo(READ.minusSeconds(12));
      assertThat(a.basis()).contains("its start");
    });
  }

  @Test
  void anAnswerToASidecarThatNamedNoSiteMayHaveBeenTheOldPrimarys() {
    Reading r = new Reading("watcher 10.0.0.7", null, READ, Duration.ofHours(1), PDX,
        List.of(at(CUT.minusSeconds(2), IAD)), true, List.of(at(CUT.plusSeconds(9), IAD)), true);
    assertThat(of(r)).isInstanceOfSatisfying(Anchored.class, a -> {
      assertThat(a.at()).isEqualTo(CUT.plusSeconds(9));
      assertThat(a.basis()).contains("an answer to a sidecar that named no site");
    });
  }

  @Test
  void aViewNamingAThirdSiteObservedAfterTheNamingRaisesWhatFences() {
    // iad may hold a view naming dfw observed after pdx's: pdx's view would not be taken over it.
    View dfw = new View("dfw", PDX.observedAt().plusSeconds(1));
    Outcome outcome = of(read("the sidecar of pdx", PDX, List.of(at(NAMED.plusSeconds(3), dfw))));
    assertThat(outcome).isInstanceOfSatisfying(Unknown.class, u -> assertThat(u.why()).contains("does not fence iad"));
  }
}
