package io.shipstream.failover.watcher.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.watcher.topology.StartsReadOnlyWatch.Notice;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The decision table of {@link StartsReadOnlyWatch}, row by row, and sequences of sidecar answers. */
class StartsReadOnlyWatchTest {
  private static final StartsReadOnlyWatch FALSE_WARNED = new StartsReadOnlyWatch(false, true);
  private static final StartsReadOnlyWatch TRUE_QUIET = new StartsReadOnlyWatch(true, false);
  private static final StartsReadOnlyWatch UNKNOWN_WARNED = new StartsReadOnlyWatch(null, true);

  static Stream<Arguments> table() {
    return Stream.of(
        // before, reported, notice, after
        Arguments.of(StartsReadOnlyWatch.UNKNOWN, false, Notice.WRITABLE, FALSE_WARNED),
        Arguments.of(TRUE_QUIET, false, Notice.WRITABLE, FALSE_WARNED),
        Arguments.of(UNKNOWN_WARNED, false, Notice.WRITABLE, FALSE_WARNED),
        Arguments.of(FALSE_WARNED, false, Notice.NONE, FALSE_WARNED),
        Arguments.of(FALSE_WARNED, true, Notice.READ_ONLY_AGAIN, TRUE_QUIET),
        Arguments.of(UNKNOWN_WARNED, true, Notice.READ_ONLY_AGAIN, TRUE_QUIET),
        Arguments.of(StartsReadOnlyWatch.UNKNOWN, true, Notice.NONE, TRUE_QUIET),
        Arguments.of(TRUE_QUIET, true, Notice.NONE, TRUE_QUIET),
        Arguments.of(FALSE_WARNED, null, Notice.NONE, UNKNOWN_WARNED),
        Arguments.of(TRUE_QUIET, null, Notice.NONE, StartsReadOnlyWatch.UNKNOWN),
        Arguments.of(StartsReadOnlyWatch.UNKNOWN, null, Notice.NONE, StartsReadOnlyWatch.UNKNOWN));
  }

  @ParameterizedTest(name = "{0} + {1} -> {2}")
  @MethodSource("table")
  void eachRowOfTheTable(StartsReadOnlyWatch before, Boolean reported, Notice notice, StartsReadOnlyWatch after) {
    StartsReadOnlyWatch.Step step = before.next(reported);
    assertThat(step.notice()).isEqualTo(notice);
    assertThat(step.watch()).isEqualTo(after);
  }

  @Test
  void aServerThatStaysWritableIsReportedOnceAndItsFixOnce() {
    assertThat(notices(null, false, false, false, true, true, false, false))
        .containsExactly(Notice.WRITABLE, Notice.READ_ONLY_AGAIN, Notice.WRITABLE);
  }

  @Test
  void aSidecarRestartBetweenTwoWritableAnswersReportsAgainAndAFixAfterItIsStillAnnounced() {
    assertThat(notices(false, null, false)).containsExactly(Notice.WRITABLE, Notice.WRITABLE);
    assertThat(notices(false, null, true)).containsExactly(Notice.WRITABLE, Notice.READ_ONLY_AGAIN);
  }

  @Test
  void theWarningNamesTheSiteAndWhatToConfigureForEachFlavor() {
    assertThat(Notice.WRITABLE.type).isEqualTo("Warning");
    assertThat(Notice.WRITABLE.reason).isEqualTo("ServerStartsWritable");
    assertThat(Notice.WRITABLE.message("pdx")).contains("'pdx'")
        .contains("MariaDB read_only=ON in [mysqld], MySQL super_read_only=ON");
    assertThat(Notice.READ_ONLY_AGAIN.type).isEqualTo("Normal");
  }

  private static List<Notice> notices(Boolean... answers) {
    List<Notice> out = new ArrayList<>();
    StartsReadOnlyWatch watch = StartsReadOnlyWatch.UNKNOWN;
    for (Boolean answer : Arrays.asList(answers)) {
      StartsReadOnlyWatch.Step step = watch.next(answer);
      watch = step.watch();
      if (step.notice() != Notice.NONE) {
        out.add(step.notice());
      }
    }
    return out;
  }
}
