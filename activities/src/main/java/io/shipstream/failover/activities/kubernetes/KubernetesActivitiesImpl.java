package io.shipstream.failover.activities.kubernetes;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.shipstream.failover.kube.DnsRecords;
import io.shipstream.failover.kube.NodeTaints;
import io.shipstream.failover.kube.Owners;
import io.shipstream.failover.kube.SidecarProbes;
import io.shipstream.failover.kube.SiteRoles;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.GuardRestart;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.shipstream.failover.workflows.contract.Events;
import io.shipstream.failover.workflows.contract.FailureTypes;
import io.temporal.failure.ApplicationFailure;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The Kubernetes side of a failover, on fabric8. Every write is a JSON patch (guarded where a
 * concurrent writer could interfere), a create that tolerates "already exists", or no request
 * at all when the cluster already looks right, so a retried activity is harmless and the code
 * behaves the same on a real API server as on the fabric8 mock.
 */
public final class KubernetesActivitiesImpl implements KubernetesActivities {
  private final Clock clock;
  private final GroupStore groups;
  private final GroupEvents events;
  private final SiteRoles roles;
  private final StoreRoles storeRoles;
  private final DnsRecords dns;
  private final NodeTaints taints;
  private final SidecarProbes probes;

  public KubernetesActivitiesImpl(KubernetesClient client, Clock clock) {
    Objects.requireNonNull(client, "client");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.groups = new GroupStore(client);
    this.events = new GroupEvents(client, groups, clock);
    Owners owners = group -> java.util.Optional.ofNullable(groups.find(group)).map(Owners::reference);
    this.roles = new SiteRoles(client, owners);
    this.storeRoles = new StoreRoles(client, groups);
    this.dns = new DnsRecords(client, owners);
    this.taints = new NodeTaints(client);
    this.probes = new SidecarProbes(client);
  }

  @Override
  public GroupSnapshot loadGroup(GroupRef group) {
    return groups.load(group);
  }

  @Override
  public void writePlannedFailoverStatus(GroupRef group, PlannedFailoverStatus planned,
      MysqlFailoverGroupStatus.WorkflowRef workflow) {
    writeFailoverStatus(group, "plannedFailover", planned, planned.startTime(), workflow,
        historyEntry("planned", planned.phase(), planned.target(), planned.reason(), planned.startTime(),
            planned.durationSeconds(), planned.writeWindow(), workflow));
  }

  @Override
  public void writeEmergencyFailoverStatus(GroupRef group, EmergencyFailoverStatus emergency,
      MysqlFailoverGroupStatus.WorkflowRef workflow) {
    writeFailoverStatus(group, "emergencyFailover", emergency, emergency.startTime(), workflow,
        historyEntry("emergency", emergency.phase(), emergency.target(), emergency.reason(), emergency.startTime(),
            emergency.durationSeconds(), emergency.writeWindow(), workflow));
  }

  /** The run's line in {@code status.failoverHistory} when {@code phase} ends it; null while it runs. */
  private static MysqlFailoverGroupStatus.FailoverHistoryEntry historyEntry(String kind, String phase, String target,
      String reason, String startTime, Double durationSeconds, io.shipstream.failover.model.crd.WriteWindow window,
      MysqlFailoverGroupStatus.WorkflowRef workflow) {
    if (!io.shipstream.failover.model.Phase.isTerminal(phase)) {
      return null;
    }
    return new MysqlFailoverGroupStatus.FailoverHistoryEntry(workflow == null ? null : workflow.workflowId(),
        workflow == null ? null : workflow.runId(), kind, target, phase,
        "Succeeded".equals(phase) ? null : reason, startTime, durationSeconds,
        window == null ? null : window.seconds());
  }

  /**
   * Writes a failover's status field and the workflow that runs it. A late retry of an older
   * failover's status must not replace a newer failover's. The write of its terminal phase also
   * puts the run first in {@code status.failoverHistory} ({@code finished}; null before), in the
   * same patch, so the history and the record never disagree.
   */
  private void writeFailoverStatus(GroupRef group, String field, Object status, String startTime,
      MysqlFailoverGroupStatus.WorkflowRef workflow, MysqlFailoverGroupStatus.FailoverHistoryEntry finished) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put(field, status);
    fields.put("workflow", workflow);
    groups.patchStatusFieldsUnlessNewer(group, fields, field, field + ".startTime", startTime(startTime), startTime,
        finished == null ? null : current -> Map.of("failoverHistory",
            MysqlFailoverGroupStatus.FailoverHistoryEntry.prepended(current == null ? null : current.failoverHistory(),
                finished)));
  }

  @Override
  public void recordFailover(GroupRef group, String activeSite, String at, String promotionGtid) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("activeSite", activeSite);
    fields.put("lastFailover", rfc3339Utc(at));
    fields.put("lastFailoverTarget", activeSite);
    fields.put("promotionGtidExecuted", promotionGtid);
    if (promotionGtid != null) {
      // Only a record with the promotion point is one of a promotion that took effect: the
      // anti-flap cooldown runs from it. Naming a target active before its promotion, and naming
      // the source again in a rollback, leave it alone (a null field would remove it).
      fields.put("lastPromotion", rfc3339Utc(at));
    }
    // A late retry of an older failover's record must not name its target active again.
    String recordedAt = rfc3339Utc(at);
    groups.patchStatusFieldsUnlessNewer(group, fields, "failover record", "lastFailover",
        Instant.parse(recordedAt), recordedAt);
  }

  @Override
  public void emitEvents(GroupRef group, List<EventNote> notes) {
    events.emitAll(group, notes);
  }

  @Override
  public void setSiteRole(GroupRef group, SiteSpec site, String role) {
    roles.setSiteRole(group, site, role);
  }

  @Override
  public void setStoreRole(GroupRef group, SiteSpec site, String role, boolean active) {
    storeRoles.setStoreRole(group, site, role, active);
  }

  @Override
  public void updateDns(GroupRef group, String hostname, String ip, int ttl) {
    dns.update(group, hostname, ip, ttl);
  }

  @Override
  public void applyTaints(GroupRef group, List<SiteSpec> sites, String activeSite) {
    NodeTaints.Placement placement;
    try {
      // The group's own MySQL pods, every site's: the rule taints no node that one of them would be
      // evicted from (a demoted old primary's, say), the one the watcher's routing repair follows.
      // Listed side by side (one request per site): this runs after the promotion, beside the
      // label and the rejoin, and the failover's Succeeded waits for it.
      List<io.fabric8.kubernetes.api.model.Pod> pods = sites.parallelStream()
          .flatMap(s -> roles.pods(group, s).stream()).toList();
      placement = taints.apply(group, sites, activeSite, pods);
    } catch (NodeTaints.UnknownSiteException e) {
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), FailureTypes.UNKNOWN_SITE);
    }
    if (!placement.everyPodTolerates()) {
      // Not a failure of the failover: its writes go where they should. The watcher keeps the
      // group Degraded for it afterwards; the Event says it at the time of the failover.
      events.emitAll(group, List.of(new EventNote(Events.ROUTING_INCOMPLETE.type().name(),
          Events.ROUTING_INCOMPLETE.reason(), placement.problem(group))));
    }
  }

  @Override
  public GuardRestart.Reading sidecarProbe(GroupRef group, SiteSpec site) {
    return probes.read(group, site);
  }

  @Override
  public void clearAnnotation(GroupRef group, String expectedValue) {
    groups.clearAnnotation(group, expectedValue);
  }

  /** A status's start time, or null (no guard) when it has none or it is not a time. */
  private static Instant startTime(String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    try {
      return OffsetDateTime.parse(value).toInstant();
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /**
   * The failover time as RFC 3339 in UTC. The workflow passes its own (deterministic) time; a
   * caller without one gets this worker's clock. Offsets are normalised to Z so that the
   * cooldown arithmetic and {@code kubectl get} both read one form.
   */
  String rfc3339Utc(String at) {
    if (at == null || at.isBlank()) {
      return clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
    }
    try {
      Instant instant = OffsetDateTime.parse(at).toInstant();
      return instant.toString();
    } catch (DateTimeParseException e) {
      throw ApplicationFailure.newNonRetryableFailure("Not an RFC 3339 time: " + at, FailureTypes.INVALID_TIME);
    }
  }
}
