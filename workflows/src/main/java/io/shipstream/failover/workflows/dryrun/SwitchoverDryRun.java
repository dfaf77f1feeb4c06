package io.shipstream.failover.workflows.dryrun;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.HooksConfig;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.DryRunStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.FencedSites;
import io.shipstream.failover.model.topology.LagAgainstWait;
import io.shipstream.failover.model.topology.PauseAnnotation;
import io.shipstream.failover.model.topology.WriteWindowEstimate;
import io.shipstream.failover.workflows.DryRunWorkflow.Request;
import io.shipstream.failover.workflows.activities.DryRunActivities.Reachability;
import io.shipstream.failover.workflows.activities.DryRunActivities.ServerReading;
import io.shipstream.failover.workflows.activities.KubernetesActivities.GroupSnapshot;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.common.FailoverRun;
import io.shipstream.failover.workflows.contract.WorkflowTypes;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.CheckedRequest;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Decision;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Defer;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Plan;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Proceed;
import io.shipstream.failover.workflows.planned.PlannedFailoverPlanner.Reject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A switchover's dry run: the watcher's checks of a request (passed in by the watcher, which made
 * them), then the Validating step's own ({@link PlannedFailoverPlanner#precheck} and {@link
 * PlannedFailoverPlanner#decide} on the same inspection of every site), then what only a dry run
 * reports. Every rule is called, never copied, so the dry run and the real request cannot
 * disagree. Workflow code: its reads go through {@link DryRunSites}.
 */
record SwitchoverDryRun(Request request, DryRunSites sites) {

  DryRunReport run(GroupSnapshot snapshot, String target) {
    DryRunReport report = new DryRunReport(DryRunStatus.SWITCHOVER, DryRunReport.READY);
    report.target = target;
    watcherChecks(report);
    var pre = PlannedFailoverPlanner.precheck(snapshot, target);
    if (pre instanceof Reject reject) {
      report.refuse(reject.reason(), reject.message());
      return report;
    }
    CheckedRequest checked = (CheckedRequest) pre;
    GroupConfig config = checked.config();
    Map<String, ServerState> states = sites.inspectAll(config);
    Map<String, ServerReading> readings = sites.readAll(config);
    Instant now = FailoverRun.now();
    Decision decision = PlannedFailoverPlanner.decide(checked, snapshot.status(), states, now);
    Plan plan = null;
    if (decision instanceof Reject reject) {
      report.refuse(reject.reason(), reject.message());
    } else if (decision instanceof Defer defer) {
      report.waitFor(Reason.CooldownActive, defer.message());
    } else {
      plan = ((Proceed) decision).plan();
      report.find("validating: the request would proceed from " + plan.source().name() + " to " + target);
    }
    MysqlFailoverGroupStatus status = snapshot.status();
    String source = plan != null ? plan.source().name() : status == null ? null : status.activeSite();
    report.source = source;
    eachSite(report, config, states, readings);
    fencedAndPaused(report, status);
    cooldown(report, config, status, now);
    if (source != null && config.site(source).isPresent()) {
      Duration maxLagWait = checked.annotation().maxLagWait().orElse(config.maxLagWait());
      lag(report, states.get(source), states.get(target), maxLagWait);
      semiSync(report, config, states, target, source);
    }
    preHook(report, config.hooks());
    if (plan != null) {
      repointing(report, plan, states);
    }
    if (!report.refused() && source != null) {
      window(report, readings.get(source), readings.get(target));
    }
    if (DryRunReport.READY.equals(report.verdict)) {
      report.message = "a switchover from " + source + " to " + target + " would start now"
          + (report.warnings.isEmpty() ? "" : ", with " + report.warnings.size() + " warning(s)");
    }
    return report;
  }

  /** What the watcher refuses or holds before any workflow runs, in its order. */
  private void watcherChecks(DryRunReport report) {
    if (request.paused()) {
      report.refuse(Reason.Paused, "the group is paused (" + PauseAnnotation.ANNOTATION + "=true): no failover "
          + "starts until the annotation is removed; a request would be refused");
    }
    if (request.deleting()) {
      report.refuse((String) null, "the group is being deleted: the watcher starts no failover for it");
    }
    if (WorkflowTypes.EMERGENCY_FAILOVER.equals(request.runningWorkflowType())) {
      report.refuse(Reason.ConcurrentOperation, "a EmergencyFailover workflow is running for this group; a request "
          + "would be refused");
    } else if (request.runningWorkflowType() != null) {
      report.waitFor(null, "a " + request.runningWorkflowType() + " workflow is running for this group: a request "
          + "would wait for it to end, then be validated");
    }
  }

  private static void eachSite(DryRunReport report, GroupConfig config, Map<String, ServerState> states,
      Map<String, ServerReading> readings) {
    for (SiteSpec site : config.sites()) {
      ServerState s = states.get(site.name());
      ServerReading r = readings.get(site.name());
      String role = site.role() + (site.name().equals(report.target) ? ", the target" : "")
          + (site.name().equals(report.source) ? ", the source" : "");
      if (s == null || !s.reachable()) {
        report.find("site " + site.name() + " (" + role + "): unreachable" + (s == null || s.error() == null ? ""
            : ": " + s.error()));
        continue;
      }
      String replication = !s.replicaConfigured() ? "no replica"
          : (s.replicating() ? "replicating"
              : "replication stopped (IO " + (s.ioThreadRunning() ? "running" : "stopped")
                  + ", SQL " + (s.sqlThreadRunning() ? "running" : "stopped") + ")")
              + " from " + s.sourceHost() + ":"
              + s.sourcePort() + (s.secondsBehindSource() == null ? "" : ", " + s.secondsBehindSource() + " s behind");
      report.find("site " + site.name() + " (" + role + "): " + (s.readOnly() ? "read-only" : "writable") + ", "
          + replication + ", executed " + s.gtidExecuted()
          + (r == null || !r.reachable() ? "" : "; connection " + DryRunSites.transport(r) + ", round trip "
              + DryRunSites.millis(r.roundTripMicros()) + " ms"));
    }
  }

  private static void fencedAndPaused(DryRunReport report, MysqlFailoverGroupStatus status) {
    List<String> fenced = status == null || status.fencedSites() == null ? List.of() : status.fencedSites();
    report.find("fenced sites (" + FencedSites.ANNOTATION + "): " + (fenced.isEmpty() ? "none" : fenced));
  }

  private static void cooldown(DryRunReport report, GroupConfig config, MysqlFailoverGroupStatus status, Instant now) {
    Optional<Instant> end = PlannedFailoverPlanner.cooldownEnd(status, config.failoverCooldown());
    report.find(end.isPresent() && now.isBefore(end.get())
        ? "failover cooldown: active until " + end.get() + " (onCooldown " + config.onCooldown() + ")"
        : "failover cooldown: not active");
  }

  private static void lag(DryRunReport report, ServerState source, ServerState target, Duration maxLagWait) {
    if (source == null || target == null || !target.reachable()) {
      return;
    }
    LagAgainstWait lag = LagAgainstWait.judge(source.gtidExecuted(), target.gtidExecuted(),
        target.secondsBehindSource(), maxLagWait);
    report.lagTransactions = lag.transactions();
    report.lagSeconds = lag.seconds();
    report.find("lag: " + report.target + " is " + (lag.transactions() == null ? "?" : lag.transactions())
        + " transaction(s) and " + (lag.seconds() == null ? "?" : lag.seconds()) + " s behind " + source.site()
        + " (maxLagWait " + maxLagWait.toSeconds() + " s)");
    lag.warning().ifPresent(report::warn);
  }

  /**
   * The replicas that would acknowledge the new primary's commits: the sites the spec lets
   * acknowledge, other than the target, that answer now and replicate (the source rejoins as a
   * replica), against {@code minSyncReplicas}.
   */
  private static void semiSync(DryRunReport report, GroupConfig config, Map<String, ServerState> states,
      String target, String source) {
    var semiSync = config.semiSync();
    if (semiSync == null || !semiSync.enabled()) {
      report.find("semi-sync: not enabled in the spec");
      return;
    }
    List<String> ackers = config.sites().stream()
        .filter(s -> !s.name().equals(target) && semiSync.acknowledges(s))
        .filter(s -> {
          ServerState st = states.get(s.name());
          return st != null && st.reachable() && (s.name().equals(source) || st.replicating());
        })
        .map(SiteSpec::name).toList();
    report.find("semi-sync: acknowledgers after the switchover " + ackers + " (minSyncReplicas "
        + semiSync.minSyncReplicas() + ")");
    if (ackers.size() < semiSync.minSyncReplicas()) {
      report.warn("only " + ackers.size() + " replica(s) " + ackers + " could acknowledge " + target + "'s commits, "
          + "fewer than minSyncReplicas " + semiSync.minSyncReplicas() + ": " + semiSync.durability()
          + " durability would " + (semiSync.durability().name().equals("required") ? "stop commits" : "fall back to "
              + "asynchronous"));
    }
  }

  private void preHook(DryRunReport report, HooksConfig hooks) {
    HooksConfig.Hook hook = hooks == null ? null : hooks.preFailover();
    if (hook == null) {
      report.find("pre-failover hook: none");
      return;
    }
    Reachability reach = sites.reach(hook.url(), hook.timeout());
    if (reach.reachable()) {
      report.find("pre-failover hook " + hook.url() + ": reachable (connected in " + reach.connectMillis()
          + " ms; not called)");
    } else {
      report.refuse(Reason.PreFailoverHookVetoed, "pre-failover hook " + hook.url() + " is unreachable ("
          + reach.detail() + "): a request would be vetoed before the fence");
    }
  }

  private static void repointing(DryRunReport report, Plan plan, Map<String, ServerState> states) {
    Map<String, String> forecast = PlannedFailoverPlanner.repointingForecast(plan, states);
    List<String> repointed = forecast.entrySet().stream().filter(e -> e.getValue() == null).map(Map.Entry::getKey)
        .toList();
    report.find("replicas re-pointed at " + plan.target().name() + " after the promotion: "
        + (repointed.isEmpty() ? "none" : repointed) + "; " + plan.source().name() + " rejoins as its replica");
    forecast.forEach((site, why) -> {
      if (why != null) {
        report.warn(why);
      }
    });
  }

  private static void window(DryRunReport report, ServerReading source, ServerReading target) {
    if (source == null || target == null || source.roundTripMicros() == null || target.roundTripMicros() == null) {
      return;
    }
    Duration estimate = WriteWindowEstimate.estimate(Duration.ofNanos(source.roundTripMicros() * 1000),
        Duration.ofNanos(target.roundTripMicros() * 1000), report.lagSeconds);
    report.estimatedWriteWindowSeconds = estimate.toNanos() / 1e9;
    report.find("write window estimate: " + String.format("%.3f", report.estimatedWriteWindowSeconds) + " s ("
        + WriteWindowEstimate.SOURCE_EXCHANGES + " round trip to " + source.site() + " at "
        + DryRunSites.millis(source.roundTripMicros()) + " ms, " + WriteWindowEstimate.TARGET_EXCHANGES + " to "
        + target.site() + " at " + DryRunSites.millis(target.roundTripMicros()) + " ms, plus its lag; the "
        + "failover record's Kubernetes write comes on top)");
  }
}
