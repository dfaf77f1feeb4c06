package io.shipstream.failover.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ActiveSiteViewTest {

  @Test
  void roundTripsThroughTheJsonTheWatcherServes() {
    ActiveSiteView view = new ActiveSiteView("iad", Instant.parse("2025-03-01T10:00:00.123Z"));

    assertThat(view.toJson()).isEqualTo("{\"activeSite\":\"iad\",\"observedAt\":\"2025-03-01T10:00:00.123Z\"}");
    assertThat(parse(view.toJson())).isEqualTo(view);
  }

  @Test
  void acceptsAnyRfc3339OffsetAndIgnoresUnknownFields() {
    assertThat(parse("{\"activeSite\":\"dfw\",\"observedAt\":\"2025-03-01T12:00:00+02:00\",\"extra\":1}"))
        .isEqualTo(new ActiveSiteView("dfw", Instant.parse("2025-03-01T10:00:00Z")));
  }

  @Test
  void refusesWhatIsNotAView() {
    assertThatThrownBy(() -> parse("not json")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> parse("[]")).hasMessage("expected a JSON object");
    assertThatThrownBy(() -> parse("{\"activeSite\":\"iad\"}"))
        .hasMessage("expected the text fields activeSite and observedAt");
    assertThatThrownBy(() -> parse("{\"activeSite\":\"\",\"observedAt\":\"2025-03-01T10:00:00Z\"}"))
        .hasMessage("activeSite is required");
    assertThatThrownBy(() -> parse("{\"activeSite\":\"iad\",\"observedAt\":\"yesterday\"}"))
        .hasMessage("observedAt 'yesterday' is not an RFC 3339 time");
  }

  @Test
  void carriesTheFencedSitesAndReadsAViewWithoutThem() {
    ActiveSiteView view = new ActiveSiteView("iad", Instant.parse("2025-03-01T10:00:00Z"), java.util.List.of("dr"));

    assertThat(view.toJson()).isEqualTo(
        "{\"activeSite\":\"iad\",\"observedAt\":\"2025-03-01T10:00:00Z\",\"fencedSites\":[\"dr\"]}");
    assertThat(parse(view.toJson())).isEqualTo(view);
    assertThat(view.fences("dr")).isTrue();
    assertThat(view.fences("iad")).isFalse();
    assertThat(parse("{\"activeSite\":\"iad\",\"observedAt\":\"2025-03-01T10:00:00Z\"}").fencedSites()).isEmpty();
    assertThatThrownBy(() -> parse("{\"activeSite\":\"iad\",\"observedAt\":\"2025-03-01T10:00:00Z\","
        + "\"fencedSites\":\"dr\"}")).hasMessage("fencedSites is not an array");
    assertThatThrownBy(() -> parse("{\"activeSite\":\"iad\",\"observedAt\":\"2025-03-01T10:00:00Z\","
        + "\"fencedSites\":[null]}")).hasMessage("fencedSites must be an array of site names");
  }

  @Test
  void onlyAStrictlyLaterObservationIsNewer() {
    ActiveSiteView earlier = new ActiveSiteView("iad", Instant.parse("2025-03-01T10:00:00Z"));
    ActiveSiteView later = new ActiveSiteView("dfw", Instant.parse("2025-03-01T10:00:01Z"));
    ActiveSiteView sameTime = new ActiveSiteView("dfw", Instant.parse("2025-03-01T10:00:00Z"));

    assertThat(later.newerThan(earlier)).isTrue();
    assertThat(earlier.newerThan(later)).isFalse();
    assertThat(sameTime.newerThan(earlier)).isFalse();
    assertThat(earlier.newerThan(null)).isTrue();
  }

  private static ActiveSiteView parse(String json) {
    return ActiveSiteView.parse(json.getBytes(StandardCharsets.UTF_8));
  }
}
