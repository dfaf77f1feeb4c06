package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.dev.ServedStack.Gap;
import io.shipstream.failover.dev.ServedStack.Options;
import io.shipstream.failover.testsupport.WriteLoad.Ack;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code serve} runs, by its flags, and how the writer's gaps are found. */
class ServedStackTest {
  private static final Instant T0 = Instant.parse("2026-01-01T12:00:00Z");

  @Test
  void theWriterAndTheMonitorRunUnlessAFlagTurnsThemOffAndPrometheusOnlyWhenAskedFor() {
    Options defaults = Options.parse(List.of());
    assertThat(defaults).isEqualTo(new Options(true, true, false));
    assertThat(defaults.stack().topologyMonitor()).isTrue();
    assertThat(defaults.stack().pollInterval()).isEqualTo("500ms");
    assertThat(defaults.stack().failureThreshold()).isEqualTo(3);
    assertThat(defaults.stack().failoverCooldown()).isEqualTo("1m");
    assertThat(defaults.stack().tls()).as("TLS on by default").isTrue();

    Options quiet = Options.parse(List.of("--no-monitor", "--no-writer"));
    assertThat(quiet).isEqualTo(new Options(false, false, false));
    assertThat(quiet.stack().topologyMonitor()).isFalse();
    assertThat(quiet.stack().pollInterval()).as("the spec's default").isNull();
    assertThat(Options.parse(List.of("--no-writer"))).isEqualTo(new Options(false, true, false));
    assertThat(Options.parse(List.of("--prometheus"))).isEqualTo(new Options(true, true, true));

    assertThatThrownBy(() -> Options.parse(List.of("--no-montor")))
        .hasMessage("unknown serve flag --no-montor; serve takes --no-writer, --no-monitor and --prometheus");
  }

  @Test
  void aGapIsEveryStretchLongerThanTheThresholdBetweenTwoAcknowledgements() {
    List<Ack> acks = List.of(ack(1, 0), ack(2, 20), ack(3, 40), ack(4, 2_240), ack(5, 2_260), ack(6, 2_511));

    assertThat(ServedStack.gaps(acks, Duration.ofMillis(250))).containsExactly(
        new Gap(T0.plusMillis(40), Duration.ofMillis(2_200)), new Gap(T0.plusMillis(2_260), Duration.ofMillis(251)));
    assertThat(ServedStack.gaps(acks, Duration.ofSeconds(3))).isEmpty();
    assertThat(ServedStack.gaps(List.of(), Duration.ofMillis(250))).isEmpty();
  }

  private static Ack ack(long id, long millis) {
    return new Ack(id, T0.plusMillis(millis), Duration.ofMillis(millis).toNanos());
  }
}
