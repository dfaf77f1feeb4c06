package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.Annotations;
import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.crd.SiteSpec;
import java.util.Optional;

/**
 * The value of {@code bloodraven.shipstream.io/promote-anyway}: {@code <site>}, a human's explicit
 * request to promote that site although it is further behind the failed primary than
 * {@code spec.emergencyFailover.maxLagOnPromotion} allows (row 19a of {@link TopologyMatrix}). It
 * promotes only the candidate the block names, only while the block stands, and is removed once
 * acted on, so it never forces a later failover. Parsing is as strict as the planned-failover
 * annotation's: a typo must not promote anything.
 *
 * <p>What the watcher does with it, by {@link #judge}:
 * <pre>
 * | annotation                                  | verdict                                   | outcome              |
 * |---------------------------------------------|-------------------------------------------|----------------------|
 * | malformed, unknown site, not a candidate    | any                                       | Invalid: Event once, |
 * |                                             |                                           |   Degraded condition,|
 * |                                             |                                           |   left for a human   |
 * | names c                                     | Promote(f, c) forced by it (row 19b)      | Forced: start, then  |
 * |                                             |                                           |   removed, Event     |
 * | names c                                     | Blocked(CandidateTooFarBehind, other c')  | Moot: removed, Event |
 * | names c                                     | Healthy, Degraded, SplitBrain,            | Moot: removed, Event |
 * |                                             |   FenceNonPromotable (a writable primary) |                      |
 * | names c                                     | anything else (NoPrimary, other blocks,   | Pending: kept        |
 * |                                             |   TotalLoss, a promotion within the limit)|                      |
 * </pre>
 * Pending keeps a request made a moment before the block shows, or across a watcher restart
 * (it lives on the resource); a group with a writable primary has nothing to override, and a
 * request kept then could force a later failover nobody asked for.
 *
 * @param value the annotation as written
 * @param site the site it names when valid, else null
 * @param problem why it is invalid, else null
 */
public record PromoteAnywayAnnotation(String value, String site, String problem) {
  public static final String ANNOTATION = Annotations.PROMOTE_ANYWAY;
  private static final String SITE_NAME = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";

  /** What to do with a request given the matrix's verdict; see the class comment. */
  public sealed interface Outcome permits Invalid, Pending, Forced, Moot {}

  /** Not a request: say why (Event, condition) and leave it for a human; nothing else changes. */
  public record Invalid(String why) implements Outcome {}

  /** Kept as it is: no block to override yet. */
  public record Pending() implements Outcome {}

  /** The verdict promotes the named site over the limit: once the failover starts, remove it. */
  public record Forced() implements Outcome {}

  /** Nothing for it to override: remove it, saying why. */
  public record Moot(String why) implements Outcome {}

  /**
   * Reads the annotation against the spec; empty when it is absent.
   */
  public static Optional<PromoteAnywayAnnotation> read(String value, GroupConfig config) {
    if (value == null) {
      return Optional.empty();
    }
    String site = value.strip();
    if (site.isEmpty()) {
      return invalid(value, "the " + ANNOTATION + " annotation is empty: expected the site to promote, " + ANNOTATION
          + "=<site>");
    }
    if (!site.matches(SITE_NAME)) {
      return invalid(value, "the " + ANNOTATION + " annotation '" + value + "' is not a site name: expected "
          + ANNOTATION + "=<site> and nothing else");
    }
    Optional<SiteSpec> spec = config.site(site);
    if (spec.isEmpty()) {
      return invalid(value, "the " + ANNOTATION + " annotation names '" + site + "', which is not a site of the group");
    }
    if (!spec.get().isPrimaryCandidate()) {
      return invalid(value, "the " + ANNOTATION + " annotation names '" + site + "', whose role " + spec.get().role()
          + " may never be primary");
    }
    return Optional.of(new PromoteAnywayAnnotation(value, site, null));
  }

  private static Optional<PromoteAnywayAnnotation> invalid(String value, String problem) {
    return Optional.of(new PromoteAnywayAnnotation(value, null, problem));
  }

  public boolean valid() {
    return problem == null;
  }

  /** The outcome of the table in the class comment. */
  public Outcome judge(Verdict verdict) {
    if (!valid()) {
      return new Invalid(problem + "; nothing was changed, remove or correct the annotation");
    }
    if (verdict instanceof Verdict.Promote p && p.forced() && site.equals(p.candidate())) {
      return new Forced();
    }
    if (verdict instanceof Verdict.Blocked b && b.cause() == Verdict.Cause.CandidateTooFarBehind
        && !site.equals(b.candidate())) {
      return new Moot("the " + ANNOTATION + " annotation names '" + site + "', but the candidate held back by the lag "
          + "limit is '" + b.candidate() + "': only that one can be promoted anyway; request removed, nothing changed");
    }
    if (verdict instanceof Verdict.Healthy || verdict instanceof Verdict.Degraded
        || verdict instanceof Verdict.SplitBrain || verdict instanceof Verdict.FenceNonPromotable) {
      return new Moot("the " + ANNOTATION + " annotation names '" + site + "', but a site is writable: no promotion "
          + "is held back by the lag limit; request removed, nothing changed");
    }
    return new Pending();
  }
}
