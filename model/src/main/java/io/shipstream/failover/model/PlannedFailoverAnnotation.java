package io.shipstream.failover.model;

import java.time.Duration;
import java.util.Optional;

/**
 * The value of {@code bloodraven.shipstream.io/planned-failover}: {@code <site>} or
 * {@code <site>:maxLagWait=<duration>}. Parsing is strict: anything unrecognised is an error,
 * never silently ignored, because a typo in an override must not turn into the 5-minute default.
 */
public record PlannedFailoverAnnotation(String targetSite, Optional<Duration> maxLagWait) {

  /**
   * Why a request that is being served was withdrawn, in the words of the cancel signal and the
   * Events: the annotation removed ({@code newValue} null), or set to another value, which
   * withdraws the old request and makes a new one. The watcher and the workflow both say it, so
   * it is written once.
   */
  public static String withdrawal(String newValue) {
    return newValue == null ? "annotation removed" : "request replaced by a new annotation value '" + newValue + "'";
  }

  public static PlannedFailoverAnnotation parse(String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("annotation value is empty: expected <site>[:maxLagWait=<duration>]");
    }
    String[] parts = value.trim().split(":", -1);
    String site = parts[0].trim();
    if (site.isEmpty() || !site.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?")) {
      throw new IllegalArgumentException("'" + parts[0] + "' is not a site name: expected <site>[:maxLagWait=<duration>]");
    }
    Duration maxLagWait = null;
    for (int i = 1; i < parts.length; i++) {
      String option = parts[i].trim();
      int eq = option.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("option '" + option + "' is not key=value");
      }
      String key = option.substring(0, eq).trim();
      String val = option.substring(eq + 1).trim();
      if (!key.equals("maxLagWait")) {
        throw new IllegalArgumentException("unknown option '" + key + "': only maxLagWait is supported");
      }
      if (maxLagWait != null) {
        throw new IllegalArgumentException("maxLagWait given twice");
      }
      try {
        maxLagWait = Durations.parse(val);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("maxLagWait: " + e.getMessage());
      }
      if (maxLagWait.isZero()) {
        throw new IllegalArgumentException("maxLagWait must be greater than 0");
      }
    }
    return new PlannedFailoverAnnotation(site, Optional.ofNullable(maxLagWait));
  }
}
