package io.shipstream.failover.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
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
  void aWithdrawalSaysWhetherTheRequestWasRemovedOrReplacedAndByWhat() {
    assertThat(PlannedFailoverAnnotation.withdrawal(null)).isEqualTo("annotation removed");
    assertThat(PlannedFailoverAnnotation.withdrawal("iad:maxLagWait=1m"))
        .isEqualTo("request replaced by a new annotation value 'iad:maxLagWait=1m'");
  }

  @ParameterizedTest(name = "[{index}] \"{0}\"")
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      "\"\"           | annotation value is empty: expected <site>[:maxLagWait=<duration>]",
      "\" \"          | annotation value is empty: expected <site>[:maxLagWait=<duration>]",
      "PDX!           | 'PDX!' is not a site name: expected <site>[:maxLagWait=<duration>]",
      "PDX            | 'PDX' is not a site name",
      "-pdx           | '-pdx' is not a site name",
      ":maxLagWait=5s | '' is not a site name",
      "pdx:maxLagWait=abc | maxLagWait: invalid duration 'abc': expected e.g. 500ms, 30s, 5m, 1h30m",
      "pdx:maxLagWait=30 | maxLagWait: invalid duration '30'",
      "pdx:maxLagWait= | maxLagWait: empty duration",
      "pdx:maxLagWait=0s | maxLagWait must be greater than 0",
      "pdx:foo=1      | unknown option 'foo': only maxLagWait is supported",
      "pdx:maxlagwait=5s | unknown option 'maxlagwait': only maxLagWait is supported",
      "pdx:maxLagWait | option 'maxLagWait' is not key=value",
      "pdx:           | option '' is not key=value",
      "pdx:maxLagWait=5s:maxLagWait=1m | maxLagWait given twice",
  })
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
