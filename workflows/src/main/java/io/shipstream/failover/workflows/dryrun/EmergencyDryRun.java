package io.shipstream.failover.workflows.dryrun;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.DryRunStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.EmergencyPrecheck;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.model.topology.SiteObservation;
import io.shipstream.failover.model.topology.SiteState;
import io.shipstream.failover.model.topology.TopologyMatrix;
import io.shipstream.failover.model.topology.Verdict;
import io.shipstream.failover.workflows.DryRunWorkflow.Request;
import io.shipstream.failover.workflows.activities.DryRunActivities.ServerReading;
import io.shipstream.failover.workflows.activities.KubernetesActivities.GroupSnapshot;
import io.shipstream.failover.workflows.common.FailoverRun;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.Map;

/**
 * The emergency precheck: every site read as the watcher polls it, and {@link
 * EmergencyPrecheck} (the topology matrix with the active site assumed lost) asked which site it
 * would promote and what that would lose. Workflow code.
 */
record EmergencyDryRun(Request request, DryRunSites sites) {

  DryRunReport run(GroupSnapshot snapshot) {
    DryRunReport report = new DryRunReport(DryRunStatus.EMERGENCY, DryRunReport.WOULD_PROMOTE);
    GroupConfig config;
    try {
      config = GroupConfig.resolve(snapshot.spec());
    } catch (GroupConfig.InvalidSpecException e) {
      block(report, Reason.InvalidSpec.name(), e.getMessage());
      return report;
    }
    Instant now = FailoverRun.now();
    Map<String, ServerReading> readings = sites.readAll(config);
    Map<String, SiteObservation> observations = new HashMap<>();
    for (SiteSpec site : config.sites()) {
      ServerReading r = readings.get(site.name());
      Probe probe = probe(r, now);
      SiteState state =
          !r.reachable() ? SiteState.UNREACHABLE : r.readOnly() ? SiteState.READ_ONLY : SiteState.WRITABLE;
      observations.put(site.name(), new SiteObservation(state, probe, r.reachable() ? probe : null));
      report.find("site " + site.name() + " (" + site.role() + "): " + (!r.reachable() ? "unreachable: " + r.error()
          : (r.readOnly() ? "read-only" : "writable") + ", executed " + r.gtidExecuted()
              + (r.ioState() == null ? ", no replica" : ", IO " + r.ioState() + ", SQL "
                  + (Boolean.TRUE.equals(r.sqlRunning()) ? "running" : "stopped")
                  + (r.lastSqlError() == null || r.lastSqlError().isBlank() ? "" : " on error: " + r.lastSqlError()))
              + "; connection " + DryRunSites.transport(r)));
    }
    MysqlFailoverGroupStatus status = snapshot.status() == null ? MysqlFailoverGroupStatus.empty() : snapshot.status();
    TopologyMatrix.Input input = new TopologyMatrix.Input(config, observations, status.activeSite(),
        instant(status.cooldownSince()), status.lastFailoverTarget(), request.runningWorkflowType() != null, now, null,
        status.fencedSites());
    EmergencyPrecheck answer = EmergencyPrecheck.ifActiveDiesNow(input);
    report.source = answer.activeSite();
    Verdict verdict = answer.verdict();
    if (verdict instanceof Verdict.Promote promote) {
      report.target = promote.candidate();
      report.transactionsLost = answer.transactionsLost();
      report.message = "if " + promote.failedSite() + " died now, the emergency failover would promote "
          + promote.candidate() + ", losing " + (answer.transactionsLost() == null ? "an unknown number of"
              : "at most " + answer.transactionsLost())
          + " transaction(s)"
          + (answer.lostGtid() == null ? "" : " (" + answer.lostGtid() + ")") + " of " + promote.failedSite()
          + "'s set as read now: " + promote.reason();
      report.find("would promote " + promote.candidate());
    } else if (verdict instanceof Verdict.Blocked blocked) {
      block(report, blocked.cause().name(), blocked.reason());
    } else {
      block(report, verdict.getClass().getSimpleName(), verdict.reason());
    }
    if (request.paused()) {
      // The watcher reports a held verdict (ActionHeld) and acts on none while the group is paused.
      String would = report.message;
      report.verdict = DryRunReport.BLOCKED;
      report.reason = Reason.Paused.name();
      report.message = "the group is paused: the watcher would only report it (ActionHeld); unpaused: " + would;
    }
    return report;
  }

  private static void block(DryRunReport report, String cause, String why) {
    report.verdict = DryRunReport.BLOCKED;
    report.reason = cause;
    report.message = why;
    report.find("blocked (" + cause + "): " + why);
  }

  private static Probe probe(ServerReading r, Instant at) {
    if (!r.reachable()) {
      return Probe.unreachable(r.site(), r.error(), at);
    }
    return new Probe(r.site(), true, r.readOnly(), r.gtidExecuted(), r.serverId(), r.replicating(),
        r.secondsBehindSource(), null, at, r.sourceServerId(), r.flavor(), r.receivedGtid(), r.ioState(),
        r.lastIoError(), r.sqlRunning(), r.lastSqlError());
  }

  private static Instant instant(String text) {
    try {
      return text == null ? null : Instant.parse(text);
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
