package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.crd.SiteSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Whether a site could be the target of a planned switchover now: the one rule that the planned
 * runbook's Validating step ({@code PlannedFailoverPlanner}), its dry run and each site's standing
 * readiness ({@link SiteReadiness}) all apply, so that they can never disagree. Pure and
 * deterministic (no clock, no I/O): the planner runs it inside workflow code.
 *
 * <p>The rows are checked top to bottom; the first that matches refuses. A is {@code
 * status.activeSite}; the source is A, or, when none is recorded, the one reachable writable site.
 *
 * <pre>
 * | #  | condition                                                   | refusal            |
 * |----|-------------------------------------------------------------|--------------------|
 * | 1  | the target's role is not primary-candidate                  | NotCandidate       |
 * | 2  | the target is A                                             | ActiveSite         |
 * | 3  | the target is fenced ({@link FencedSites})                   | Fenced             |
 * | 4  | A is not a site of the spec                                 | NoSource           |
 * | 5  | no A, and not exactly one reachable writable site           | NoSource           |
 * | 6  | no A, and the one reachable writable site is the target     | ActiveSite         |
 * | 7  | the source was not read, or did not answer                  | SourceUnreachable  |
 * | 8  | the source is read-only (fenced, say): nothing to hand over | SourceReadOnly     |
 * | 9  | the target was not read                                     | TargetNotRead      |
 * | 10 | the target did not answer                                   | TargetUnreachable  |
 * | 11 | the target is writable: a second primary                    | TargetWritable     |
 * | 12 | the target does not run both replication threads            | ReplicationStopped |
 * | -  | otherwise                                                   | none: the source   |
 * </pre>
 *
 * <p>Rows 1-3 need no server ({@link #request}); the planner asks them before it inspects any, and
 * rows 4-12 ({@link #servers}) with the inspections in hand. {@link #evaluate} asks both in order.
 * What would make an accepted switchover slow or wrong (lag, errant transactions, an SQL thread
 * error) is not this rule's: readiness adds it after, never instead.
 */
public final class PlannedTarget {
  private PlannedTarget() {}

  /** Why a site could not be a planned target; the rows of the class comment. */
  public enum Refusal {
    NotCandidate,
    ActiveSite,
    Fenced,
    NoSource,
    SourceUnreachable,
    SourceReadOnly,
    TargetNotRead,
    TargetUnreachable,
    TargetWritable,
    ReplicationStopped
  }

  /** The first refusal, with the message the operator sees. */
  public record Refused(Refusal refusal, String message) {
    public Refused {
      Objects.requireNonNull(refusal, "refusal");
      Objects.requireNonNull(message, "message");
    }
  }

  /**
   * What the rule needs of one server's state.
   *
   * @param error why it did not answer; null when unknown
   * @param replicating whether both replication threads run
   * @param ioRunning whether the IO thread runs; null when unknown (named in the message only)
   * @param sqlRunning whether the SQL thread runs; null when unknown (named in the message only)
   */
  public record Reading(boolean reachable, String error, boolean readOnly, boolean replicating, Boolean ioRunning,
      Boolean sqlRunning) {

    /** A poll's reading; the IO thread runs when its state is "Yes". */
    public static Reading of(Probe p) {
      return new Reading(p.reachable(), p.error(), p.readOnly(), p.replicating(),
          p.sourceIoState() == null ? null : "Yes".equalsIgnoreCase(p.sourceIoState()), p.sourceSqlRunning());
    }
  }

  /** The outcome: the source a switchover would hand over from, or why there would be none. */
  public record Outcome(String source, Refused refused) {
    public boolean accepted() {
      return refused == null;
    }

    static Outcome refuse(Refusal refusal, String message) {
      return new Outcome(null, new Refused(refusal, message));
    }
  }

  /** Rows 1-3: what needs no server. Null when the request passes them. */
  public static Refused request(SiteSpec target, String activeSite, boolean fenced) {
    String name = target.name();
    if (!target.isPrimaryCandidate()) {
      return new Refused(Refusal.NotCandidate, "site '" + name + "' has role " + target.role()
          + " and can never be primary");
    }
    if (name.equals(activeSite)) {
      return new Refused(Refusal.ActiveSite, "site '" + name + "' is already the active site: nothing to do");
    }
    if (fenced) {
      return new Refused(Refusal.Fenced, "site '" + name + "' is fenced (" + FencedSites.ANNOTATION
          + "): a fenced site is never promoted; unfence it first");
    }
    return null;
  }

  /**
   * Rows 4-12, with the servers read.
   *
   * @param readings by site name, every site that was read; a site absent was not
   */
  public static Outcome servers(GroupConfig config, String target, String activeSite, Map<String, Reading> readings) {
    Outcome source = source(config, target, activeSite, readings);
    if (!source.accepted()) {
      return source;
    }
    Refused refused = target(target, readings.get(target));
    return refused == null ? source : new Outcome(null, refused);
  }

  /** Every row in order: {@link #request}, then {@link #servers}. */
  public static Outcome evaluate(GroupConfig config, SiteSpec target, String activeSite, boolean fenced,
      Map<String, Reading> readings) {
    Refused refused = request(target, activeSite, fenced);
    return refused != null ? new Outcome(null, refused) : servers(config, target.name(), activeSite, readings);
  }

  /** Rows 4-8. */
  private static Outcome source(GroupConfig config, String target, String activeSite, Map<String, Reading> readings) {
    String source;
    if (activeSite != null) {
      if (config.site(activeSite).isEmpty()) {
        return Outcome.refuse(Refusal.NoSource, "status.activeSite '" + activeSite + "' is not a site of the spec");
      }
      source = activeSite;
    } else {
      List<String> writable = config.sites().stream().map(SiteSpec::name)
          .filter(s -> Optional.ofNullable(readings.get(s)).filter(r -> r.reachable() && !r.readOnly()).isPresent())
          .sorted()
          .toList();
      if (writable.size() != 1) {
        return Outcome.refuse(Refusal.NoSource, writable.isEmpty()
            ? "no writable primary found and status.activeSite is not set"
            : "more than one writable server " + writable + ": refusing to choose a source");
      }
      source = writable.get(0);
      if (source.equals(target)) {
        return Outcome.refuse(Refusal.ActiveSite, "site '" + target + "' is already the writable primary");
      }
    }
    Reading s = readings.get(source);
    if (s == null || !s.reachable()) {
      return Outcome.refuse(Refusal.SourceUnreachable, "source " + source + " is unreachable"
          + (s == null || s.error() == null ? "" : " (" + s.error() + ")")
          + ": a planned failover needs a live source; this is a case for emergency failover");
    }
    if (s.readOnly()) {
      return Outcome.refuse(Refusal.SourceReadOnly, "active site " + source + " is read-only (fenced?): "
          + "nothing to hand over");
    }
    return new Outcome(source, null);
  }

  /** Rows 9-12. */
  private static Refused target(String name, Reading t) {
    if (t == null) {
      return new Refused(Refusal.TargetNotRead, "target " + name + " has not been read yet");
    }
    if (!t.reachable()) {
      return new Refused(Refusal.TargetUnreachable, "target " + name + " is unreachable"
          + (t.error() == null ? "" : ": " + t.error()));
    }
    if (!t.readOnly()) {
      return new Refused(Refusal.TargetWritable, "target " + name + " is writable: refusing to create a "
          + "second primary; fence it or check for split brain first");
    }
    if (!t.replicating()) {
      return new Refused(Refusal.ReplicationStopped, "target " + name + " is not replicating" + threads(t));
    }
    return null;
  }

  /** The threads' states, as " (io thread running, sql thread stopped)"; empty when neither is known. */
  private static String threads(Reading t) {
    List<String> parts = new ArrayList<>();
    if (t.ioRunning() != null) {
      parts.add("io thread " + (t.ioRunning() ? "running" : "stopped"));
    }
    if (t.sqlRunning() != null) {
      parts.add("sql thread " + (t.sqlRunning() ? "running" : "stopped"));
    }
    return parts.isEmpty() ? "" : " (" + String.join(", ", parts) + ")";
  }
}
