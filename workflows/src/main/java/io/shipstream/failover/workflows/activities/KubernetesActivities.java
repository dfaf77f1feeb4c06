package io.shipstream.failover.workflows.activities;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.GuardRestart;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.util.List;

/**
 * Everything the workflows read from and write to the Kubernetes API. Writes are patches or
 * edits that are correct on a real API server, and every one is idempotent.
 */
@ActivityInterface
public interface KubernetesActivities {

  /** The resource as it is now; {@code annotation} is the planned-failover annotation or null. */
  record GroupSnapshot(MysqlFailoverGroupSpec spec, MysqlFailoverGroupStatus status, String annotation,
      Long generation) {}

  /** Fails non-retryably with type {@code GroupNotFound} when the resource is gone. */
  @ActivityMethod
  GroupSnapshot loadGroup(GroupRef group);

  /** Replaces {@code status.plannedFailover} and {@code status.workflow}; leaves the rest alone. */
  @ActivityMethod
  void writePlannedFailoverStatus(GroupRef group, PlannedFailoverStatus planned,
      MysqlFailoverGroupStatus.WorkflowRef workflow);

  /** Replaces {@code status.emergencyFailover} and {@code status.workflow}; leaves the rest alone. */
  @ActivityMethod
  void writeEmergencyFailoverStatus(GroupRef group, EmergencyFailoverStatus emergency,
      MysqlFailoverGroupStatus.WorkflowRef workflow);

  /**
   * Sets activeSite, lastFailover ({@code at}, or now), lastFailoverTarget and promotionGtidExecuted,
   * unless the status holds a newer lastFailover: lastFailover never goes back. {@code promotionGtid}
   * is the new primary's GTID set at its promotion, so it is given only once the promotion took
   * effect: such a record also sets lastPromotion ({@code at}), where the anti-flap cooldown starts.
   * A record without it (a target named active before its promotion, the source named active again
   * by a rollback) leaves lastPromotion alone.
   */
  @ActivityMethod
  void recordFailover(GroupRef group, String activeSite, String at, String promotionGtid);

  /** One Event to emit: {@code type} is Normal or Warning. */
  record EventNote(String type, String reason, String message) {}

  /** Events on the resource, in order, reading the group once. */
  @ActivityMethod
  void emitEvents(GroupRef group, List<EventNote> events);

  /**
   * Labels the site's pods (its podSelector) {@code shipstream.io/role=<role>} and
   * {@code shipstream.io/group=<group>}, and makes sure Service {@code mysql-<group>-primary}
   * exists and selects role=primary of this group.
   */
  @ActivityMethod
  void setSiteRole(GroupRef group, SiteSpec site, String role);

  /**
   * Labels the session-store pods of the site, found by {@code shipstream.io/group=<group>} and
   * {@code shipstream.io/store-site=<site>}, with {@code shipstream.io/store-role=<role>} (master or
   * replica; null leaves it as it is) and {@code shipstream.io/traffic=active|standby}, and makes
   * sure Service {@code dragonfly-<group>-active} exists and selects traffic=active of this group.
   */
  @ActivityMethod
  void setStoreRole(GroupRef group, SiteSpec site, String role, boolean active);

  /** Points DNSEndpoint {@code <group>-primary} (externaldns.k8s.io/v1alpha1) at the site's lbIP. */
  @ActivityMethod
  void updateDns(GroupRef group, String hostname, String ip, int ttl);

  /**
   * Taints {@code shipstream.io/db-readonly-<group>=true:NoExecute} on the nodes of every site but
   * the active one, and removes it from the active site's nodes. While one of the group's own
   * MySQL pods would not tolerate the taint, no node is tainted (it would evict that pod) and a
   * RoutingIncomplete Warning names the pods ({@code NodeTaints}, the watcher's rule too).
   */
  @ActivityMethod
  void applyTaints(GroupRef group, List<SiteSpec> sites, String activeSite);

  /**
   * The liveness probe on {@code /health} of the site's sidecar, read from its pods: how long a
   * hung sidecar takes to be restarted and fence its server ({@link GuardRestart}). Never fails:
   * a read that fails is an UNKNOWN reading, which the emergency failover waits out with
   * Kubernetes' default probe timing.
   */
  @ActivityMethod
  GuardRestart.Reading sidecarProbe(GroupRef group, SiteSpec site);

  /** Removes the planned-failover annotation if it still holds {@code expectedValue}. */
  @ActivityMethod
  void clearAnnotation(GroupRef group, String expectedValue);
}
