package io.shipstream.failover.workflows.fakes;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.GuardRestart;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.temporal.failure.ApplicationFailure;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

/**
 * One resource and what the workflow wrote about it: status history, Events, labels, DNS, taints.
 * Shared by the planned and the emergency workflow tests.
 */
public class FakeKubernetes implements KubernetesActivities {
  public record Event(String type, String reason, String message) {}

  public volatile MysqlFailoverGroupSpec spec;
  public volatile MysqlFailoverGroupStatus status = MysqlFailoverGroupStatus.empty();
  public volatile String annotation;
  public final List<PlannedFailoverStatus> statusHistory = new CopyOnWriteArrayList<>();
  public final List<EmergencyFailoverStatus> emergencyHistory = new CopyOnWriteArrayList<>();
  public final List<Event> events = new CopyOnWriteArrayList<>();
  public final Map<String, String> roles = new ConcurrentHashMap<>();
  public volatile String dnsTarget;
  public volatile String activeTaintFree;
  public volatile boolean dnsFails;
  /** The session-store pods' shipstream.io/store-role by site. */
  public final Map<String, String> storeRoles = new ConcurrentHashMap<>();
  /** The session-store pods' shipstream.io/traffic by site: active or standby. */
  public final Map<String, String> storeTraffic = new ConcurrentHashMap<>();

  @Override
  public GroupSnapshot loadGroup(GroupRef group) {
    return new GroupSnapshot(spec, status, annotation, 1L);
  }

  @Override
  public synchronized void writePlannedFailoverStatus(GroupRef group, PlannedFailoverStatus planned,
      MysqlFailoverGroupStatus.WorkflowRef workflow) {
    statusHistory.add(planned);
    status = status.withPlannedFailover(planned).withWorkflow(workflow);
  }

  @Override
  public synchronized void writeEmergencyFailoverStatus(GroupRef group, EmergencyFailoverStatus emergency,
      MysqlFailoverGroupStatus.WorkflowRef workflow) {
    emergencyHistory.add(emergency);
    status = status.withEmergencyFailover(emergency).withWorkflow(workflow);
  }

  @Override
  public synchronized void recordFailover(GroupRef group, String activeSite, String at, String promotionGtid) {
    status = status.withFailover(activeSite, at, promotionGtid);
  }

  @Override
  public void emitEvents(GroupRef group, List<EventNote> notes) {
    notes.forEach(n -> events.add(new Event(n.type(), n.reason(), n.message())));
  }

  /** The site whose pods the API server refuses to label primary (RBAC, say); null: none. */
  public volatile String primaryLabelRefusedFor;
  /** When set, every replica label write hangs here until released (an API server that does not answer). */
  public volatile CountDownLatch replicaLabelGate;
  public final java.util.concurrent.atomic.AtomicInteger replicaLabelAttempts =
      new java.util.concurrent.atomic.AtomicInteger();

  @Override
  public void setSiteRole(GroupRef group, SiteSpec site, String role) {
    CountDownLatch gate = replicaLabelGate;
    if (gate != null && "replica".equals(role)) {
      replicaLabelAttempts.incrementAndGet();
      try {
        gate.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (site.name().equals(primaryLabelRefusedFor) && "primary".equals(role)) {
      throw io.temporal.failure.ApplicationFailure.newNonRetryableFailure("pods is forbidden", "Forbidden");
    }
    roles.put(site.name(), role);
  }

  @Override
  public void setStoreRole(GroupRef group, SiteSpec site, String role, boolean active) {
    if (role != null) {
      storeRoles.put(site.name(), role);
    }
    storeTraffic.put(site.name(), active ? "active" : "standby");
  }

  /** The sites whose store pods the active Service routes to. */
  public List<String> activeStores() {
    return storeTraffic.entrySet().stream().filter(e -> e.getValue().equals("active")).map(Map.Entry::getKey)
        .sorted().toList();
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

  /**
   * What the old primary's pods say of its sidecar's liveness probe. None by default, so that an
   * unconfirmed old primary is waited for by its lease alone (3.5 s with the rigs' knobs), as a
   * sidecar no kubelet restarts is; a test of the restart bound sets a probe.
   */
  public volatile GuardRestart.Reading sidecarProbe = GuardRestart.Reading.noProbe("the fake's pods declare none");

  @Override
  public GuardRestart.Reading sidecarProbe(GroupRef group, SiteSpec site) {
    return sidecarProbe;
  }

  @Override
  public void clearAnnotation(GroupRef group, String expectedValue) {
    if (expectedValue.equals(annotation)) {
      annotation = null;
    }
  }

  /** The phases the status went through, each run of repeated writes of one phase counted once. */
  public List<String> phases() {
    List<String> phases = new java.util.ArrayList<>();
    for (PlannedFailoverStatus s : statusHistory) {
      if (phases.isEmpty() || !phases.get(phases.size() - 1).equals(s.phase())) {
        phases.add(s.phase());
      }
    }
    return phases;
  }

  public String lastPhase() {
    return statusHistory.isEmpty() ? null : statusHistory.get(statusHistory.size() - 1).phase();
  }

  public List<String> eventReasons() {
    return events.stream().map(Event::reason).toList();
  }

  /** The phases status.emergencyFailover went through, each run of repeated writes of one phase counted once. */
  public List<String> emergencyPhases() {
    List<String> phases = new java.util.ArrayList<>();
    for (EmergencyFailoverStatus s : emergencyHistory) {
      if (phases.isEmpty() || !phases.get(phases.size() - 1).equals(s.phase())) {
        phases.add(s.phase());
      }
    }
    return phases;
  }

  public String lastEmergencyPhase() {
    return emergencyHistory.isEmpty() ? null : emergencyHistory.get(emergencyHistory.size() - 1).phase();
  }
}
