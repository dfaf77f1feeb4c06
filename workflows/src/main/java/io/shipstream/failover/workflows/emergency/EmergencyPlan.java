package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.CandidateSelection;
import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.shipstream.failover.workflows.activities.ServerState;
import io.shipstream.failover.workflows.common.FailoverAbort;
import java.util.List;

/**
 * The sites one emergency failover acts on, with the group's settings, and the checks that decide
 * whether it may act at all. Plain code: what it refuses is refused before anything is touched.
 */
record EmergencyPlan(GroupRef group, GroupConfig config, SiteSpec failed, SiteSpec target) {

  /** Fails with the reason to record when the spec or the two site names do not make a failover. */
  static EmergencyPlan resolve(GroupRef group, MysqlFailoverGroupSpec spec, String failedSite, String candidate) {
    GroupConfig config;
    try {
      config = GroupConfig.resolve(spec);
    } catch (GroupConfig.InvalidSpecException e) {
      throw new FailoverAbort(Reason.InvalidSpec, e.getMessage());
    }
    SiteSpec failed = config.site(failedSite)
        .orElseThrow(() ->
        new FailoverAbort(Reason.UnknownSite, "unknown failed site '" + failedSite + "'"));
    SiteSpec target = config.site(candidate)
        .orElseThrow(() ->
        new FailoverAbort(Reason.UnknownSite, "unknown candidate site '" + candidate + "'"));
    if (failed.name().equals(target.name())) {
      throw new FailoverAbort(Reason.TargetUnhealthy, "the candidate is the failed site " + failed.name());
    }
    if (!target.isPrimaryCandidate()) {
      throw new FailoverAbort(Reason.TargetNotCandidate, "candidate " + target.name() + " has role " + target.role()
          + ", not primary-candidate");
    }
    return new EmergencyPlan(group, config, failed, target);
  }

  /**
   * Only a reachable, read-only server whose SQL thread did not stop on an error is promoted: a
   * writable one may already be someone's primary, and one that cannot apply its relay log would
   * be promoted without what it received. The matrix already passes such a candidate over ({@link
   * CandidateSelection#sqlThreadProblem}, the same rule); this is the last guard, on a fresh look.
   */
  void checkCandidate(ServerState state) {
    if (!state.reachable()) {
      throw new FailoverAbort(Reason.TargetUnhealthy, "candidate " + target.name() + " is unreachable: "
          + state.error());
    }
    if (!state.readOnly()) {
      throw new FailoverAbort(Reason.TargetUnhealthy, "candidate " + target.name()
          + " is already writable; refusing to promote a server that may be another primary");
    }
    String sqlProblem = CandidateSelection.sqlThreadProblem(target.name(), state.sqlThreadRunning(),
        state.lastSqlError());
    if (sqlProblem != null) {
      throw new FailoverAbort(Reason.TargetUnhealthy, "candidate " + target.name() + " cannot apply what it received: "
          + sqlProblem);
    }
  }

  /** Every site but the failed one and the candidate, in spec order: the replicas that survive it. */
  List<SiteSpec> survivors() {
    return config.sites().stream()
        .filter(s -> !s.name().equals(failed.name()) && !s.name().equals(target.name()))
        .toList();
  }

  /** The server of a site of this group, by name. */
  MysqlTarget server(String site) {
    return server(config.site(site).orElseThrow(() -> new IllegalArgumentException("no site '" + site + "'")));
  }

  MysqlTarget failedServer() {
    return server(failed);
  }

  MysqlTarget targetServer() {
    return server(target);
  }

  private MysqlTarget server(SiteSpec site) {
    return MysqlTarget.of(group, config, site);
  }
}
