package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.Annotations;
import java.util.regex.Pattern;

/**
 * The value of {@code bloodraven.shipstream.io/dry-run}: a site, to ask what a switchover to it
 * would do now, or {@code emergency}, to ask which site an emergency failover would promote if the
 * active site died now and what it would lose. An annotation of its own, never a value of {@code
 * planned-failover}: a new value there withdraws a waiting or running request.
 *
 * @param value the annotation as written
 * @param site the switchover's target; null for the emergency precheck or an invalid value
 * @param emergency whether it asks the emergency question
 * @param problem why the value is invalid, else null
 */
public record DryRunAnnotation(String value, String site, boolean emergency, String problem) {
  public static final String ANNOTATION = Annotations.DRY_RUN;
  public static final String EMERGENCY = "emergency";
  /** A site name as the spec admits it (a DNS label). */
  private static final Pattern SITE = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  /** Reads a value that is present. */
  public static DryRunAnnotation parse(String value) {
    String v = value == null ? "" : value.strip();
    if (EMERGENCY.equals(v)) {
      return new DryRunAnnotation(value, null, true, null);
    }
    if (!SITE.matcher(v).matches()) {
      return new DryRunAnnotation(value, null, false, "invalid " + ANNOTATION + " value '" + value
          + "': a site name, or '" + EMERGENCY + "'");
    }
    return new DryRunAnnotation(value, v, false, null);
  }

  public boolean valid() {
    return problem == null;
  }
}
