package io.shipstream.failover.workflows;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus.ForcedPromotion;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.workflows.contract.WorkflowTypes;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.Map;

/**
 * Promotes a replica after the active site's primary failed, reporting every transaction that
 * did not make it across. Runs under {@link GroupRef#workflowId()}, the id the planned failover
 * uses too, so the two never run side by side.
 */
@WorkflowInterface
public interface EmergencyFailoverWorkflow {

  /**
   * What the watcher's topology monitor decided: which site failed, which one to promote, the
   * failed primary's GTID set as last seen (null when never seen) and why it started, in words.
   * {@code siteGtids} holds, by site, the executed GTID set of every site that answered the
   * monitor's last poll (and the failed one's last known): the transactions lost are counted
   * against all of them, not only against the old primary. Null in requests of older watchers.
   * {@code forcedPromotion} is set when a human's promote-anyway request overrides the lag limit
   * for this candidate; the workflow records it in its status. {@code spec} is the spec the
   * monitor decided with, the last it accepted: an edit of the resource that does not resolve is
   * refused and must not stop the failover it decided on. Null in requests of older watchers: the
   * workflow then acts on the resource's spec.
   */
  record Request(GroupRef group, String failedSite, String candidate, String oldPrimaryLastKnownGtid,
      String reason, Map<String, String> siteGtids, ForcedPromotion forcedPromotion, MysqlFailoverGroupSpec spec,
      String detectedAt, String primaryLastPolledAt) {

    /**
     * A request without when the loss was detected ({@code detectedAt}, the watcher's clock, RFC 3339)
     * and when the failed primary last answered a poll ({@code primaryLastPolledAt}), as older
     * watchers sent it: the run then records no write window.
     */
    public Request(GroupRef group, String failedSite, String candidate, String oldPrimaryLastKnownGtid,
        String reason, Map<String, String> siteGtids, ForcedPromotion forcedPromotion, MysqlFailoverGroupSpec spec) {
      this(group, failedSite, candidate, oldPrimaryLastKnownGtid, reason, siteGtids, forcedPromotion, spec, null, null);
    }

    /** A request acting on the resource's spec. */
    public Request(GroupRef group, String failedSite, String candidate, String oldPrimaryLastKnownGtid,
        String reason, Map<String, String> siteGtids, ForcedPromotion forcedPromotion) {
      this(group, failedSite, candidate, oldPrimaryLastKnownGtid, reason, siteGtids, forcedPromotion, null);
    }

    /** A request within the lag limit. */
    public Request(GroupRef group, String failedSite, String candidate, String oldPrimaryLastKnownGtid,
        String reason, Map<String, String> siteGtids) {
      this(group, failedSite, candidate, oldPrimaryLastKnownGtid, reason, siteGtids, null);
    }

    /** A request without the other sites' sets, as older watchers sent it. */
    public Request(GroupRef group, String failedSite, String candidate, String oldPrimaryLastKnownGtid,
        String reason) {
      this(group, failedSite, candidate, oldPrimaryLastKnownGtid, reason, null);
    }
  }

  @WorkflowMethod(name = WorkflowTypes.EMERGENCY_FAILOVER)
  EmergencyFailoverStatus run(Request request);

  /** Cancels while Pending or Fencing; ignored from Promoting on, when the candidate may be writable. */
  @SignalMethod
  void cancel(String reason);

  @QueryMethod
  EmergencyFailoverStatus status();
}
