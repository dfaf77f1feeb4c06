package io.shipstream.failover.model.topology;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.shipstream.failover.model.Reason;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The group's conditions, by the Kubernetes API conventions, from what the watcher knows: pure,
 * so every case is tested without a cluster. {@code kubectl wait --for=condition=Ready} is the
 * user's handle.
 *
 * <pre>
 * | condition   | True when                                         | False reasons                              |
 * |-------------|---------------------------------------------------|--------------------------------------------|
 * | Ready       | the spec is valid, the group has an active site,  | InvalidSpec, Adopting, the adoption's      |
 * |             | no failover runs, and the active site's server    |   cause (SeveralWritable, ...), Failover-  |
 * |             | is the one writable primary (Healthy, Degraded)   |   InProgress, the verdict (NoPrimary, ...) |
 * | Progressing | a failover workflow runs (FailoverInProgress)     | Idle                                       |
 * | Degraded    | the primary is writable but something is wrong:   | AsExpected                                 |
 * |             |   a site unreachable, a replica not replicating   |                                            |
 * |             |   (SitesImpaired), routing that could not be set  |                                            |
 * |             |   right (RoutingIncomplete), a server configured  |                                            |
 * |             |   to start writable (ServerStartsWritable), an    |                                            |
 * |             |   invalid promote-anyway annotation               |                                            |
 * |             |   (PromoteAnywayRejected), a primary fallen back  |                                            |
 * |             |   from semi-sync to async (SemiSyncFallenBack,    |                                            |
 * |             |   whose reason prevails), a replication thread a  |                                            |
 * |             |   human stopped without an error (Replication-    |                                            |
 * |             |   Stopped, prevails: {@link Recovery#stoppedByHand})|                                          |
 * |             |   ; or the primary is lost:                       |                                            |
 * |             |   unreachable and not (yet) failed over, or every |                                            |
 * |             |   site gone (PrimaryLost: Blocked, Promote,       |                                            |
 * |             |   TotalLoss verdicts)                             |                                            |
 * | SearchAttri-| the Temporal namespace has every failover search  | Missing (the names in the message);        |
 * | butesRegis- |   attribute (Registered)                          |   Unknown/CannotList while they could not  |
 * | tered       |                                                   |   be listed (Temporal's Java test server)  |
 * | Paused      | a DBA paused the group's automation               | Automatic                                  |
 * |             |   ({@link PauseAnnotation}: PausedByAnnotation)   |                                            |
 * | Fenced      | a DBA fenced sites ({@link FencedSites}:          | NoneFenced                                 |
 * |             |   FencedByAnnotation, the sites in the message;   |                                            |
 * |             |   ActiveSiteFenced when the active site is one:   |                                            |
 * |             |   the group's writes are stopped)                 |                                            |
 * </pre>
 *
 * <p>{@code SearchAttributesRegistered} is an observability gap only: failovers start and run
 * without the missing attributes (they just cannot be found by them in the Temporal UI), so it
 * never makes the group not Ready nor Degraded.
 *
 * <p>A condition keeps its {@code lastTransitionTime} while its status stays the same, whatever
 * its reason or message do.
 */
public final class GroupConditions {
  public static final String READY = "Ready";
  public static final String PROGRESSING = "Progressing";
  public static final String DEGRADED = "Degraded";
  public static final String SEARCH_ATTRIBUTES = "SearchAttributesRegistered";
  public static final String PAUSED = "Paused";
  public static final String FENCED = "Fenced";

  private GroupConditions() {}

  /**
   * What the conditions are computed from.
   *
   * @param invalidSpec every problem of the spec, joined; null when it is valid
   * @param activeSite the recorded active site; null before adoption
   * @param adoption why the group is not adopted yet (a Wait or an Ambiguous decision); null once it is
   * @param failoverRunning whether a failover workflow runs
   * @param verdict the matrix's verdict on the latest polls; null when not evaluated
   * @param problems what else is wrong while the primary takes writes: routing the watcher could
   *     not set right (a taint the group's own pods do not tolerate), a server configured to start
   *     writable
   */
  public record Facts(String invalidSpec, String activeSite, Adoption.Decision adoption, boolean failoverRunning,
      Verdict verdict, List<Problem> problems, SearchAttributeCheck searchAttributes, boolean paused,
      List<String> fenced) {
    public Facts {
      fenced = fenced == null ? List.of() : List.copyOf(fenced);
      problems = problems == null ? List.of() : List.copyOf(problems);
      searchAttributes = searchAttributes == null ? SearchAttributeCheck.unknown("not checked") : searchAttributes;
    }

    /** The facts of the group itself; the search attributes are not checked (Unknown), the group not paused. */
    public Facts(String invalidSpec, String activeSite, Adoption.Decision adoption, boolean failoverRunning,
        Verdict verdict, List<Problem> problems) {
      this(invalidSpec, activeSite, adoption, failoverRunning, verdict, problems, null, false, null);
    }

    public Facts withSearchAttributes(SearchAttributeCheck check) {
      return new Facts(invalidSpec, activeSite, adoption, failoverRunning, verdict, problems, check, paused, fenced);
    }

    /** The group's automation is paused ({@link PauseAnnotation}). */
    public Facts withPaused(boolean paused) {
      return new Facts(invalidSpec, activeSite, adoption, failoverRunning, verdict, problems, searchAttributes, paused,
          fenced);
    }

    /** The sites a DBA fenced ({@link FencedSites}), as the watcher accepted them. */
    public Facts withFenced(List<String> sites) {
      return new Facts(invalidSpec, activeSite, adoption, failoverRunning, verdict, problems, searchAttributes, paused,
          sites);
    }
  }

  /**
   * What the watcher knows of the Temporal namespace's failover search attributes (the same for
   * every group it watches).
   *
   * @param missing the attributes the namespace lacks, empty when it has them all; null when they
   *     could not be listed
   * @param why why they could not be listed; null when they were
   */
  public record SearchAttributeCheck(java.util.Set<String> missing, String why) {
    public SearchAttributeCheck {
      missing = missing == null ? null : java.util.Set.copyOf(new java.util.TreeSet<>(missing));
    }

    public static SearchAttributeCheck listed(java.util.Set<String> missing) {
      return new SearchAttributeCheck(missing, null);
    }

    public static SearchAttributeCheck unknown(String why) {
      return new SearchAttributeCheck(null, why);
    }
  }

  /**
   * One thing that degrades the group: the condition's reason and a sentence for its message.
   * {@code prevails}: its reason is the condition's even when the verdict also says Degraded (a
   * primary fallen back to asynchronous replication loses acknowledged writes on the next
   * emergency failover, which matters more than which site is impaired).
   */
  public record Problem(String reason, String message, boolean prevails) {
    public Problem(String reason, String message) {
      this(reason, message, false);
    }
  }

  /** The six conditions, each carrying over its transition time from {@code previous} when its status holds. */
  public static List<Condition> compute(Facts facts, List<Condition> previous, Instant now, Long generation) {
    List<Condition> out = new ArrayList<>();
    out.add(carry(ready(facts), previous, now, generation));
    out.add(carry(facts.failoverRunning()
        ? of(PROGRESSING, true, "FailoverInProgress", "a failover workflow runs; it alone changes routing meanwhile")
        : of(PROGRESSING, false, "Idle", "no failover runs"), previous, now, generation));
    out.add(carry(degraded(facts), previous, now, generation));
    out.add(carry(searchAttributes(facts.searchAttributes()), previous, now, generation));
    out.add(carry(facts.paused() ? of(PAUSED, true, "PausedByAnnotation", PauseAnnotation.pausedMessage())
        : of(PAUSED, false, "Automatic", "failovers, fences and routing repairs happen as the group needs them"),
        previous, now, generation));
    out.add(carry(fenced(facts), previous, now, generation));
    return out;
  }

  private static Condition fenced(Facts f) {
    if (f.fenced().isEmpty()) {
      return of(FENCED, false, "NoneFenced", "no site is fenced");
    }
    boolean active = f.activeSite() != null && f.fenced().contains(f.activeSite());
    return of(FENCED, true, active ? "ActiveSiteFenced" : "FencedByAnnotation",
        FencedSites.fencedMessage(f.fenced(), f.activeSite()));
  }

  private static Condition searchAttributes(SearchAttributeCheck c) {
    if (c.missing() == null) {
      return new ConditionBuilder().withType(SEARCH_ATTRIBUTES).withStatus("Unknown").withReason("CannotList")
          .withMessage("the Temporal namespace's search attributes could not be listed (" + c.why() + "); failovers "
              + "start and run without the ones that are missing")
          .build();
    }
    if (!c.missing().isEmpty()) {
      return of(SEARCH_ATTRIBUTES, false, "Missing", "the Temporal namespace lacks the search attributes "
          + new java.util.TreeSet<>(c.missing()) + ": failovers start and run without them, but cannot be found by "
          + "them in the Temporal UI; register them (temporal operator search-attribute create, or let the worker "
          + "register them at start-up)");
    }
    return of(SEARCH_ATTRIBUTES, true, "Registered", "the Temporal namespace has every search attribute the "
        + "failovers set");
  }

  private static Condition ready(Facts f) {
    if (f.invalidSpec() != null) {
      return of(READY, false, Reason.InvalidSpec.name(), f.invalidSpec());
    }
    if (f.activeSite() == null) {
      if (f.adoption() instanceof Adoption.Ambiguous a) {
        return of(READY, false, a.cause(), a.reason() + "; to name the primary: kubectl annotate mysqlfailovergroup"
            + " <name> " + Adoption.ANNOTATION + "=<site>");
      }
      String why = f.adoption() instanceof Adoption.Wait w ? w.reason() : "no site has been polled yet";
      return of(READY, false, "Adopting", "no active site is recorded yet: " + why);
    }
    if (f.failoverRunning()) {
      return of(READY, false, "FailoverInProgress", "a failover workflow runs");
    }
    Verdict v = f.verdict();
    if (v instanceof Verdict.Healthy h) {
      return of(READY, true, "PrimaryWritable", h.primary() + " is the writable primary");
    }
    if (v instanceof Verdict.Degraded d) {
      return of(READY, true, "PrimaryWritable", d.primary() + " is the writable primary");
    }
    if (v == null) {
      return of(READY, false, "Observing", "the sites have not all been polled yet");
    }
    return of(READY, false, v.getClass().getSimpleName(), describe(v));
  }

  private static Condition degraded(Facts f) {
    String others = String.join("; ", f.problems().stream().map(Problem::message).toList());
    Problem prevailing = f.problems().stream().filter(Problem::prevails).findFirst().orElse(null);
    if (prevailing != null) {
      return of(DEGRADED, true, prevailing.reason(), others
          + (f.verdict() instanceof Verdict.Degraded d ? "; " + d.reason() : ""));
    }
    if (f.verdict() instanceof Verdict.Degraded d) {
      return of(DEGRADED, true, "SitesImpaired", d.reason() + (others.isEmpty() ? "" : "; " + others));
    }
    String lost = primaryLost(f.verdict()) ? describe(f.verdict()) : null;
    if (!f.problems().isEmpty()) {
      // A problem keeps its reason (a refused annotation is what a DBA must correct: the convention
      // for bad input), and the message still says that the primary is lost.
      return of(DEGRADED, true, f.problems().get(0).reason(), others + (lost == null ? "" : "; " + lost));
    }
    if (lost != null) {
      // A dead primary that is not failed over: Ready is False too, and Degraded must not say all is well.
      return of(DEGRADED, true, "PrimaryLost", lost);
    }
    if (f.verdict() == null || f.verdict() instanceof Verdict.Healthy) {
      return of(DEGRADED, false, "AsExpected", "every site answers and every replica replicates");
    }
    // No writable primary, but none lost either (alive read-only, fenced, awaiting a verdict) or a
    // site the matrix is fencing: Ready says which; nothing here may claim that all is well.
    return of(DEGRADED, false, "AsExpected", "no primary is lost; see Ready for why the group does not take writes "
        + "as it should");
  }

  /** The verdicts of an active site that is unreachable (and not failed over yet) or of every site gone. */
  private static boolean primaryLost(Verdict v) {
    return v instanceof Verdict.Blocked || v instanceof Verdict.Promote || v instanceof Verdict.TotalLoss;
  }

  private static String describe(Verdict v) {
    if (v instanceof Verdict.NoPrimary n) {
      return n.reason();
    }
    if (v instanceof Verdict.TotalLoss t) {
      return t.reason();
    }
    if (v instanceof Verdict.SplitBrain s) {
      return s.reason();
    }
    if (v instanceof Verdict.Blocked b) {
      return b.cause() + ": " + b.reason();
    }
    if (v instanceof Verdict.Promote p) {
      return p.reason();
    }
    if (v instanceof Verdict.FenceNonPromotable f) {
      return f.reason();
    }
    return v.toString();
  }

  private static Condition of(String type, boolean status, String reason, String message) {
    return new ConditionBuilder().withType(type).withStatus(status ? "True" : "False").withReason(reason)
        .withMessage(message).build();
  }

  private static Condition carry(Condition next, List<Condition> previous, Instant now, Long generation) {
    String since = now.toString();
    if (previous != null) {
      for (Condition p : previous) {
        if (next.getType().equals(p.getType()) && Objects.equals(next.getStatus(), p.getStatus())
            && p.getLastTransitionTime() != null) {
          since = p.getLastTransitionTime();
        }
      }
    }
    next.setLastTransitionTime(since);
    next.setObservedGeneration(generation);
    return next;
  }

  /** Whether two lists say the same, transition times aside: a write is due only then. */
  public static boolean sameExceptTimes(List<Condition> a, List<Condition> b) {
    if (a == null || b == null || a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      Condition x = a.get(i);
      Condition y = b.get(i);
      if (!Objects.equals(x.getType(), y.getType()) || !Objects.equals(x.getStatus(), y.getStatus())
          || !Objects.equals(x.getReason(), y.getReason()) || !Objects.equals(x.getMessage(), y.getMessage())
          || !Objects.equals(x.getObservedGeneration(), y.getObservedGeneration())) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether {@code a} and {@code b} say the same about a failover run: the status and reason of
   * Ready and Progressing. While a run owns the group's status, the watcher writes its conditions
   * only when these change (the run began), and the rest once the run has ended.
   */
  public static boolean sameRunConditions(List<Condition> a, List<Condition> b) {
    for (String type : List.of(READY, PROGRESSING)) {
      Condition x = find(a, type);
      Condition y = find(b, type);
      if (x == null || y == null || !Objects.equals(x.getStatus(), y.getStatus())
          || !Objects.equals(x.getReason(), y.getReason())) {
        return false;
      }
    }
    return true;
  }

  private static Condition find(List<Condition> conditions, String type) {
    return conditions == null ? null
        : conditions.stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
  }
}
