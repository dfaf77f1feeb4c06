package io.shipstream.failover.model;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The value of {@code bloodraven.shipstream.io/planned-failover}: {@code <site>}, optionally
 * followed by {@code :maxLagWait=<duration>} and {@code :at=<RFC 3339 time>} in any order. Parsing
 * is strict: anything unrecognised is an error, never silently ignored, because a typo in an
 * override must not turn into the 5-minute default, nor a mistyped time into a switchover now.
 *
 * <p>{@code at} makes a scheduled switchover: the request waits (phase Scheduled) until that
 * instant and is validated then. The time carries its offset ({@code Z} or {@code +01:00}); its
 * own colons need no escaping, since an option's key never starts with a digit.
 */
public record PlannedFailoverAnnotation(String targetSite, Optional<Duration> maxLagWait, Optional<Instant> at) {
  /** How far ahead a switchover may be scheduled: beyond this a time is taken for a typo. */
  public static final Duration MAX_SCHEDULE_AHEAD = Duration.ofDays(90);

  private static final String FORM = "<site>[:maxLagWait=<duration>][:at=<RFC 3339 time>]";

  /** A request without a time. */
  public PlannedFailoverAnnotation(String targetSite, Optional<Duration> maxLagWait) {
    this(targetSite, maxLagWait, Optional.empty());
  }

  /**
   * Why a request that is being served was withdrawn, in the words of the cancel signal and the
   * Events: the annotation removed ({@code newValue} null), or set to another value, which
   * withdraws the old request and makes a new one. The watcher and the workflow both say it, so
   * it is written once.
   */
  public static String withdrawal(String newValue) {
    return newValue == null ? "annotation removed" : "request replaced by a new annotation value '" + newValue + "'";
  }

  /**
   * Why a scheduled request cannot wait for its time, judged at {@code now}: a time that is not
   * after {@code now} (the past, or this very instant: there is no grace for clock skew, a
   * switchover meant for now is requested without {@code at}), or one more than {@link
   * #MAX_SCHEDULE_AHEAD} ahead. Empty when the time is fine or there is none. Pure, so the watcher
   * (with its clock) and the workflow (with workflow time) judge alike.
   */
  public Optional<String> scheduleProblem(Instant now) {
    if (at.isEmpty()) {
      return Optional.empty();
    }
    Instant when = at.get();
    if (!when.isAfter(now)) {
      return Optional.of("the scheduled time " + when + " is not in the future (now " + now + "): a switchover "
          + "for now is requested without at=");
    }
    if (when.isAfter(now.plus(MAX_SCHEDULE_AHEAD))) {
      return Optional.of("the scheduled time " + when + " is more than " + MAX_SCHEDULE_AHEAD.toDays()
          + " days ahead (now " + now + ")");
    }
    return Optional.empty();
  }

  public static PlannedFailoverAnnotation parse(String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("annotation value is empty: expected " + FORM);
    }
    List<String> parts = options(value.trim().split(":", -1));
    String site = parts.get(0).trim();
    if (site.isEmpty() || !site.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?")) {
      throw new IllegalArgumentException("'" + parts.get(0) + "' is not a site name: expected " + FORM);
    }
    Duration maxLagWait = null;
    Instant at = null;
    for (int i = 1; i < parts.size(); i++) {
      String option = parts.get(i).trim();
      int eq = option.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("option '" + option + "' is not key=value");
      }
      String key = option.substring(0, eq).trim();
      String val = option.substring(eq + 1).trim();
      switch (key) {
        case "maxLagWait" -> {
          if (maxLagWait != null) {
            throw new IllegalArgumentException("maxLagWait given twice");
          }
          maxLagWait = lagWait(val);
        }
        case "at" -> {
          if (at != null) {
            throw new IllegalArgumentException("at given twice");
          }
          at = time(val);
        }
        default -> throw new IllegalArgumentException("unknown option '" + key + "': only maxLagWait and at are "
            + "supported");
      }
    }
    return new PlannedFailoverAnnotation(site, Optional.ofNullable(maxLagWait), Optional.ofNullable(at));
  }

  /**
   * The site and the options, from the value split at every colon: a piece that starts with a
   * digit continues the option before it (the minutes, seconds and offset of a time).
   */
  private static List<String> options(String[] pieces) {
    List<String> parts = new ArrayList<>(List.of(pieces[0]));
    for (int i = 1; i < pieces.length; i++) {
      String piece = pieces[i];
      if (parts.size() > 1 && !piece.isEmpty() && Character.isDigit(piece.charAt(0))) {
        parts.set(parts.size() - 1, parts.get(parts.size() - 1) + ":" + piece);
      } else {
        parts.add(piece);
      }
    }
    return parts;
  }

  private static Duration lagWait(String val) {
    Duration d;
    try {
      d = Durations.parse(val);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("maxLagWait: " + e.getMessage());
    }
    if (d.isZero()) {
      throw new IllegalArgumentException("maxLagWait must be greater than 0");
    }
    return d;
  }

  private static Instant time(String val) {
    try {
      return OffsetDateTime.parse(val).toInstant();
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("at: invalid time '" + val + "': expected an RFC 3339 time with its offset, "
          + "e.g. 2026-12-01T02:00:00Z");
    }
  }
}
