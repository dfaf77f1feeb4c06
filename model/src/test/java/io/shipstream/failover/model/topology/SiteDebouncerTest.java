package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.topology.Fixture.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SiteDebouncerTest {
  private static final Duration POLL = Duration.ofSeconds(2);

  private static Probe up(boolean readOnly) {
    return new Probe("iad", true, readOnly, "", null, readOnly, null, null, T0);
  }

  private static Probe writable() {
    return up(false);
  }

  private static Probe readOnly() {
    return up(true);
  }

  private static Probe lost() {
    return Probe.unreachable("iad", "connect timed out", T0);
  }

  private static SiteDebouncer feed(SiteDebouncer d, Probe... probes) {
    for (Probe p : probes) {
      d = d.observe(p);
    }
    return d;
  }

  /** failureThreshold 3, recoveryThreshold 2: the defaults. */
  private static SiteDebouncer fresh() {
    return SiteDebouncer.start("iad", 3, 2);
  }

  @Test
  void aFreshWatcherTrustsTheFirstWritableAnswerSoItKnowsThePrimaryAtOnce() {
    assertThat(fresh().state()).isEqualTo(SiteState.UNKNOWN);
    assertThat(fresh().observe(writable()).state()).isEqualTo(SiteState.WRITABLE);
  }

  @Test
  void readOnlyIsBelievedAtOnceFromAnyState() {
    assertThat(fresh().observe(readOnly()).state()).isEqualTo(SiteState.READ_ONLY);
    assertThat(feed(fresh(), writable(), readOnly()).state()).isEqualTo(SiteState.READ_ONLY);
    assertThat(feed(fresh(), lost(), lost(), lost(), readOnly()).state()).isEqualTo(SiteState.READ_ONLY);
  }

  @Test
  void unreachableOnlyAfterFailureThresholdPollsInARow() {
    SiteDebouncer primary = fresh().observe(writable());

    assertThat(feed(primary, lost()).state()).isEqualTo(SiteState.WRITABLE);
    assertThat(feed(primary, lost(), lost()).state()).isEqualTo(SiteState.WRITABLE);
    assertThat(feed(primary, lost(), lost(), lost()).state()).isEqualTo(SiteState.UNREACHABLE);
  }

  @Test
  void anAnswerInBetweenRestartsTheFailureCount() {
    SiteDebouncer d = feed(fresh(), writable(), lost(), lost(), writable(), lost(), lost());

    assertThat(d.state()).isEqualTo(SiteState.WRITABLE);
    assertThat(d.unreachableStreak()).isEqualTo(2);
    assertThat(d.observe(lost()).state()).isEqualTo(SiteState.UNREACHABLE);
  }

  @Test
  void aSiteNeverSeenStaysUnknownUntilTheThreshold() {
    assertThat(feed(fresh(), lost(), lost()).state()).isEqualTo(SiteState.UNKNOWN);
    assertThat(feed(fresh(), lost(), lost(), lost()).state()).isEqualTo(SiteState.UNREACHABLE);
  }

  @Test
  void aReturningSiteIsWritableOnlyAfterRecoveryThresholdWritablePolls() {
    SiteDebouncer dead = feed(fresh(), writable(), lost(), lost(), lost());

    SiteDebouncer once = dead.observe(writable());
    assertThat(once.state()).isEqualTo(SiteState.UNREACHABLE);
    assertThat(once.observation().answeringNow()).isTrue();
    assertThat(once.observe(writable()).state()).isEqualTo(SiteState.WRITABLE);
  }

  @Test
  void aReadOnlySiteTurningWritableNeedsRecoveryThresholdToo() {
    SiteDebouncer replica = fresh().observe(readOnly());

    assertThat(replica.observe(writable()).state()).isEqualTo(SiteState.READ_ONLY);
    assertThat(feed(replica, writable(), writable()).state()).isEqualTo(SiteState.WRITABLE);
    // A lost poll in between restarts the writable streak.
    assertThat(feed(replica, writable(), lost(), writable()).state()).isEqualTo(SiteState.READ_ONLY);
  }

  @Test
  void recoveryThresholdOfOneTrustsTheFirstWritableAnswer() {
    SiteDebouncer d = feed(SiteDebouncer.start("iad", 1, 1), readOnly(), writable());

    assertThat(d.state()).isEqualTo(SiteState.WRITABLE);
    assertThat(d.observe(lost()).state()).isEqualTo(SiteState.UNREACHABLE);
  }

  @Test
  void keepsTheLastAnswerOfADeadSiteForItsLastKnownGtid() {
    Probe last = new Probe("iad", true, false, "0-1-100", "1", false, null, null, T0);
    SiteDebouncer d = feed(fresh(), last, lost(), lost(), lost());

    assertThat(d.lastReachable()).isEqualTo(last);
    assertThat(d.latest().reachable()).isFalse();
    assertThat(d.observation()).isEqualTo(new SiteObservation(SiteState.UNREACHABLE, d.latest(), last));
  }

  @Test
  void backsOffADeadSiteByDoublingUpToEightTimesThePollInterval() {
    SiteDebouncer d = fresh().observe(writable());
    assertThat(d.nextPollDelay(POLL)).isEqualTo(POLL);
    d = feed(d, lost(), lost());
    assertThat(d.nextPollDelay(POLL)).as("still debouncing: poll at the normal rate").isEqualTo(POLL);

    d = d.observe(lost());
    assertThat(d.nextPollDelay(POLL)).isEqualTo(Duration.ofSeconds(4));
    d = d.observe(lost());
    assertThat(d.nextPollDelay(POLL)).isEqualTo(Duration.ofSeconds(8));
    d = d.observe(lost());
    assertThat(d.nextPollDelay(POLL)).isEqualTo(Duration.ofSeconds(16));
    d = feed(d, lost(), lost(), lost());
    assertThat(d.nextPollDelay(POLL)).isEqualTo(POLL.multipliedBy(SiteDebouncer.MAX_BACKOFF_FACTOR));

    d = d.observe(writable());
    assertThat(d.nextPollDelay(POLL)).as("any answer resets the back-off").isEqualTo(POLL);
  }

  @Test
  void refusesAProbeOfAnotherSiteAndNonsenseThresholds() {
    assertThatThrownBy(() -> fresh().observe(Probe.unreachable("pdx", "x", T0)))
        .hasMessageContaining("'pdx'").hasMessageContaining("'iad'");
    assertThatThrownBy(() -> SiteDebouncer.start("iad", 0, 2)).hasMessageContaining("failureThreshold=0");
  }

  @Test
  void startsFromTheGroupsThresholds() {
    SiteDebouncer d = SiteDebouncer.start("iad", Fixture.group("iad", "pdx"));

    assertThat(feed(d, writable(), lost(), lost()).state()).isEqualTo(SiteState.WRITABLE);
    assertThat(feed(d, writable(), lost(), lost(), lost()).state()).isEqualTo(SiteState.UNREACHABLE);
  }
}
