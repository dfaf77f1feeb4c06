package io.shipstream.failover.workflows.planned;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Plan;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a planned failover leaves behind on the sites it neither fences nor promotes. The runbook
 * re-points only the old primary, so every other replica still replicates from wherever it did
 * before; when that is the old primary, it gets the new primary's writes only through the old one,
 * and none at all once the old one is gone (a source killed during WaitingForLag left a dr site
 * thousands of rows behind, silently). This decides, from each such site's state read after the
 * promotion, what the operator must be told:
 *
 * <pre>
 * the site after the promotion                                 | finding
 * -------------------------------------------------------------+-----------------------------------
 * replicates from the new primary, both threads running        | none
 * replicates from another server, both threads running         | none (a chain someone built)
 * replicates from the old primary, both threads running        | depends on the old primary
 * replicates from the old primary, a thread stopped            | gets none of the new writes
 * replicates from anywhere else, a thread stopped              | replication broken
 * no replication configured                                    | not a replica
 * could not be read                                            | unknown
 * </pre>
 *
 * Each finding names the site, what it replicates from and what to run on it. None of them can
 * fail the failover, which has happened. Pure: no I/O, no clock.
 */
final class ReplicasLeftBehind {
  /** The Event reason of every finding. */
  static final String REASON = "ReplicaNotRepointed";

  private ReplicasLeftBehind() {}

  /** The sites the failover did not touch: every site but the source and the target, in spec order. */
  static List<SiteSpec> others(Plan plan) {
    return plan.config().sites().stream()
        .filter(s -> !s.name().equals(plan.source().name()) && !s.name().equals(plan.target().name()))
        .toList();
  }

  /**
   * One message per site of {@link #others} that needs a person, in spec order. {@code states}
   * holds what each of them said after the promotion, by site name; a site missing from it counts
   * as one that could not be read.
   */
  static List<String> findings(Plan plan, Map<String, ServerState> states) {
    List<String> findings = new ArrayList<>();
    for (SiteSpec site : others(plan)) {
      ServerState state = states.getOrDefault(site.name(), ServerState.unreachable(site.name(), "not read"));
      finding(plan, site.name(), state).ifPresent(findings::add);
    }
    return findings;
  }

  private static Optional<String> finding(Plan plan, String site, ServerState state) {
    String oldPrimary = plan.source().name();
    String newPrimary = plan.target().name();
    if (!state.reachable()) {
      return Optional.of(site + " could not be read after the failover (" + state.error() + "), so whether it"
          + " replicates from the new primary " + newPrimary + " is unknown; if it still replicates from the old"
          + " primary " + oldPrimary + ", " + repoint(plan, site, state));
    }
    if (!state.replicaConfigured()) {
      return Optional.of(site + " is no replica of any server, so it receives none of " + newPrimary + "'s writes; "
          + repoint(plan, site, state));
    }
    String from = describe(plan, state);
    boolean fromOldPrimary = isSite(plan.source(), state);
    if (state.replicating()) {
      if (!fromOldPrimary) {
        return Optional.empty();
      }
      return Optional.of(site + " still replicates from the old primary " + from + ", not from the new primary "
          + newPrimary + ": it gets " + newPrimary + "'s writes only through " + oldPrimary + ", and only while "
          + oldPrimary + " replicates from " + newPrimary + " and logs what it applies (log_slave_updates); "
          + repoint(plan, site, state));
    }
    String broken = "its replication is broken (" + threads(state) + ")";
    if (fromOldPrimary) {
      return Optional.of(site + " still replicates from the old primary " + from + " and " + broken
          + ", so it receives none of " + newPrimary + "'s writes; " + repoint(plan, site, state));
    }
    return Optional.of(site + " replicates from " + from + " but " + broken + ", so it receives none of "
        + newPrimary + "'s writes; check SHOW " + (isMysql(state) ? "REPLICA" : "SLAVE") + " STATUS on " + site
        + " for the error, then " + repoint(plan, site, state));
  }

  /** Whether the replica's source is this site's MySQL endpoint, as the spec names it. */
  private static boolean isSite(SiteSpec site, ServerState state) {
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
    if (state.flavor() != null && state.flavor().equalsIgnoreCase("MariaDB")) {
      return advice + ": STOP SLAVE; CHANGE MASTER TO MASTER_HOST='" + host + "', MASTER_PORT=" + port
          + ", MASTER_USE_GTID=slave_pos; START SLAVE";
    }
    return advice;
  }

  private static boolean isMysql(ServerState state) {
    return state.flavor() != null && state.flavor().equalsIgnoreCase("MySQL");
  }
}
