package io.shipstream.failover.watcher;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.Phase;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SiteStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.model.topology.PromoteAnywayAnnotation;
import io.shipstream.failover.model.topology.Verdict;
import io.shipstream.failover.watcher.topology.GroupEffects;
import io.shipstream.failover.watcher.topology.LeaseFenceLifts;
import io.shipstream.failover.watcher.topology.OldPrimaryRecovery;
import io.shipstream.failover.watcher.topology.SiteConnector;
import io.shipstream.failover.watcher.topology.TopologyMetrics;
import io.shipstream.failover.watcher.topology.VerdictReactions;
import io.shipstream.failover.workflows.contract.WorkflowTypes;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/**
 * The real effects of the monitor: workflow starts through {@link FailoverStarter}, fencing
 * through the {@link SiteConnector}, Events, and status writes as JSON patches of the status
 * subresource that touch only the fields the monitor owns, so they never overwrite what a
 * workflow writes at the same time.
 */
public final class KubeEffects implements GroupEffects, LeaseFenceLifts.Effects {
  static final String COMPONENT = "bloodraven-failover";
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(KubeEffects.class);

  private final KubernetesClient client;
  private final FailoverStarter starter;
  private final SiteConnector sites;
  private final Function<GroupRef, Optional<MysqlFailoverGroup>> latest;
  private final Clock clock;
  private volatile TopologyMetrics warnings;
  /** The spec each group is monitored with ({@code TopologyMonitor#acceptedSpec}); none: the resource's. */
  private volatile Function<GroupRef, Optional<MysqlFailoverGroupSpec>> acceptedSpecs = g -> Optional.empty();

  public KubeEffects(KubernetesClient client, FailoverStarter starter, SiteConnector sites,
      Function<GroupRef, Optional<MysqlFailoverGroup>> latest, Clock clock) {
    this.client = client;
    this.starter = starter;
    this.sites = sites;
    this.latest = latest;
    this.clock = clock;
  }

  @Override
  public boolean startEmergency(GroupRef group, Verdict.Promote p, Map<String, String> siteGtids) {
    return startEmergency(group, p, siteGtids, null);
  }

  @Override
  public boolean startEmergency(GroupRef group, Verdict.Promote p, Map<String, String> siteGtids,
      VerdictReactions.Detection detection) {
    EmergencyFailoverStatus.ForcedPromotion forced = p.lagOverride() == null ? null
        : new EmergencyFailoverStatus.ForcedPromotion(PromoteAnywayAnnotation.ANNOTATION + "=" + p.candidate(),
            p.lagOverride().limit(), p.lagOverride().notReceived(), p.lagOverride().notReceivedGtid());
    var outcome = starter.startEmergency(group, p.failedSite(), p.candidate(), p.failedSiteLastGtid(), p.reason(),
        siteGtids, forced, acceptedSpecs.apply(group).orElse(null),
        detection == null || detection.detectedAt() == null ? null : detection.detectedAt().toString(),
        detection == null || detection.lastPolledAt() == null ? null : detection.lastPolledAt().toString());
    if (outcome instanceof FailoverStarter.AlreadyRunning running
        && WorkflowTypes.PLANNED_FAILOVER.equals(running.workflowType())
        && plannedWaiting(group)) {
      // A planned request that only waits must not keep a dead primary from being replaced: it is
      // cancelled (it has changed nothing yet), and the next poll starts the emergency failover.
      starter.preemptPlanned(group, "pre-empted by an emergency failover: the active site '" + p.failedSite()
          + "' failed (" + p.reason() + ")");
    }
    if (outcome instanceof FailoverStarter.Started started) {
      replacePreviousRecord(group, p, started.runId());
    }
    return outcome instanceof FailoverStarter.Started;
  }

  /** How often {@link #replacePreviousRecord} reads again after another write came between. */
  private static final int RECORD_ATTEMPTS = 3;

  /**
   * The first thing after an emergency start: {@code status.emergencyFailover} still holds the
   * previous run's record (Succeeded, say) until the new run's first step writes its own, which
   * waits for a worker to take the run, and a script polling for Succeeded would take the old run
   * for the new one. So the record is replaced here by the new run's: Pending, with its failed
   * site, target and trigger, and {@code status.workflow} naming its run id.
   *
   * <p>Written only while it replaces exactly what was read: the patch tests the resourceVersion
   * read just before, and a write that came between (the run's own first write, which carries the
   * same run id) makes it read and decide again. Nothing is written when the status names another
   * site active than the failed one: the run will find its request superseded and end without
   * writing (it must not overwrite the real outcome), so a Pending written here would stay for ever.
   * No {@code startTime} is set: the run's own writes are refused when the recorded start is later
   * than theirs, and this process's clock is not the workflow's.
   */
  void replacePreviousRecord(GroupRef group, Verdict.Promote p, String runId) {
    for (int attempt = 1; attempt <= RECORD_ATTEMPTS; attempt++) {
      MysqlFailoverGroup current;
      try {
        current = client.resources(MysqlFailoverGroup.class).inNamespace(group.namespace()).withName(group.name())
            .get();
      } catch (KubernetesClientException e) {
        log.warn("{}: cannot read the group to replace the previous "
            + "emergency failover's record: {}", group, e.toString());
        return;
      }
      MysqlFailoverGroupStatus status = current == null ? null : current.getStatus();
      if (status == null || status.emergencyFailover() == null || !p.failedSite().equals(status.activeSite())
          || status.workflow() != null && runId.equals(status.workflow().runId())) {
        // No previous record to mistake for this run's, a superseded request, or the run wrote first.
        return;
      }
      EmergencyFailoverStatus pending = new EmergencyFailoverStatus(Phase.Pending.name(), p.failedSite(),
          p.candidate(), p.reason(), null, null, null, null, null, p.failedSiteLastGtid(), null, null, null,
          "started by the watcher at " + Instant.now(clock) + "; waiting for a worker to take its first step");
      MysqlFailoverGroupStatus.WorkflowRef workflow = new MysqlFailoverGroupStatus.WorkflowRef(
          io.shipstream.failover.workflows.common.FailoverKind.EMERGENCY.workflowType(), group.workflowId(), runId);
      List<Map<String, Object>> ops = List.of(
          Map.of("op", "test", "path", "/metadata/resourceVersion", "value",
              current.getMetadata().getResourceVersion()),
          Map.of("op", "add", "path", "/status/emergencyFailover", "value", pending),
          Map.of("op", "add", "path", "/status/workflow", "value", workflow));
      MysqlFailoverGroup target = new MysqlFailoverGroup();
      target.getMetadata().setName(group.name());
      target.getMetadata().setNamespace(group.namespace());
      try {
        client.resources(MysqlFailoverGroup.class).inNamespace(group.namespace()).resource(target)
            .subresource("status")
            .patch(PatchContext.of(PatchType.JSON), client.getKubernetesSerialization().asJson(ops));
        return;
      } catch (KubernetesClientException e) {
        if (!io.shipstream.failover.kube.Conflicts.isConflict(e)) {
          // Best effort: the run's own first write follows.
          log.warn("{}: cannot replace the previous emergency "
              + "failover's record: {}", group, e.toString());
          return;
        }
      }
    }
  }

  /** Whether the group's planned failover, as its status last said, only waits ({@link Phase#isWaiting}). */
  private boolean plannedWaiting(GroupRef group) {
    String phase = latest.apply(group).map(MysqlFailoverGroup::getStatus).map(s -> s.plannedFailover())
        .map(pf -> pf.phase()).orElse(null);
    return Phase.isWaiting(phase);
  }

  /**
   * Removes the annotation if it still has {@code value}: a JSON patch that tests the value first,
   * so a value the user changed meanwhile is theirs and stays.
   */
  @Override
  public void removeAnnotation(GroupRef group, String key, String value) {
    String path = "/metadata/annotations/" + key.replace("~", "~0").replace("/", "~1");
    MysqlFailoverGroup target = new MysqlFailoverGroup();
    target.getMetadata().setName(group.name());
    target.getMetadata().setNamespace(group.namespace());
    try {
      client.resources(MysqlFailoverGroup.class).inNamespace(group.namespace()).resource(target)
          .patch(PatchContext.of(PatchType.JSON), client.getKubernetesSerialization().asJson(List.of(
              Map.of("op", "test", "path", path, "value", value), Map.of("op", "remove", "path", path))));
    } catch (KubernetesClientException e) {
      // 422: the user changed or removed it meanwhile; theirs wins.
      if (e.getCode() != 422 && e.getCode() != 409) {
        throw e;
      }
    }
  }

  @Override
  public boolean failoverRunning(GroupRef group) {
    // A planned failover that only waits (Scheduled, for days maybe; Deferred), as its own status
    // says, has touched nothing and owns no routing yet: the repairs go on meanwhile. Its status
    // writes are local activities, which its workflow task waits for, so the phase after the wait
    // is on the resource before its fence is even scheduled.
    return starter.runningRunId(group).filter(run -> !waitingRun(group, run)).isPresent();
  }

  /** Whether the status names {@code runId} as its workflow and says its planned failover only waits. */
  private boolean waitingRun(GroupRef group, String runId) {
    MysqlFailoverGroupStatus status = latest.apply(group).map(MysqlFailoverGroup::getStatus).orElse(null);
    return status != null && status.workflow() != null && runId.equals(status.workflow().runId())
        && status.plannedFailover() != null && Phase.isWaiting(status.plannedFailover().phase());
  }

  @Override
  public boolean sourceDied(GroupRef group, String runId, String why) {
    return starter.sourceDied(group, runId, why);
  }

  @Override
  public Probe pollNow(GroupRef group, String site) {
    GroupConfig config = config(group);
    return sites.probe(group, config, site(config, site));
  }

  @Override
  public void fence(GroupRef group, String site) throws Exception {
    GroupConfig config = config(group);
    sites.fence(group, config, site(config, site));
  }

  /** The group's config from the spec it is monitored with ({@link #acceptedSpecs}), else the resource's. */
  private GroupConfig config(GroupRef group) {
    MysqlFailoverGroup g = latest.apply(group).orElseThrow(() -> new IllegalStateException("group is gone"));
    return GroupConfig.resolve(acceptedSpecs.apply(group).orElse(g.getSpec()));
  }

  private static SiteSpec site(GroupConfig config, String site) {
    return config.site(site).orElseThrow(() -> new IllegalStateException("no site '" + site + "'"));
  }

  /**
   * Acts with the spec each group is monitored with rather than the resource's: a spec edit that
   * does not resolve is refused, and the fences and failovers the monitor decides go on with the
   * spec accepted before.
   */
  public KubeEffects acceptedSpecs(Function<GroupRef, Optional<MysqlFailoverGroupSpec>> specs) {
    this.acceptedSpecs = specs;
    return this;
  }

  @Override
  public boolean liftLeaseFence(GroupRef group, GroupConfig config, SiteSpec site) throws Exception {
    return starter.whileNoFailover(group, () -> sites.unfence(group, config, site));
  }

  /**
   * Makes the active site a DBA unfenced writable, under the lock every failover start takes and
   * only while no failover's workflow exists for the group, even one that waits (Scheduled,
   * Deferred): a planned failover fences its source itself and then promotes its target, and a
   * source made writable after that fence would be a second primary. Refused meanwhile; the site
   * stays listed and the next evaluation tries again.
   */
  @Override
  public void unfence(GroupRef group, String site) throws Exception {
    GroupConfig config = config(group);
    SiteSpec spec = site(config, site);
    if (!starter.whileNoFailover(group, () -> sites.unfence(group, config, spec))) {
      throw new IllegalStateException("a failover's workflow runs for the group (or waits): '" + site
          + "' is made writable once it ends");
    }
  }

  @Override
  public void recordFencedSites(GroupRef group, List<String> fenced) {
    patchStatus(group, "fencedSites", fenced);
  }

  /** Counts every Warning Event written from now on in {@code metrics}. */
  public KubeEffects countingWarnings(TopologyMetrics metrics) {
    this.warnings = metrics;
    return this;
  }

  @Override
  public void event(GroupRef group, String type, String reason, String message) {
    if (warnings != null && "Warning".equals(type)) {
      warnings.warning(group, reason);
    }
    String uid = latest.apply(group).map(g -> g.getMetadata().getUid()).orElse(null);
    emit(client, clock, group, uid, type, reason, message);
  }

  /** Writes one Event on the group (the object {@code uid}, null when unknown); the watcher's one way to. */
  public static void emit(KubernetesClient client, Clock clock, GroupRef group, String uid, String type, String reason,
      String message) {
    String now = Instant.now(clock).toString();
    client.v1().events().inNamespace(group.namespace()).resource(new EventBuilder()
        .withNewMetadata().withName(group.name() + "." + UUID.randomUUID().toString().replace("-", "").substring(0, 16))
        .withNamespace(group.namespace()).endMetadata()
        .withInvolvedObject(new ObjectReferenceBuilder().withApiVersion(MysqlFailoverGroup.API_VERSION)
            .withKind("MysqlFailoverGroup").withName(group.name()).withNamespace(group.namespace())
            .withUid(uid).build())
        .withType(type).withReason(reason).withMessage(message)
        .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
        .withNewSource().withComponent(COMPONENT).endSource()
        .withReportingComponent(COMPONENT)
        .build()).create();
  }

  @Override
  public void recordActiveSite(GroupRef group, String site) {
    patchStatus(group, "activeSite", site);
  }

  /** Replaces {@code status.lostTransactions} ({@link OldPrimaryRecovery.Losses}). */
  public void recordLostTransactions(GroupRef group,
      List<io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.LostTransactions> all) {
    patchStatus(group, "lostTransactions", all);
  }

  /**
   * Replaces {@code status.sites} and {@code status.readySites} (the printer column's scalar) in one
   * write, leaving every other status field as the server has it.
   */
  public void writeSites(GroupRef group, List<SiteStatus> statuses) {
    Map<String, Object> fields = new java.util.LinkedHashMap<>();
    fields.put("sites", statuses);
    fields.put("readySites", io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.readySites(statuses));
    patchStatus(group, fields);
  }

  /**
   * Replaces {@code status.semiSync}: the group's durability as its primary reports it; null
   * removes it (semi-sync switched off on every site), when it is there.
   */
  public void writeSemiSync(GroupRef group,
      io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SemiSyncStatus s) {
    if (s != null) {
      patchStatus(group, "semiSync", s);
      return;
    }
    boolean shown = latest.apply(group).map(g -> g.getStatus() != null && g.getStatus().semiSync() != null)
        .orElse(false);
    if (shown) {
      patchStatus(group, List.of(Map.of("op", "remove", "path", "/status/semiSync")));
    }
  }

  /** Replaces {@code status.conditions} and {@code status.observedGeneration} in one write. */
  public void writeConditions(GroupRef group, List<io.fabric8.kubernetes.api.model.Condition> conditions,
      Long generation) {
    Map<String, Object> fields = new java.util.LinkedHashMap<>();
    fields.put("conditions", conditions);
    if (generation != null) {
      fields.put("observedGeneration", generation);
    }
    patchStatus(group, fields);
  }

  private void patchStatus(GroupRef group, String field, Object value) {
    patchStatus(group, Map.of(field, value));
  }

  private void patchStatus(GroupRef group, Map<String, Object> fields) {
    // A status this version cannot read is still there: its other fields must not be replaced.
    boolean hasStatus = latest.apply(group).map(g -> g.getStatus() != null || g.statusUnreadable()).orElse(false);
    // "add" replaces a member that exists; a resource without any status needs the object first.
    List<Map<String, Object>> ops = new java.util.ArrayList<>();
    if (hasStatus) {
      fields.forEach((field, value) -> ops.add(Map.of("op", "add", "path", "/status/" + field, "value", value)));
    } else {
      ops.add(Map.of("op", "add", "path", "/status", "value", fields));
    }
    patchStatus(group, ops);
  }

  private void patchStatus(GroupRef group, List<Map<String, Object>> ops) {
    // Sent against an object with only the name, so that fabric8 does not read the group first.
    MysqlFailoverGroup target = new MysqlFailoverGroup();
    target.getMetadata().setName(group.name());
    target.getMetadata().setNamespace(group.namespace());
    client.resources(MysqlFailoverGroup.class).inNamespace(group.namespace()).resource(target)
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON), client.getKubernetesSerialization().asJson(ops));
  }
}
