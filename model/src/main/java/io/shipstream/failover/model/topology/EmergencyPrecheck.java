package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.gtid.GtidSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the emergency path would do if the active site died now: the {@link TopologyMatrix} itself,
 * evaluated on the group as it is with the active site's latest poll replaced by an unreachable one
 * (its reading kept as the last known one, as the watcher keeps it when a primary stops
 * answering). So the candidate, the blocks (cooldown, fenced or lagging candidates, divergence,
 * the lag limit) and their wording are the matrix's own, never a second copy of its rules; the
 * debounce is skipped, since the question is what happens once the failure is confirmed.
 *
 * <p>What it would lose is counted as the matrix's lag limit counts it ({@link PromotionLag}): the
 * transactions of the primary's reading that the candidate neither executed nor received. The
 * emergency runbook may still catch the candidate up from another survivor, so this is at most
 * what would be lost.
 *
 * @param activeSite the site assumed lost; null when the group has none to lose
 * @param verdict the matrix's verdict: {@link Verdict.Promote} when a failover would start
 * @param transactionsLost for a promotion, as above; null when not counted (unreadable or unknown sets)
 * @param lostGtid those transactions as a set; null when none or not counted
 */
public record EmergencyPrecheck(String activeSite, Verdict verdict, Long transactionsLost, String lostGtid) {

  public static EmergencyPrecheck ifActiveDiesNow(TopologyMatrix.Input in) {
    String active = in.activeSite() != null ? in.activeSite() : soleWritable(in);
    if (active == null || in.config().site(active).isEmpty()) {
      return new EmergencyPrecheck(null, new Verdict.NoPrimary("no active site is recorded or writable: there is no "
          + "primary to lose"), null, null);
    }
    SiteObservation now = in.observation(active);
    Probe last = now.answeringNow() ? now.latest() : now.lastReachable();
    Map<String, SiteObservation> sites = new HashMap<>(in.sites());
    sites.put(active, new SiteObservation(SiteState.UNREACHABLE,
        Probe.unreachable(active, "assumed lost by the emergency precheck", in.now()), last));
    TopologyMatrix.Input lost = new TopologyMatrix.Input(in.config(), sites, active, in.lastPromotion(),
        in.lastFailoverTarget(), in.failoverRunning(), in.now(), in.promoteAnyway(), in.fenced(), in.unfencedAt());
    Verdict verdict = TopologyMatrix.evaluate(lost);
    if (!(verdict instanceof Verdict.Promote promote)) {
      return new EmergencyPrecheck(active, verdict, null, null);
    }
    Probe candidate = in.observation(promote.candidate()).latest();
    if (promote.failedSiteLastGtid() == null || candidate == null || candidate.gtidExecuted() == null) {
      return new EmergencyPrecheck(active, verdict, null, null);
    }
    try {
      GtidSet missing = PromotionLag.notReceived(promote.failedSiteLastGtid(), candidate.gtidExecuted(),
          candidate.receivedGtid());
      return new EmergencyPrecheck(active, verdict, missing.count(), missing.count() == 0 ? null : missing.toString());
    } catch (IllegalArgumentException e) {
      return new EmergencyPrecheck(active, verdict, null, null);
    }
  }

  /** The one site whose debounced state is writable, when no active site is recorded. */
  private static String soleWritable(TopologyMatrix.Input in) {
    List<String> writable = in.config().sites().stream().map(SiteSpec::name)
        .filter(s -> in.state(s) == SiteState.WRITABLE).toList();
    return writable.size() == 1 ? writable.get(0) : null;
  }
}
