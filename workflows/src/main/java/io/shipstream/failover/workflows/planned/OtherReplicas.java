package io.shipstream.failover.workflows.planned;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.model.gtid.GtidUnion;
import io.shipstream.failover.model.topology.GtidHistory;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Plan;
import java.util.List;

/**
 * What a planned failover does with the sites it neither fences nor promotes. Left where they
 * were, the replicas of the old primary get the new primary's writes only through it, and none at
 * all once it is gone (a source killed during WaitingForLag left a dr site thousands of rows
 * behind). So after the promotion each such site is read and, from what it said, one step is
 * chosen:
 *
 * <pre>
 * the site after the promotion                                   | step
 * ---------------------------------------------------------------+----------------------------------
 * could not be read                                              | report: not re-pointed
 * no replication configured                                      | report: no replica, left alone
 * replicates from the new primary, both threads running          | none: it follows it already
 * replicates from outside the group, both threads running        | none: a chain someone built
 * replicates from outside the group, a thread stopped            | report: broken, left alone
 * replicates from a site of the group, holds transactions the    | report: divergent, not re-pointed
 *   new primary lacks, or its GTID sets cannot be compared       |
 * replicates from a site of the group (the old primary, another  | re-point at the new primary
 *   replica, or the new primary with a thread stopped)           |
 * </pre>
 *
 * "Holds" counts what the site executed and what its IO thread received, compared in the sense of
 * {@link GtidHistory#missing} as the emergency catch-up does: re-pointing with GTID
 * auto-positioning fetches what the site lacks, but would keep transactions only it has beside the
 * new primary's history (MariaDB's position would even skip the new primary's transactions numbered
 * like them), and it drops the relay log. A re-pointing that fails is reported too
 * ({@link #notRepointed}). Each report names the site and what to run on it; none of them can
 * fail the failover, which has happened. Pure: no I/O, no clock.
 */
final class OtherReplicas {
  private OtherReplicas() {}

  /** What to do with one site: re-point it, or leave it, telling the operator {@code report} when not null. */
  record Step(boolean repoint, String report) {
    static final Step REPOINT = new Step(true, null);
    static final Step NONE = new Step(false, null);

    static Step report(String message) {
      return new Step(false, message);
    }
  }

  /** The sites the failover did not touch: every site but the source and the target, in spec order. */
  static List<SiteSpec> others(Plan plan) {
    return plan.config().sites().stream()
        .filter(s -> !s.name().equals(plan.source().name()) && !s.name().equals(plan.target().name()))
        .toList();
  }

  /**
   * @param state what the site said after the promotion; null counts as a site that was not read
   * @param newPrimaryGtids the new primary's executed sets since its promotion (null entries
   *     unknown): the one it was promoted at and one read after the site, so that whatever the site
   *     got from it meanwhile (through the old primary) is in them. Both count, because a MariaDB
   *     position names one GTID per domain: once the new primary has written, its position no
   *     longer names the old primary's last transaction, which its history still holds.
   */
  static Step step(Plan plan, String site, ServerState state, List<String> newPrimaryGtids) {
    String newPrimary = plan.target().name();
    if (state == null || !state.reachable()) {
      String why = state == null ? "not read" : state.error();
      return Step.report(site + " could not be read after the failover (" + why + "), so it was not re-pointed at"
          + " the new primary " + newPrimary + "; when it answers, " + repoint(plan, site, state));
    }
    if (!state.replicaConfigured()) {
      return Step.report(site + " is no replica of any server, so it receives none of " + newPrimary + "'s writes;"
          + " it was left alone: " + repoint(plan, site, state));
    }
    boolean fromGroup = plan.config().sites().stream().anyMatch(s -> isSite(s, state));
    if (!fromGroup) {
      return state.replicating() ? Step.NONE : Step.report(site + " replicates from " + describe(plan, state)
          + ", outside the group, and its replication is broken (" + threads(state) + "); it was left alone:"
          + " check SHOW " + (isMysql(state) ? "REPLICA" : "SLAVE") + " STATUS on " + site + " for the error, or "
          + repoint(plan, site, state));
    }
    if (isSite(plan.target(), state) && state.replicating()) {
      return Step.NONE;
    }
    String notRepointed = site + " was not re-pointed at the new primary " + newPrimary + ": ";
    GtidSet extra;
    try {
      extra = GtidHistory.missing(GtidUnion.of(newPrimaryGtids), GtidUnion.of(state.gtidExecuted(),
          state.gtidReceived()));
    } catch (IllegalArgumentException e) {
      return Step.report(notRepointed + "its GTID set cannot be compared with " + newPrimary + "'s (" + e.getMessage()
          + "); once it is known to hold nothing " + newPrimary + " lacks, " + repoint(plan, site, state));
    }
    if (!extra.isEmpty()) {
      return Step.report(notRepointed + "it holds " + extra.count() + " transaction(s) " + extra + " that "
          + newPrimary + " lacks (divergent); it still replicates from " + describe(plan, state)
          + " for a person to decide what becomes of them, then " + repoint(plan, site, state));
    }
    return Step.REPOINT;
  }

  /** The report of a site whose re-pointing failed, with why. */
  static String notRepointed(Plan plan, String site, ServerState state, String why) {
    return "could not point " + site + " at the new primary " + plan.target().name() + ": " + why + "; "
        + repoint(plan, site, state);
  }

  /** Whether the replica's source is this site's MySQL endpoint, as the spec names it. */
  static boolean isSite(SiteSpec site, ServerState state) {
    return site.mysql().host().equalsIgnoreCase(state.sourceHost())
        && state.sourcePort() != null && state.sourcePort() == GroupConfig.mysqlPort(site);
  }

  /** The replica's source, by site name when the spec knows it, else as host:port. */
  private static String describe(Plan plan, ServerState state) {
    String endpoint = state.sourceHost() + ":" + state.sourcePort();
    return plan.config().sites().stream().filter(s -> isSite(s, state)).findFirst()
        .map(s -> s.name() + " (" + endpoint + ")").orElse(endpoint);
  }

  private static String threads(ServerState state) {
    return "IO thread " + (state.ioThreadRunning() ? "running" : "not running") + ", SQL thread "
        + (state.sqlThreadRunning() ? "running" : "not running");
  }

  /** What to run on the replica, in its flavor's words when it told us its flavor. */
  private static String repoint(Plan plan, String site, ServerState state) {
    SiteSpec target = plan.target();
    String host = target.mysql().host();
    int port = GroupConfig.mysqlPort(target);
    String advice = "point " + site + " at " + target.name() + " (" + host + ":" + port + ") with GTID positioning";
    if (isMysql(state)) {
      return advice + ": STOP REPLICA; CHANGE REPLICATION SOURCE TO SOURCE_HOST='" + host + "', SOURCE_PORT=" + port
          + ", SOURCE_AUTO_POSITION=1; START REPLICA";
    }
    if (state != null && state.flavor() != null && state.flavor().equalsIgnoreCase("MariaDB")) {
      return advice + ": STOP SLAVE; CHANGE MASTER TO MASTER_HOST='" + host + "', MASTER_PORT=" + port
          + ", MASTER_USE_GTID=slave_pos; START SLAVE";
    }
    return advice;
  }

  private static boolean isMysql(ServerState state) {
    return state != null && state.flavor() != null && state.flavor().equalsIgnoreCase("MySQL");
  }
}
