package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.gtid.GtidSet;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * {@code spec.plannedFailover.onActiveNodeDrain: switchover}: when a node under the active site's
 * MySQL pod is cordoned (the first thing {@code kubectl drain} does), the watcher requests a planned
 * failover to the best candidate, as a person would with the planned-failover annotation; the
 * planned runbook then validates it, honours the cooldown, and moves the primary with nothing lost.
 * A PodDisruptionBudget on the primary pod holds the drain's eviction meanwhile (see the README's
 * "Day-2 controls").
 *
 * <p>Pure: the watcher finds the cordoned nodes and acts on the outcome (the annotation and an
 * Event, once per cordon episode). First matching row wins:
 *
 * <pre>
 * | # | situation                                                          | outcome                         |
 * |---|--------------------------------------------------------------------|---------------------------------|
 * | 1 | onActiveNodeDrain is none, or no active site recorded              | Nothing                         |
 * | 2 | no node under the active site's pods is cordoned                   | Nothing                         |
 * | 3 | a planned-failover request is present, or a failover runs          | Nothing (it moves the primary,  |
 * |   |                                                                    |   or the drain waits for it)    |
 * | 3b| the active site is fenced ({@link FencedSites}): its writes are    | Nothing                         |
 * |   |   stopped on purpose, and a switchover would resume them elsewhere |                                 |
 * | 4 | no primary-candidate but the active site, not fenced               | Impossible(why, per site)       |
 * |   |   ({@link FencedSites}), answered its latest poll read-only and    |                                 |
 * |   |   replicating                                                      |                                 |
 * | 5 | the group is paused ({@link PauseAnnotation})                      | Held(best, why)                 |
 * | 6 | otherwise                                                          | Request(best, why)              |
 * </pre>
 *
 * <p>The best candidate: of those of row 4's eligible sites, the one missing the fewest of the
 * active site's transactions (its executed set against the active site's latest known one), then
 * the lowest {@code secondsBehindSource}, then the first in spec order.
 */
public final class DrainSwitchover {
  private DrainSwitchover() {}

  /**
   * @param config the group's resolved spec
   * @param activeSite {@code status.activeSite}; null before adoption
   * @param cordonedNodes the cordoned nodes the active site's pods run on (empty: none)
   * @param sites the watcher's observations, by site
   * @param requestPresent whether the group carries a planned-failover annotation
   * @param failoverRunning whether a planned or emergency failover runs
   * @param paused whether the group is paused
   * @param fenced the sites a DBA fenced ({@link FencedSites}): never switched over to
   */
  public record Input(GroupConfig config, String activeSite, List<String> cordonedNodes,
      Map<String, SiteObservation> sites, boolean requestPresent, boolean failoverRunning, boolean paused,
      List<String> fenced) {
    public Input {
      fenced = fenced == null ? List.of() : List.copyOf(fenced);
    }

    /** Without fenced sites. */
    public Input(GroupConfig config, String activeSite, List<String> cordonedNodes, Map<String, SiteObservation> sites,
        boolean requestPresent, boolean failoverRunning, boolean paused) {
      this(config, activeSite, cordonedNodes, sites, requestPresent, failoverRunning, paused, null);
    }
  }

  /** What to do about a cordoned node under the active site. */
  public sealed interface Outcome permits Nothing, Request, Impossible, Held {}

  /** Nothing to do (rows 1-3). */
  public record Nothing(String why) implements Outcome {}

  /** Request a planned failover to {@code target} (row 6). */
  public record Request(String target, String why) implements Outcome {}

  /** No site can take over: a Warning, and the drain stays held by the budget (row 4). */
  public record Impossible(String why) implements Outcome {}

  /** Paused: what would have been requested (row 5). */
  public record Held(String target, String why) implements Outcome {}

  public static Outcome decide(Input in) {
    if (in.config().onActiveNodeDrain() != GroupConfig.OnActiveNodeDrain.switchover || in.activeSite() == null) {
      return new Nothing("no switchover on drain");
    }
    if (in.cordonedNodes().isEmpty()) {
      return new Nothing("no node of the active site is cordoned");
    }
    if (in.requestPresent() || in.failoverRunning()) {
      return new Nothing("a planned-failover request is present or a failover runs");
    }
    if (in.fenced().contains(in.activeSite())) {
      return new Nothing("the active site is fenced: its writes are stopped on purpose");
    }
    String nodes = (in.cordonedNodes().size() == 1 ? "node " : "nodes ") + String.join(", ", in.cordonedNodes());
    String cordoned =
        nodes + " of the active site " + in.activeSite() + (in.cordonedNodes().size() == 1 ? " is" : " are")
            + " cordoned";
    GtidSet primary = gtid(in.sites().get(in.activeSite()));
    List<Ranked> eligible = new ArrayList<>();
    List<String> refused = new ArrayList<>();
    List<SiteSpec> declared = in.config().sites();
    for (int i = 0; i < declared.size(); i++) {
      SiteSpec site = declared.get(i);
      if (site.name().equals(in.activeSite()) || !site.isPrimaryCandidate()) {
        continue;
      }
      SiteObservation o = in.sites().get(site.name());
      if (in.fenced().contains(site.name())) {
        refused.add(site.name() + " is fenced (" + FencedSites.ANNOTATION + ")");
      } else if (o == null || !o.answeringNow()) {
        refused.add(site.name() + " did not answer its latest poll");
      } else if (!o.latest().readOnly()) {
        refused.add(site.name() + " is writable");
      } else if (!o.latest().replicating()) {
        refused.add(site.name() + " does not replicate");
      } else {
        eligible.add(new Ranked(site.name(), missing(primary, o.latest().gtidExecuted()),
            o.latest().secondsBehindSource() == null ? Long.MAX_VALUE : o.latest().secondsBehindSource(), i));
      }
    }
    if (eligible.isEmpty()) {
      return new Impossible(cordoned + ", but no site can take over: " + (refused.isEmpty()
          ? "there is no other primary-candidate" : String.join("; ", refused))
          + "; nothing was requested, and the drain waits (its PodDisruptionBudget holds the primary pod) until a "
          + "candidate replicates again or the node is uncordoned");
    }
    Ranked best = eligible.stream().min(Comparator.comparingLong(Ranked::missing)
        .thenComparingLong(Ranked::behind).thenComparingInt(Ranked::order)).orElseThrow();
    String why = cordoned + ": switching over to " + best.site() + " ("
        + (best.missing() == Long.MAX_VALUE ? "how many transactions it lacks is unknown"
            : "it lacks " + best.missing() + " transaction(s) of " + in.activeSite())
        + (best.behind() == Long.MAX_VALUE ? "" : ", " + best.behind() + " s behind") + ")";
    if (in.paused()) {
      return new Held(best.site(), why);
    }
    return new Request(best.site(), why);
  }

  private record Ranked(String site, long missing, long behind, int order) {}

  private static GtidSet gtid(SiteObservation o) {
    if (o == null || o.lastReachable() == null || o.lastReachable().gtidExecuted() == null) {
      return null;
    }
    try {
      return GtidSet.parse(o.lastReachable().gtidExecuted());
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** How many of the primary's transactions {@code executed} lacks; unknown ranks last. */
  private static long missing(GtidSet primary, String executed) {
    if (primary == null) {
      return Long.MAX_VALUE;
    }
    try {
      return primary.subtract(GtidSet.parse(executed)).count();
    } catch (IllegalArgumentException e) {
      return Long.MAX_VALUE;
    }
  }
}
