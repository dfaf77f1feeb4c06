package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.Annotations;
import java.util.Optional;

/**
 * The value of {@code bloodraven.shipstream.io/paused}: a DBA's handle to stop the automation of
 * one group while they operate on it by hand. {@code true} pauses, {@code false} (or no
 * annotation) does not; anything else is refused, as strictly as the other annotations: a typo
 * must neither pause a group nobody meant to pause nor leave running one a DBA meant to pause
 * without saying so (an Event and the Degraded condition name the problem; the group goes on as
 * before).
 *
 * <p>A paused group is observed and reported as usual (polls, status, conditions, alerts), but
 * the watcher changes nothing: by {@link #held}, each verdict that would act is only reported,
 * once, with what it would have done; nothing is adopted, no routing is repaired, no semi-sync
 * setting is applied, and planned-failover requests are refused with reason {@code Paused}. A
 * failover already running goes on to its end. The sidecars keep their rules 1 and 2: safety is
 * never paused.
 *
 * <pre>
 * | verdict                                  | held: what the Event says would have been done      |
 * |------------------------------------------|-----------------------------------------------------|
 * | Promote(f, c)                            | start an emergency failover from f to c             |
 * | FenceNonPromotable(sites)                | fence sites                                         |
 * | SplitBrain with a site to keep           | fence the others (and record keep as active)        |
 * | Healthy, Degraded, NoPrimary, TotalLoss, | nothing: these only report, as when not paused      |
 * |   SplitBrain alert-only, Blocked         |                                                     |
 * </pre>
 *
 * @param value the annotation as written
 * @param paused whether the group is paused; false when the value is invalid
 * @param problem why the value is invalid, else null
 */
public record PauseAnnotation(String value, boolean paused, String problem) {
  public static final String ANNOTATION = Annotations.PAUSED;

  /** Reads the annotation; empty when it is absent. */
  public static Optional<PauseAnnotation> read(String value) {
    if (value == null) {
      return Optional.empty();
    }
    String v = value.strip();
    if (v.equals("true")) {
      return Optional.of(new PauseAnnotation(value, true, null));
    }
    if (v.equals("false")) {
      return Optional.of(new PauseAnnotation(value, false, null));
    }
    return Optional.of(new PauseAnnotation(value, false, "the " + ANNOTATION + " annotation is '" + value
        + "': expected " + ANNOTATION + "=true to pause the group's automation (or false, or no annotation, to let it "
        + "act); the group is not paused"));
  }

  /** Whether {@code annotation} (as read by {@link #read}) pauses the group. */
  public static boolean pauses(Optional<PauseAnnotation> annotation) {
    return annotation.map(PauseAnnotation::paused).orElse(false);
  }

  public boolean valid() {
    return problem == null;
  }

  /** What {@code verdict} would have done that a paused group does not do; empty when it only reports. */
  public static Optional<String> held(Verdict verdict) {
    if (verdict instanceof Verdict.Promote p) {
      return Optional.of("start an emergency failover from '" + p.failedSite() + "' to '" + p.candidate() + "' ("
          + p.reason() + ")");
    }
    if (verdict instanceof Verdict.FenceNonPromotable f) {
      return Optional.of("fence " + f.sites() + " (" + f.reason() + ")");
    }
    if (verdict instanceof Verdict.SplitBrain sb && !sb.alertOnly()) {
      return Optional.of("fence " + sb.fence() + " and keep '" + sb.keep() + "' (" + sb.reason() + ")");
    }
    return Optional.empty();
  }

  /** The Event and condition message of a paused group. */
  public static String pausedMessage() {
    return "the group is paused (" + ANNOTATION + "=true): it is observed and reported, but no failover starts, "
        + "nothing is fenced or adopted, no routing is repaired and planned failovers are refused; the sidecars still "
        + "fence on their own; remove the annotation to resume";
  }
}
