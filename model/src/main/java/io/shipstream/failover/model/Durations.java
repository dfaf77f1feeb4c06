package io.shipstream.failover.model;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kubernetes/Go style durations: a sequence of number+unit ({@code 500ms}, {@code 2s}, {@code 5m},
 * {@code 1h30m}). Units: ms, s, m, h. Negative values and bare numbers are refused, because a
 * knob without a unit is the classic way to get milliseconds where seconds were meant.
 */
public final class Durations {
  /**
   * The same grammar as a whole-string regular expression, for the CRD schema: the API server then
   * refuses a malformed duration at {@code kubectl apply} instead of the controller finding it later.
   * Stricter than {@link #parse} only in refusing surrounding blanks, which parse trims.
   */
  public static final String SCHEMA_PATTERN = "^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$";

  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");

  private static final BigDecimal MAX_NANOS = BigDecimal.valueOf(Long.MAX_VALUE);

  private Durations() {}

  public static Duration parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("empty duration");
    }
    String s = text.trim();
    Matcher m = PART.matcher(s);
    int pos = 0;
    long nanos = 0;
    while (pos < s.length()) {
      if (!m.find(pos) || m.start() != pos) {
        throw new IllegalArgumentException("invalid duration '" + text + "': expected e.g. 500ms, 30s, 5m, 1h30m");
      }
      BigDecimal value = new BigDecimal(m.group(1));
      long unitNanos = switch (m.group(2)) {
        case "ms" -> 1_000_000L;
        case "s" -> 1_000_000_000L;
        case "m" -> 60_000_000_000L;
        default -> 3_600_000_000_000L;
      };
      // Exact decimal arithmetic: 0.1s is 100000000ns, not whatever the nearest double rounds to, and
      // an absurd value is a parse error rather than an ArithmeticException escaping to the caller.
      BigDecimal partNanos = value.multiply(BigDecimal.valueOf(unitNanos)).setScale(0, RoundingMode.HALF_UP);
      if (partNanos.compareTo(MAX_NANOS.subtract(BigDecimal.valueOf(nanos))) > 0) {
        throw new IllegalArgumentException("duration '" + text + "' is too large");
      }
      nanos += partNanos.longValueExact();
      pos = m.end();
    }
    return Duration.ofNanos(nanos);
  }

  /**
   * Formats the way a user would have written it: {@code 1m30s}, {@code 500ms}, {@code 0s}. A
   * sub-millisecond remainder is kept as a decimal ({@code 0.25ms}) so that {@code parse(format(d))}
   * gives back {@code d} for every duration {@link #parse} can produce. A negative duration, which
   * parse refuses, is still shown readably with a leading minus rather than as garbage.
   */
  public static String format(Duration d) {
    if (d.isZero()) {
      return "0s";
    }
    if (d.isNegative()) {
      return "-" + format(d.negated());
    }
    StringBuilder b = new StringBuilder();
    long h = d.toHours();
    int m = d.toMinutesPart();
    int s = d.toSecondsPart();
    int nanosOfSecond = d.toNanosPart();
    if (h > 0) b.append(h).append('h');
    if (m > 0) b.append(m).append('m');
    if (s > 0) b.append(s).append('s');
    if (nanosOfSecond > 0) {
      BigDecimal ms = BigDecimal.valueOf(nanosOfSecond).movePointLeft(6).stripTrailingZeros();
      b.append(ms.toPlainString()).append("ms");
    }
    return b.toString();
  }
}
