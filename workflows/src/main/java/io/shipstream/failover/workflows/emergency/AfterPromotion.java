package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.workflows.activities.DragonflyActivities.Promotion;
import io.shipstream.failover.workflows.activities.StoreState;
import io.shipstream.failover.workflows.activities.StoreTarget;
import io.shipstream.failover.workflows.common.ActivityStubs;
import io.shipstream.failover.workflows.common.Failures;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The emergency runbook's steps once the candidate is a writable primary: what was lost is
 * reported, writes are routed to it (role label, DNS, taints), the session store follows, the
 * failover is recorded with the promotion point and the survivors' re-pointing is settled. The
 * promotion cannot be undone, so every failure here is a warning. Workflow code: its I/O goes
 * through activities.
 */
final class AfterPromotion {
  private final EmergencyRun run;
  private final CandidatePromotion promotion;

  AfterPromotion(EmergencyRun run, CandidatePromotion promotion) {
    this.run = run;
    this.promotion = promotion;
  }

  /**
   * Says what did not make it across, in the status and a Warning Event: a loss is never hidden.
   * Lost is what the old primary or any other server was known to hold and the promoted one lacks.
   *
   * @param siteGtids every site's last known set, as the watcher saw it
   * @param divergentSites the sites held back for divergent transactions since an earlier failover
   */
  void reportDataLoss(Map<String, String> siteGtids, Set<String> divergentSites) {
    EmergencyFailoverProgress progress = run.progress;
    List<String> known = new ArrayList<>();
    // A site held back for divergent transactions holds them since an earlier failover, not this one.
    siteGtids.forEach((site, gtid) -> {
      if (!divergentSites.contains(site)) {
        known.add(gtid);
      }
    });
    Survivors survivors = promotion.survivors();
    if (survivors != null) {
      known.addAll(survivors.knownGtids());
    }
    DataLoss loss = DataLoss.between(progress.oldPrimaryLastKnownGtid, known, progress.targetGtidAtPromotion);
    progress.transactionsLost = loss.transactions();
    progress.lostGtid = loss.lostGtid();
    if (!loss.known()) {
      run.warn("DataLossUnknown", "transactions lost unknown: " + loss.unknownBecause());
    } else if (loss.any()) {
      run.warn("DataLossDetected", loss.transactions() + " transactions committed on " + progress.failedSite
          + " are not on " + progress.target + ": " + loss.lostGtid());
    }
    run.publisher.status(progress.toStatus());
  }

  /**
   * Routes writes to the new primary first (the Service), then DNS and taints side by side. None
   * of these can undo the promotion, so each failure is a warning.
   */
  void flipRouting(EmergencyPlan plan) {
    try {
      run.k8s.setSiteRole(run.group, plan.target(), EmergencyFailoverWorkflowImpl.PRIMARY);
    } catch (ActivityFailure e) {
      run.warn("RoutingUpdateFailed", "could not label " + plan.target().name() + " primary: "
          + Failures.rootMessage(e));
    }
    GroupConfig config = plan.config();
    boolean hasDns = config.dnsHostname() != null && plan.target().lbIP() != null;
    Promise<Void> dns = hasDns ? Async.procedure(run.k8s::updateDns, run.group, config.dnsHostname(),
        plan.target().lbIP(), config.dnsTtl()) : null;
    Promise<Void> taints = Async.procedure(run.k8s::applyTaints, run.group, config.sites(), plan.target().name());
    if (dns != null) {
      run.metrics.dnsFlip(run.settle(dns, Reason.DnsFlipFailed.name(),
          "DNS flip to " + plan.target().lbIP() + " failed"));
    }
    run.metrics.taintOperation(run.settle(taints, "TaintUpdateFailed", "node taints not updated"));
  }

  /**
   * The session store follows MySQL: its master is presumably dead with its site, so there is
   * nothing to take over from losslessly; the freshest reachable replica is promoted on its own
   * (REPLICAOF NO ONE), the other reachable stores follow it, and the pods are relabelled. Nothing
   * here can fail the failover: MySQL is already promoted, so every problem is a warning. Behind
   * {@link EmergencyFailoverWorkflowImpl#SESSION_STORE}, asked only when the store is enabled, so other failovers record the
   * commands they always did.
   */
  void promoteSessionStore(EmergencyPlan plan) {
    if (!plan.config().dragonflyEnabled()
        || Workflow.getVersion(EmergencyFailoverWorkflowImpl.SESSION_STORE, Workflow.DEFAULT_VERSION, 1)
        < 1) {
      return;
    }
    List<SiteSpec> sites = plan.config().sites().stream().filter(s -> s.dragonfly() != null).toList();
    List<StoreTarget> stores = sites.stream().map(s -> StoreTarget.of(run.group, s)).toList();
    Promotion store;
    try {
      store = ActivityStubs.dragonfly().promoteFreshestReplica(stores, plan.target().name());
    } catch (ActivityFailure e) {
      run.warn("DragonflyPromotionFailed", "session store not promoted: " + Failures.rootMessage(e));
      return;
    }
    List<Promise<Void>> labels = new ArrayList<>();
    for (SiteSpec site : sites) {
      boolean master = site.name().equals(store.site());
      labels.add(Async.procedure(run.k8s::setStoreRole, run.group, site,
          master ? StoreState.MASTER : StoreState.REPLICA, master));
    }
    labels.forEach(l -> run.settle(l, "DragonflyRoutingUpdateFailed", "session-store pods not relabelled"));
    run.publisher.event("Normal", "DragonflyPromotionCompleted", "the " + store.site() + " store is the session "
        + "store master (" + store.method() + "): " + store.message());
  }

  /** Resuming: the failover's record gets the promotion point, and the survivors' re-pointing ends. */
  void recordFailover(EmergencyPlan plan) {
    EmergencyFailoverProgress progress = run.progress;
    run.enter(EmergencyPhase.Resuming, "recording the failover to " + plan.target().name());
    try {
      run.k8s.recordFailover(run.group, plan.target().name(), promotion.failoverRecordedAt(),
          progress.targetGtidAtPromotion);
    } catch (ActivityFailure e) {
      run.warn("FailoverRecordIncomplete", "promotionGtidExecuted not recorded: " + Failures.rootMessage(e));
    }
    Survivors survivors = promotion.survivors();
    if (survivors != null) {
      survivors.settleRepointing();
    }
  }
}
