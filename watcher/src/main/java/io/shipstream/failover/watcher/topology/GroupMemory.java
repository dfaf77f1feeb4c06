package io.shipstream.failover.watcher.topology;

import java.time.Instant;
import java.util.List;

/**
 * What the steps of the monitor's per-group pass keep about one watched group between its passes,
 * each step its own slice. The monitor makes one when the group's polls start and drops it when
 * they stop (a spec change restarts them with a new one): forgetting the group is dropping its
 * memory, in one place, and a step keeps no map of groups of its own to forget them from.
 *
 * <p>Not here, kept by their steps: what outlives a restart of the polls or is written outside the
 * pass ({@link StartupChecks}, a {@link DrainWatch} episode, the Events {@link GroupUpkeep} writes
 * for a group that is not watched, the one sidecar request in flight per group of {@link
 * LeaseFenceLifts}), and the meters of {@link TopologyMetrics}.
 */
public final class GroupMemory {
  /** {@link GroupUpkeep#keepRouting}: when the routing was last looked at, and what could not be set right then. */
  volatile Instant routedAt;
  volatile List<String> routingProblems = List.of();
  /** {@link SemiSyncKeeper}'s slice. */
  final SemiSyncKeeper.Memory semiSync = new SemiSyncKeeper.Memory();
  /** {@link OldPrimaryRecovery}'s slice. */
  final OldPrimaryRecovery.Memory recovery = new OldPrimaryRecovery.Memory();
  /** {@link VerdictReactions}' slice: the alerts, the pause and the cut-off primary last reported. */
  final VerdictReactions.Memory reactions = new VerdictReactions.Memory();
  /** {@link LeaseFenceLifts}' slice. */
  final LeaseFenceLifts.Memory leaseFences = new LeaseFenceLifts.Memory();
  /** {@link SiteFences}' slice. */
  final SiteFences.Memory fences = new SiteFences.Memory();
  /** {@link PlannedRunHandOffs}: the planned run last told that its source is dead (told once); null: none. */
  volatile String handedOff;
  /** {@link PromoteAnywayRequests}: the promote-anyway value last rejected or spent (each handled once); null: none. */
  volatile String promoteAnywayHandled;
}
