package io.shipstream.failover.model.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.topology.SemiSyncFallback.Judgement;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The rows of {@link SemiSyncFallback}'s table, and what counts as a switch-on. */
class SemiSyncFallbackTest {
  private static final Instant T0 = Instant.parse("2026-12-02T04:00:00Z");
  /** Preferred on a primary with its source side on: MariaDB-like (active stays on, no replica connected). */
  private static final SemiSyncState NO_REPLICA = new SemiSyncState(true, true, true, 0, null, 2000L, "AFTER_SYNC",
      true, false, false);
  private static final SemiSyncState ON = new SemiSyncState(true, true, true, 1, null, 2000L, "AFTER_SYNC", true,
      false, false);
  /** MySQL-like: the source side went inactive when no acknowledgement came within the timeout. */
  private static final SemiSyncState TIMED_OUT = new SemiSyncState(true, true, false, 1, 1, 2000L, "AFTER_SYNC", true,
      false, true);

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      // row | reading   | switch-on (ms before now; '' none) | told | poll ms | judgement
      "1: on ends the switch-on                  | on        | 100   | false | 500  | NOT_FALLEN_BACK",
      "1: on without any switch-on               | on        | ''    | false | 500  | NOT_FALLEN_BACK",
      "1: on after a fall-back told              | on        | ''    | true  | 500  | NOT_FALLEN_BACK",
      "2: fallen back with no switch-on          | noReplica | ''    | false | 500  | FALLEN_BACK",
      "2: timed out with no switch-on            | timedOut  | ''    | false | 500  | FALLEN_BACK",
      "2b: told, then a replica switched on      | noReplica | 0     | true  | 500  | FALLEN_BACK",
      "3: no replica yet, just switched on       | noReplica | 0     | false | 500  | SWITCHING_ON",
      "3: no replica yet, 4.9 s after            | noReplica | 4999  | false | 500  | SWITCHING_ON",
      "4: no replica 5 s after a switch-on       | noReplica | 5000  | false | 500  | FALLEN_BACK",
      "3: slow polls: two intervals of grace     | noReplica | 7999  | false | 4000 | SWITCHING_ON",
      "4: slow polls: not three                  | noReplica | 8000  | false | 4000 | FALLEN_BACK",
  })
  void judges(String row, String reading, String switchOnMillisAgo, boolean told, long pollMillis,
      Judgement expected) {
    SemiSyncState primary = switch (reading) {
      case "on" -> ON;
      case "noReplica" -> NO_REPLICA;
      default -> TIMED_OUT;
    };
    Instant now = T0.plusSeconds(60);
    Instant switchOnAt = switchOnMillisAgo.isEmpty() ? null : now.minusMillis(Long.parseLong(switchOnMillisAgo));

    assertThat(SemiSyncFallback.judge(primary, switchOnAt, told, now, Duration.ofMillis(pollMillis)))
        .isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "source side turned on           | false | false | true  | false | true",
      "replica side turned on          | false | false | false | true  | true",
      "already on                      | true  | true  | true  | true  | false",
      "turned off                      | true  | true  | false | false | false",
  })
  void aSwitchOnTurnsASourceOrAReplicaSideOn(String what, boolean sourceBefore, boolean replicaBefore,
      boolean sourceAfter, boolean replicaAfter, boolean expected) {
    SemiSyncState before = new SemiSyncState(true, sourceBefore, sourceBefore, 0, 1, 2000L, "AFTER_SYNC",
        replicaBefore, false);
    SemiSyncState after = new SemiSyncState(true, sourceAfter, sourceAfter, 0, 1, 2000L, "AFTER_SYNC", replicaAfter,
        false);

    assertThat(SemiSyncFallback.switchesOn(before, after)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "plugins installed then {0}")
  @CsvSource({"true", "false"})
  void aServerWithoutThePluginsBeforeIsSwitchedOnByWhateverItTurnsOn(boolean source) {
    SemiSyncState after = new SemiSyncState(true, source, source, 0, 1, 2000L, "AFTER_SYNC", !source, false);

    assertThat(SemiSyncFallback.switchesOn(SemiSyncState.unavailable(), after)).isTrue();
  }
}
