package io.shipstream.failover.workflows.planned;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.temporal.failure.ApplicationFailure;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** One resource and what the workflow wrote about it: status history, Events, labels, DNS, taints. */
final class FakeKubernetes implements KubernetesActivities {
  record Event(String type, String reason, String message) {}

  volatile MysqlFailoverGroupSpec spec;
  volatile MysqlFailoverGroupStatus status = MysqlFailoverGroupStatus.empty();
  volatile String annotation;
  final List<PlannedFailoverStatus> statusHistory = new CopyOnWriteArrayList<>();
  final List<Event> events = new CopyOnWriteArrayList<>();
  final Map<String, String> roles = new ConcurrentHashMap<>();
  volatile String dnsTarget;
  volatile String activeTaintFree;
  volatile boolean dnsFails;

  @Override
  public GroupSnapshot loadGroup(GroupRef group) {
    return new GroupSnapshot(spec, status, annotation, 1L);
  }

  @Override
  public void writePlannedFailoverStatus(GroupRef group, PlannedFailoverStatus planned,
      MysqlFailoverGroupStatus.WorkflowRef workflow) {
    statusHistory.add(planned);
    status = status.withPlannedFailover(planned).withWorkflow(workflow);
  }

  @Override
  public void recordFailover(GroupRef group, String activeSite, String at, String promotionGtid) {
    status = status.withFailover(activeSite, at, promotionGtid);
  }

  @Override
  public void emitEvent(GroupRef group, String type, String reason, String message) {
    events.add(new Event(type, reason, message));
  }

  @Override
  public void setSiteRole(GroupRef group, SiteSpec site, String role) {
    roles.put(site.name(), role);
  }

  @Override
  public void updateDns(GroupRef group, String hostname, String ip, int ttl) {
    if (dnsFails) {
      throw ApplicationFailure.newNonRetryableFailure("DNSEndpoint CRD not installed", "DnsFailed");
    }
    dnsTarget = ip;
  }

  @Override
  public void applyTaints(GroupRef group, List<SiteSpec> sites, String activeSite) {
    activeTaintFree = activeSite;
  }

  @Override
  public void clearAnnotation(GroupRef group, String expectedValue) {
    if (expectedValue.equals(annotation)) {
      annotation = null;
    }
  }

  /** The phases the status went through, each run of repeated writes of one phase counted once. */
  List<String> phases() {
    List<String> phases = new java.util.ArrayList<>();
    for (PlannedFailoverStatus s : statusHistory) {
      if (phases.isEmpty() || !phases.get(phases.size() - 1).equals(s.phase())) {
        phases.add(s.phase());
      }
    }
    return phases;
  }

  String lastPhase() {
    return statusHistory.isEmpty() ? null : statusHistory.get(statusHistory.size() - 1).phase();
  }

  List<String> eventReasons() {
    return events.stream().map(Event::reason).toList();
  }
}
