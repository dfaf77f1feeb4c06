package io.shipstream.failover.model.crd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.time.Duration;
import java.time.Instant;

/**
 * {@code status.plannedFailover.writeWindow} and {@code status.emergencyFailover.writeWindow}: how
 * long the group could take no writes, measured on the servers' side from the instants the
 * failover's activities returned (the middle of the exchange that applied each change), not by
 * the workflow's clock.
 *
 * <p>Planned: from the fence applied on the source to the target writable; {@code lagWaitSeconds}
 * is the part of it the lag gate took (by the workflow's clock, which is coarser). Emergency: from
 * the watcher's detection of the lost primary to the candidate writable; {@code
 * sinceLastPollSeconds} is how long before the detection the dead primary last answered a poll,
 * where known (the writes it took in between may be lost).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record WriteWindow(
    @JsonPropertyDescription("The window's length, in seconds with millisecond precision.") Double seconds,
    @JsonPropertyDescription("Planned: when the source applied the fence. Emergency: when the watcher detected the "
        + "primary lost (RFC 3339).") String from,
    @JsonPropertyDescription("When the target began to take writes (RFC 3339).") String until,
    @JsonPropertyDescription("Planned: the time the lag gate took inside the window.") Double lagWaitSeconds,
    @JsonPropertyDescription("Emergency: from the dead primary's last successful poll to the detection, where known.")
    Double sinceLastPollSeconds) {

  /** The window from {@code from} to {@code until}; null when either is unknown. */
  public static WriteWindow between(Instant from, Instant until, Double lagWaitSeconds, Double sinceLastPollSeconds) {
    if (from == null || until == null) {
      return null;
    }
    return new WriteWindow(seconds(Duration.between(from, until)), from.toString(), until.toString(), lagWaitSeconds,
        sinceLastPollSeconds);
  }

  /** A duration in seconds with millisecond precision, as every duration of the status. */
  public static Double seconds(Duration d) {
    return d == null ? null : d.toMillis() / 1000.0;
  }
}
