package io.shipstream.failover.model.topology;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DryRunAnnotationTest {

  @ParameterizedTest(name = "''{0}'': site {1}, emergency {2}, valid {3}")
  @CsvSource(nullValues = "null", value = {
      "pdx,         pdx,  false, true",
      "' pdx ',     pdx,  false, true",
      "emergency,   null, true,  true",
      "PDX,         null, false, false",
      "pdx:at=x,    null, false, false",
      "'',          null, false, false"})
  void reads(String value, String site, boolean emergency, boolean valid) {
    DryRunAnnotation a = DryRunAnnotation.parse(value);

    assertThat(a.site()).isEqualTo(site);
    assertThat(a.emergency()).isEqualTo(emergency);
    assertThat(a.valid()).isEqualTo(valid);
    if (!valid) {
      assertThat(a.problem()).contains(DryRunAnnotation.ANNOTATION);
    }
  }
}
