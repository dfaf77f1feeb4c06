package io.shipstream.failover.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class WatcherAnswerTest {
  @Test
  void readsAViewWithTheGroupsTiming() {
    WatcherAnswer answer = parse("{\"activeSite\":\"iad\",\"observedAt\":\"2025-03-01T10:00:00Z\","
        + "\"leaseTimeoutMillis\":20000,\"peerCheckIntervalMillis\":5000}");

    assertThat(answer.view()).contains(new ActiveSiteView("iad", Instant.parse("2025-03-01T10:00:00Z")));
    assertThat(answer.neverActive()).isFalse();
    assertThat(answer.timing()).contains(new Timing(Duration.ofSeconds(20), Duration.ofSeconds(5)));
  }

  @Test
  void readsANeverActiveGroupAsNoViewButAnAnswer() {
    WatcherAnswer answer = parse("{\"activeSite\":null,\"neverActive\":true,\"observedAt\":\"2025-03-01T10:00:00Z\"}");

    assertThat(answer.view()).isEmpty();
    assertThat(answer.neverActive()).isTrue();
    assertThat(answer.timing()).as("an older watcher sends none").isEmpty();
  }

  @Test
  void theStalenessOfTheWatchersCacheIsReadAndNoneIsNone() {
    String view = "{\"activeSite\":\"iad\",\"observedAt\":\"2025-03-01T10:00:00Z\"";
    assertThat(parse(view + ",\"staleMillis\":7250}").stale()).isEqualTo(Duration.ofMillis(7250));
    assertThat(parse(view + ",\"neverActive\":null,\"staleMillis\":3}").stale()).isEqualTo(Duration.ofMillis(3));
    assertThat(parse(view + "}").stale()).as("a 0.1.0 watcher").isZero();
    assertThat(parse(view + ",\"staleMillis\":-5}").stale()).isZero();
    assertThat(parse("{\"activeSite\":null,\"neverActive\":true,\"observedAt\":\"2025-03-01T10:00:00Z\","
        + "\"staleMillis\":900}").stale()).isEqualTo(Duration.ofMillis(900));
  }

  @Test
  void halfATimingOrAnythingButWholeMillisecondsIsNone() {
    String view = "{\"activeSite\":\"iad\",\"observedAt\":\"2025-03-01T10:00:00Z\",";
    assertThat(parse(view + "\"leaseTimeoutMillis\":20000}").timing()).isEmpty();
    assertThat(parse(view + "\"leaseTimeoutMillis\":\"20s\",\"peerCheckIntervalMillis\":5000}").timing()).isEmpty();
    assertThat(parse(view + "\"leaseTimeoutMillis\":0,\"peerCheckIntervalMillis\":5000}").timing()).isEmpty();
    assertThat(parse(view + "\"leaseTimeoutMillis\":2.5,\"peerCheckIntervalMillis\":5000}").timing()).isEmpty();
  }

  @Test
  void neitherAViewNorANeverActiveAnswerIsUnreadable() {
    assertThatThrownBy(() -> parse("{\"activeSite\":null,\"observedAt\":\"2025-03-01T10:00:00Z\"}"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> parse("{\"neverActive\":false}")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> parse("[]")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void readsTheTombstoneOfADeletedGroupAsNoViewButAnAnswer() {
    WatcherAnswer answer = parse("{\"activeSite\":null,\"groupDeleted\":true,\"deletedAt\":\"2025-03-01T10:00:00Z\","
        + "\"observedAt\":\"2025-03-01T10:00:01Z\"}");

    assertThat(answer.view()).isEmpty();
    assertThat(answer.neverActive()).isFalse();
    assertThat(answer.groupDeletedAt()).contains(Instant.parse("2025-03-01T10:00:00Z"));
    assertThat(parse("{\"activeSite\":\"iad\",\"observedAt\":\"2025-03-01T10:00:00Z\"}").groupDeletedAt())
        .as("a live group's answer").isEmpty();
    assertThatThrownBy(() -> parse("{\"activeSite\":null,\"groupDeleted\":true}"))
        .as("a deletion without its time").isInstanceOf(IllegalArgumentException.class);
  }

  private static WatcherAnswer parse(String json) {
    return WatcherAnswer.parse(json.getBytes(StandardCharsets.UTF_8));
  }
}
