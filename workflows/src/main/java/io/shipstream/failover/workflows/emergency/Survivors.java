package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.shipstream.failover.workflows.activities.MysqlActivities.StoppedReplica;
import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.common.ActivityStubs;
import io.shipstream.failover.workflows.common.ChannelReadBack;
import io.shipstream.failover.workflows.common.FailoverRun;
import io.shipstream.failover.workflows.common.Failures;
import io.shipstream.failover.workflows.common.ReplicaRepointing;
import io.shipstream.failover.workflows.contract.Events;
import io.shipstream.failover.workflows.contract.FailureTypes;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The servers of an emergency failover besides the failed primary and the candidate: the other
 * replicas, whatever their role. Before promotion they are read and, when one holds transactions
 * of the dead primary the candidate never received, the candidate catches up from it
 * ({@link CatchUpPlan}); after promotion every one that answered is pointed at the new primary.
 * Nothing here can fail the failover: a survivor that cannot help or be re-pointed is a warning.
 * A site the watcher holds back for divergent transactions ({@code status.sites[].divergentGtid},
 * a RecoveryBlocked old primary) is left alone: it is neither a donor nor re-pointed, and its
 * transactions are not counted as lost by this failover. Workflow code: it runs on the workflow
 * thread and does its I/O through activities.
 */
final class Survivors {
  private final EmergencyPlan plan;
  private final MysqlActivities mysql;
  /** Findings reach the status message and the Events through these: (reason, message). */
  private final Report warn;
  private final Report inform;
  private final Set<String> divergent;
  private final java.util.function.Consumer<String> show;
  private final Map<String, ServerState> states = new LinkedHashMap<>();
  private final List<String> knownGtids = new ArrayList<>();
  private final ReplicaRepointing repointing;

  /** Where a finding goes: a Warning or a Normal Event, and a note in the status message. */
  @FunctionalInterface
  interface Report {
    void report(Events event, String message);
  }

  /**
   * @param divergent the sites whose status names divergent transactions, left alone
   * @param show where the step being waited for goes: the workflow's current details
   */
  Survivors(EmergencyPlan plan, MysqlActivities mysql, Report warn, Report inform, Set<String> divergent,
      java.util.function.Consumer<String> show) {
    this.show = show;
    this.plan = plan;
    this.mysql = mysql;
    this.warn = warn;
    this.inform = inform;
    this.divergent = Set.copyOf(divergent);
    this.repointing = new ReplicaRepointing(mysql, plan.targetServer());
  }

  /** The sites the watcher holds back for divergent transactions (RecoveryBlocked), from the status. */
  static Set<String> divergentSites(MysqlFailoverGroupStatus status) {
    if (status == null || status.sites() == null) {
      return Set.of();
    }
    Set<String> out = new TreeSet<>();
    status.sites().stream().filter(s -> s.name() != null && s.divergentGtid() != null).forEach(s -> out.add(s.name()));
    return out;
  }

  /**
   * Makes the candidate's set final (relay log applied, replication stopped), reads the other
   * survivors meanwhile, and catches the candidate up from the freshest compatible one. Each step
   * is bounded by {@code budget} (the group's connectionDrainTimeout); a catch-up that fails or
   * runs out of time is reported, and the candidate is promoted with what it has: the failed
   * primary must not stay without a successor.
   */
  void catchUpCandidate(Duration budget) {
    Map<String, Promise<ServerState>> reads = new LinkedHashMap<>();
    for (SiteSpec site : plan.survivors()) {
      if (!divergent.contains(site.name())) {
        reads.put(site.name(), Async.function(mysql::inspect, plan.server(site.name())));
      }
    }
    StoppedReplica candidate = null;
    String drainError = null;
    try {
      candidate = boundedWait(budget).drainAndStopReplica(plan.targetServer(), FailoverRun.now().plus(budget));
    } catch (ActivityFailure e) {
      drainError = Failures.rootMessage(e);
    }
    List<CatchUpPlan.Survivor> reachable = new ArrayList<>();
    reads.forEach((site, read) -> {
      ServerState state;
      try {
        state = read.get();
      } catch (ActivityFailure e) {
        state = ServerState.unreachable(site, Failures.rootMessage(e));
      }
      states.put(site, state);
      if (state.reachable()) {
        knownGtids.add(state.gtidExecuted());
        knownGtids.add(state.gtidReceived());
        reachable.add(new CatchUpPlan.Survivor(site, state.gtidExecuted(), state.gtidReceived()));
      }
    });
    String target = plan.target().name();
    if (candidate == null) {
      warn.report(Events.CATCH_UP_SKIPPED, "could not stop replication on " + target + " before promoting it ("
          + drainError + "): not compared with the other replicas");
      return;
    }
    CatchUpPlan.Choice choice = CatchUpPlan.choose(target, candidate.gtidExecuted(), candidate.gtidReceived(),
        reachable);
    choice.warnings().forEach(w -> warn.report(Events.CATCH_UP_SKIPPED, w));
    if (choice.needed()) {
      catchUp(candidate, choice, budget);
    }
  }

  /** Freezes the donor so its set is final, checks again, then replicates from it. */
  private void catchUp(StoppedReplica candidate, CatchUpPlan.Choice choice, Duration budget) {
    String target = plan.target().name();
    String donor = choice.donor();
    MysqlTarget donorServer = plan.server(donor);
    String lacking = target + " lacks " + choice.transactions() + " transaction(s) " + choice.missing()
        + " that " + donor + " holds";
    MysqlActivities bounded = boundedWait(budget);
    StoppedReplica frozen;
    try {
      frozen = bounded.drainAndStopReplica(donorServer, FailoverRun.now().plus(budget));
    } catch (ActivityFailure e) {
      warn.report(Events.CATCH_UP_FAILED, lacking + "; could not stop replication on " + donor + ": "
          + Failures.rootMessage(e) + "; promoting " + target + " with what it has");
      return;
    }
    knownGtids.add(frozen.gtidExecuted());
    if (!frozen.logsReplicaUpdates()) {
      warn.report(Events.CATCH_UP_SKIPPED, lacking + ", but " + donor + " does not write what it replicates to its"
          + " binary log (log_bin with log_slave_updates / log_replica_updates), so it cannot serve them; promoting "
          + target + " with what it has");
      return;
    }
    // The donor's final, servable set: only what it executed (and so binlogged) counts now.
    CatchUpPlan.Choice confirmed = CatchUpPlan.choose(target, candidate.gtidExecuted(), candidate.gtidReceived(),
        List.of(new CatchUpPlan.Survivor(donor, frozen.gtidExecuted(), null)));
    confirmed.warnings().forEach(w -> warn.report(Events.CATCH_UP_SKIPPED, w));
    if (!confirmed.needed()) {
      return;
    }
    // Both stopped replicating: the count only shrinks from here, and the UI shows it for the wait.
    show.accept("catching " + target + " up from " + donor + ": " + target + " missing " + confirmed.transactions()
        + " transaction(s) " + confirmed.missing() + " that " + donor + " holds, at " + FailoverRun.now());
    try {
      String after = bounded.catchUpFrom(plan.targetServer(), donorServer, frozen.gtidExecuted(),
          FailoverRun.now().plus(budget));
      inform.report(Events.CANDIDATE_CAUGHT_UP, "caught " + target + " up with " + confirmed.transactions()
          + " transaction(s) " + confirmed.missing() + " from " + donor + " before promoting it; it now holds "
          + after);
    } catch (ActivityFailure e) {
      warn.report(Events.CATCH_UP_FAILED, target + " lacks " + confirmed.transactions() + " transaction(s) "
          + confirmed.missing() + " that " + donor + " holds; catching up from it failed: " + Failures.rootMessage(e)
          + "; promoting " + target + " with what it has");
    }
  }

  /**
   * Points every survivor that answered at the new primary, side by side. The old primary is not
   * among them: the watcher brings it back when it returns, after checking it holds nothing extra.
   */
  void startRepointing() {
    states.forEach((site, state) -> {
      if (state.reachable()) {
        repointing.start(plan.server(site));
      }
    });
  }

  /**
   * Waits for the re-pointing; a site that could not be re-pointed is a warning, one that was is
   * read back ({@code channels}).
   */
  void settleRepointing(ChannelReadBack channels) {
    String target = plan.target().name();
    plan.survivors().stream().map(SiteSpec::name).filter(divergent::contains)
        .forEach(site ->
        warn.report(Events.REPLICA_NOT_REPOINTED,
            site + " holds divergent transactions (status.sites[].divergentGtid):"
                + " left read-only and out of replication for a person to decide; point it at " + target
                + " once they are dealt with"));
    states.forEach((site, state) -> {
      if (!repointing.started(site)) {
        warn.report(Events.REPLICA_NOT_REPOINTED, site + " was unreachable during the failover and still replicates"
            + " from " + plan.failed().name() + ": point it at " + target + " when it is back");
        return;
      }
      Optional<String> failure = repointing.failure(site);
      if (failure.isPresent()) {
        warn.report(Events.REPLICA_NOT_REPOINTED, "could not point " + site + " at the new primary " + target + ": "
            + failure.get());
      } else {
        channels.start(repointing.replica(site));
      }
    });
  }

  /** Every GTID set read from a survivor during the failover, for the transactions-lost count. */
  List<String> knownGtids() {
    return List.copyOf(knownGtids);
  }

  /**
   * Calls before promotion whose failure only skips the catch-up: few attempts, since a server
   * that stops answering must not hold the promotion up for long; a wait is bounded by the
   * deadline the activity enforces itself.
   */
  private static MysqlActivities boundedWait(Duration budget) {
    return Workflow.newActivityStub(MysqlActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(budget.plusSeconds(15))
        .setScheduleToCloseTimeout(budget.plusSeconds(30))
        .setHeartbeatTimeout(ActivityStubs.HEARTBEAT_TIMEOUT)
        .setRetryOptions(RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofMillis(200))
            .setMaximumInterval(Duration.ofSeconds(1))
            .setMaximumAttempts(3)
            .setDoNotRetry(FailureTypes.PROMOTE_FAILED, FailureTypes.LAG_TIMEOUT, FailureTypes.REPLICATION_FAILED)
            .build())
        .build());
  }
}
