package io.shipstream.failover.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PlannedFailoverAnnotationTest {

  @Test
  void aSiteAloneUsesTheSpecsMaxLagWait() {
    assertThat(PlannedFailoverAnnotation.parse("pdx"))
        .isEqualTo(new PlannedFailoverAnnotation("pdx", Optional.empty()));
  }

  @Test
  void maxLagWaitCanBeOverriddenPerRequest() {
    assertThat(PlannedFailoverAnnotation.parse("pdx:maxLagWait=30s"))
        .isEqualTo(new PlannedFailoverAnnotation("pdx", Optional.of(Duration.ofSeconds(30))));
  }

  @Test
  void whitespaceAroundThePartsIsTolerated() {
    assertThat(PlannedFailoverAnnotation.parse(" us-west-2 : maxLagWait = 1m30s "))
        .isEqualTo(new PlannedFailoverAnnotation("us-west-2", Optional.of(Duration.ofSeconds(90))));
  }

  @Test
  void aTimeWithItsOffsetSchedulesTheRequestAndCombinesWithMaxLagWait() {
    assertThat(PlannedFailoverAnnotation.parse("pdx:at=2026-12-01T02:00:00Z"))
        .isEqualTo(new PlannedFailoverAnnotation("pdx", Optional.empty(),
            Optional.of(Instant.parse("2026-12-01T02:00:00Z"))));
    assertThat(PlannedFailoverAnnotation.parse("pdx:at=2026-12-01T03:00:00.5+01:00:maxLagWait=30s"))
        .isEqualTo(new PlannedFailoverAnnotation("pdx", Optional.of(Duration.ofSeconds(30)),
            Optional.of(Instant.parse("2026-12-01T02:00:00.5Z"))));
    assertThat(PlannedFailoverAnnotation.parse("pdx: maxLagWait=1m : at = 2026-12-01T02:00:00-05:00").at())
        .contains(Instant.parse("2026-12-01T07:00:00Z"));
  }

  @ParameterizedTest(name = "[{index}] at {0}")
  @CsvSource(delimiter = '|', textBlock = """
      2026-12-01T02:00:00.001Z | ''
      2027-03-01T02:00:00Z     | ''
      2026-12-01T02:00:00Z     | the scheduled time 2026-12-01T02:00:00Z is not in the future (now 2026-12-01T02:00:00Z)
      2026-12-01T01:59:59Z     | the scheduled time 2026-12-01T01:59:59Z is not in the future
      2020-01-01T00:00:00Z     | the scheduled time 2020-01-01T00:00:00Z is not in the future
      2027-03-01T02:00:00.001Z | the scheduled time 2027-03-01T02:00:00.001Z is more than 90 days ahead
      2126-12-01T02:00:00Z     | the scheduled time 2126-12-01T02:00:00Z is more than 90 days ahead
      """)
  void aScheduleMustBeAfterNowAndAtMost90DaysAhead(String at, String problem) {
    Instant now = Instant.parse("2026-12-01T02:00:00Z");
    var request = PlannedFailoverAnnotation.parse("pdx:at=" + at);
    if (problem.isEmpty()) {
      assertThat(request.scheduleProblem(now)).isEmpty();
    } else {
      assertThat(request.scheduleProblem(now)).hasValueSatisfying(p -> assertThat(p).startsWith(problem));
    }
    assertThat(PlannedFailoverAnnotation.parse("pdx").scheduleProblem(now)).as("no time, no problem").isEmpty();
  }

  @Test
  void aWithdrawalSaysWhetherTheRequestWasRemovedOrReplacedAndByWhat() {
    assertThat(PlannedFailoverAnnotation.withdrawal(null)).isEqualTo("annotation removed");
    assertThat(PlannedFailoverAnnotation.withdrawal("iad:maxLagWait=1m"))
        .isEqualTo("request replaced by a new annotation value 'iad:maxLagWait=1m'");
  }

  @ParameterizedTest(name = "[{index}] \"{0}\"")
  @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
      ""                              | annotation value is empty: expected <site>[:maxLagWait=<duration>]
      " "                             | annotation value is empty: expected <site>[:maxLagWait=<duration>]
      PDX!                            | 'PDX!' is not a site name: expected <site>[:maxLagWait=<duration>]
      PDX                             | 'PDX' is not a site name
      -pdx                            | '-pdx' is not a site name
      :maxLagWait=5s                  | '' is not a site name
      pdx:maxLagWait=abc              | maxLagWait: invalid duration 'abc': expected e.g. 500ms, 30s, 5m, 1h30m
      pdx:maxLagWait=30               | maxLagWait: invalid duration '30'
      pdx:maxLagWait=                 | maxLagWait: empty duration
      pdx:maxLagWait=0s               | maxLagWait must be greater than 0
      pdx:foo=1                       | unknown option 'foo': only maxLagWait and at are supported
      pdx:maxlagwait=5s               | unknown option 'maxlagwait': only maxLagWait and at are supported
      pdx:maxLagWait                  | option 'maxLagWait' is not key=value
      pdx:                            | option '' is not key=value
      pdx:maxLagWait=5s:maxLagWait=1m | maxLagWait given twice
      pdx:at=2026-12-01T02:00:00Z:at=2026-12-02T02:00:00Z | at given twice
      pdx:at=2026-12-01T02:00:00      | at: invalid time '2026-12-01T02:00:00': expected an RFC 3339 time with its offset
      pdx:at=tomorrow                 | at: invalid time 'tomorrow'
      pdx:at=2026-12-01               | at: invalid time '2026-12-01'
      pdx:at=                         | at: invalid time ''
      pdx:at=2026-12-01T02:00:00Z:30  | at: invalid time '2026-12-01T02:00:00Z:30'
      pdx:30                          | option '30' is not key=value
      """)
  void refusesAnythingUnrecognisedWithAMessageForTheUser(String value, String message) {
    assertThatThrownBy(() -> PlannedFailoverAnnotation.parse(value))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(message);
  }

  @Test
  void refusesAMissingValue() {
    assertThatThrownBy(() -> PlannedFailoverAnnotation.parse(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("annotation value is empty");
  }
}
