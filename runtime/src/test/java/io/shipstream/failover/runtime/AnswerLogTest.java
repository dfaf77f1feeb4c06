package io.shipstream.failover.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.wire.AnswersReply;
import io.shipstream.failover.wire.AnswersReply.Answer;
import io.shipstream.failover.wire.Wire;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AnswerLogTest {
  private static final Instant SEEN = Instant.parse("2026-12-03T02:00:00Z");
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final AnswerLog log = new AnswerLog(nanos::get);

  private void advance(long millis) {
    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
  }

  @Test
  void anAskerWithNoAnswerHasAnEmptyCompleteListAndTheUpTimeBoundsIt() {
    advance(7_000);
    AnswersReply reply = log.read("iad", "iad", SEEN);
    assertThat(reply.upMillis()).isEqualTo(7_000);
    assertThat(reply.answers()).isEmpty();
    assertThat(reply.answersComplete()).isTrue();
    assertThat(reply.unnamed()).isEmpty();
    assertThat(reply.view()).isEqualTo(new Answer(null, "iad", SEEN.toString()));
  }

  @Test
  void aLogMadeLaterCountsItsUpTimeFromTheStartItIsGiven() {
    long processStart = nanos.get();
    advance(30_000);
    AnswerLog late = new AnswerLog(nanos::get, processStart);
    advance(2_000);
    AnswersReply reply = late.read("iad", null, null);
    assertThat(reply.upMillis()).isEqualTo(32_000);
    assertThat(reply.answersComplete()).isTrue();
  }

  @Test
  void answersAreKeptPerAskerNewestFirstWithTheirAgeAndView() {
    log.answered("iad", "iad", SEEN);
    advance(5_000);
    log.answered("pdx", "iad", SEEN);
    log.answered("iad", null, null);
    advance(1_500);
    AnswersReply iad = log.read("iad", "pdx", SEEN.plusSeconds(20));
    assertThat(iad.answers()).containsExactly(new Answer(1_500L, null, null),
        new Answer(6_500L, "iad", SEEN.toString()));
    assertThat(log.read("pdx", null, null).answers()).containsExactly(new Answer(1_500L, "iad", SEEN.toString()));
    assertThat(log.read("dfw", null, null).answers()).isEmpty();
  }

  @Test
  void anAskerThatNamesNoSiteIsKeptApartAndShownBesideEverySite() {
    log.answered(null, "iad", SEEN);
    log.answered(" ", "iad", SEEN);
    log.answered("x".repeat(254), "iad", SEEN);
    assertThat(log.read("iad", null, null).unnamed()).hasSize(3);
    assertThat(log.read("pdx", null, null).unnamed()).hasSize(3);
    assertThat(log.read("iad", null, null).answers()).isEmpty();
  }

  @Test
  void onlyTheNewestAnswersAreKeptAndTheListSaysOlderOnesWereLetGo() {
    for (int i = 0; i < AnswerLog.PER_ASKER + 3; i++) {
      log.answered("iad", "iad", SEEN);
      advance(1_000);
    }
    AnswersReply reply = log.read("iad", null, null);
    assertThat(reply.answers()).hasSize(AnswerLog.PER_ASKER);
    assertThat(reply.answersComplete()).isFalse();
    assertThat(reply.answers().get(0).agoMillis()).isEqualTo(1_000);
    assertThat(reply.answers().get(AnswerLog.PER_ASKER - 1).agoMillis()).isEqualTo(AnswerLog.PER_ASKER * 1_000L);
  }

  @Test
  void askersBeyondTheLimitAreKeptAsUnnamedSoNoRenewalIsLost() {
    for (int i = 0; i < AnswerLog.MAX_ASKERS; i++) {
      log.answered("site-" + i, "iad", SEEN);
    }
    log.answered("one-too-many", "iad", SEEN);
    assertThat(log.read("one-too-many", null, null).answers()).isEmpty();
    assertThat(log.read("one-too-many", null, null).unnamed()).hasSize(1);
    log.answered("site-0", "iad", SEEN);
    assertThat(log.read("site-0", null, null).answers()).hasSize(2);
  }

  @Test
  void anAgeIsRoundedUpNeverMadeOutOlder() {
    log.answered("iad", "iad", SEEN);
    nanos.addAndGet(1);
    assertThat(log.read("iad", null, null).answers().get(0).agoMillis()).isEqualTo(1);
  }

  @Test
  void theReplyReadsBackFromItsJson() {
    log.answered("iad", "iad", SEEN);
    log.answered(null, null, null);
    advance(250);
    AnswersReply reply = log.read("iad", "pdx", SEEN.plusSeconds(9));
    String json = Wire.write(reply);
    assertThat(json).startsWith("{\"site\":\"iad\",\"upMillis\":250,\"view\":{\"activeSite\":\"pdx\"");
    assertThat(Wire.read(json, AnswersReply.class)).isEqualTo(reply);
  }
}
