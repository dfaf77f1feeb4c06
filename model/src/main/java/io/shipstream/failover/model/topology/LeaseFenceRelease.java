package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.gtid.GtidSet;
import java.util.Map;
import java.util.Objects;

/**
 * Whether the watcher lifts the lease fence of the active site's primary: its sidecar heard from
 * neither the watcher nor any peer for longer than its lease and fenced it (rule 2), the contact
 * came back before anybody failed over, and since the sidecar never lifts a read-only someone set
 * by a statement, the group would otherwise stay without a writable primary until a human acts
 * (the matrix's row 12b never fails over from a live primary). Pure, so every row is tested
 * without a server.
 *
 * <p>The rows, checked top to bottom; the first that matches decides. "a" is {@code
 * status.activeSite}.
 *
 * <pre>
 * | #  | condition                                                          | decision                        |
 * |----|--------------------------------------------------------------------|---------------------------------|
 * | 1  | no active site recorded, or a is not a site of the spec             | Keep (nothing to lift)          |
 * | 1b | a is fenced by a DBA (status.fencedSites, {@link FencedSites})      | Keep: writes stopped on purpose |
 * | 2  | a's latest poll did not answer read-only                           | Keep (nothing to lift)          |
 * | 3  | a failover workflow runs                                          | Keep: it decides what a becomes |
 * | 4  | a replicates from a source (a channel is configured)               | Keep: a is somebody's replica   |
 * | 5  | another site's latest poll did not answer, or answered writable    | Keep: the group's state is not  |
 * |    |                                                                    |   known, or has another primary |
 * | 6  | a GTID set cannot be read or compared                             | Keep                            |
 * | 7  | another site holds a transaction a lacks                           | Keep: a site was written past a |
 * | 8  | a's sidecar did not answer (or has no URL)                         | Keep: what fenced a is unknown  |
 * | 9  | a's sidecar's own fence that stands is not rule 2                  | Keep: a failover's, an          |
 * |    |                                                                    |   operator's or a boot fence    |
 * | 10 | a's sidecar's lease has not come back                              | Keep: it would fence again      |
 * | 11 | otherwise                                                          | Lift(a)                         |
 * </pre>
 *
 * <p>Rule 2 fences a primary that may be cut off from the sites that could replace it; once its
 * sidecar hears from them again, no failover ran (row 3: the watcher asks again under the lock its
 * failover starts take, so none can begin between the check and the lift) and every other site is
 * a read-only replica holding nothing the primary lacks (rows 5-7), the fence protects nothing and
 * only stops the application's writes. A pause holds the lift like any other action (the caller).
 */
public final class LeaseFenceRelease {
  private LeaseFenceRelease() {}

  /** What a site's sidecar said on {@code GET /status}: the rule of its own standing fence (null: none), its lease. */
  public record SidecarFence(String ownFence, boolean leaseLive) {}

  /** The outcome. */
  public sealed interface Decision permits Keep, Lift {
    String reason();
  }

  /** Leave the read-only as it is. {@code askSidecar}: rows 1-7 allow a lift, only the sidecar's answer is missing. */
  public record Keep(String reason, boolean askSidecar) implements Decision {}

  /** Make the active site's primary writable again. */
  public record Lift(String site, String reason) implements Decision {}

  /**
   * Decides.
   *
   * @param fencedSites the sites a DBA fenced ({@code status.fencedSites}); null: none
   * @param sidecar what the active site's sidecar said, null when it did not answer or was not asked
   */
  public static Decision decide(GroupConfig config, Map<String, SiteObservation> sites, String activeSite,
      java.util.Collection<String> fencedSites, boolean failoverRunning, SidecarFence sidecar) {
    Objects.requireNonNull(config, "config");
    if (activeSite == null || config.site(activeSite).isEmpty()) {
      return keep("no active site of the spec is recorded");
    }
    if (fencedSites != null && fencedSites.contains(activeSite)) {
      return keep("the active site '" + activeSite + "' is fenced by a DBA (" + FencedSites.ANNOTATION + ")");
    }
    Probe active = latest(sites, activeSite);
    if (active == null || !active.reachable() || !active.readOnly()) {
      return keep("the active site '" + activeSite + "' did not answer read-only");
    }
    if (failoverRunning) {
      return keep("a failover runs: it decides what '" + activeSite + "' becomes");
    }
    if (active.replicating() || active.sourceServerId() != null) {
      return keep("the active site '" + activeSite + "' replicates from a source");
    }
    GtidSet held;
    try {
      held = GtidSet.parse(active.gtidExecuted());
    } catch (RuntimeException e) {
      return keep("the GTID set of '" + activeSite + "' cannot be read: " + e.getMessage());
    }
    for (SiteSpec other : config.sites()) {
      if (other.name().equals(activeSite)) {
        continue;
      }
      Probe p = latest(sites, other.name());
      if (p == null || !p.reachable()) {
        return keep("site '" + other.name() + "' did not answer its latest poll");
      }
      if (!p.readOnly()) {
        return keep("site '" + other.name() + "' is writable");
      }
      GtidSet theirs;
      try {
        theirs = GtidSet.parse(p.gtidExecuted());
        GtidSet lacking = GtidHistory.missing(held, theirs);
        if (!lacking.isEmpty()) {
          return keep("site '" + other.name() + "' holds " + lacking.count() + " transaction(s) the active site '"
              + activeSite + "' lacks (" + lacking + ")");
        }
      } catch (RuntimeException e) {
        return keep("the GTID sets of '" + other.name() + "' and '" + activeSite + "' cannot be compared: "
            + e.getMessage());
      }
    }
    if (sidecar == null) {
      return new Keep("the sidecar of '" + activeSite + "' has not said what fenced it", true);
    }
    if (!"rule2".equals(sidecar.ownFence())) {
      return keep("the read-only of '" + activeSite + "' is not its sidecar's lease fence ("
          + (sidecar.ownFence() == null ? "the sidecar did not fence it" : "its fence is " + sidecar.ownFence()) + ")");
    }
    if (!sidecar.leaseLive()) {
      return keep("the sidecar of '" + activeSite + "' still hears from neither the watcher nor any peer");
    }
    return new Lift(activeSite, "the sidecar of '" + activeSite + "' fenced it when it heard from neither the "
        + "watcher nor any peer for longer than its lease; contact is back, no failover ran, and every other site is a "
        + "read-only replica holding nothing '" + activeSite + "' lacks: it takes writes again");
  }

  private static Keep keep(String reason) {
    return new Keep(reason, false);
  }

  private static Probe latest(Map<String, SiteObservation> sites, String site) {
    SiteObservation o = sites.get(site);
    return o == null ? null : o.latest();
  }
}
