package io.shipstream.failover.watcher;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.shipstream.failover.kube.JsonPatch;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.workflows.contract.Events;
import java.time.Clock;
import java.time.Instant;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses a planned-failover request that never got a workflow (another kind of failover holds
 * the group): the status says Failed with the reason, an Event says why, and the annotation is
 * removed, exactly as a rejection inside the workflow would leave it.
 */
public class RequestRejections {
  private static final Logger log = LoggerFactory.getLogger(RequestRejections.class);

  private final KubernetesClient client;
  private final Clock clock;

  public RequestRejections(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  public void reject(GroupRef ref, String annotation, String target, String reason, String message) {
    log.warn("{}: planned failover '{}' refused: {}: {}", ref, annotation, reason, message);
    var resource = client.resources(MysqlFailoverGroup.class).inNamespace(ref.namespace()).withName(ref.name());
    String now = Instant.now(clock).toString();
    PlannedFailoverStatus failed = new PlannedFailoverStatus("Failed", target, null, null, null, now, now, 0.0, null,
        reason, null, message, null);
    // The watcher's other parts write the status too (sites, readiness, conditions): a write in
    // between is a conflict, read again and retried, never a refusal that is not written.
    MysqlFailoverGroup group = io.shipstream.failover.kube.Conflicts.retry("refusal of " + ref,
        () -> resource.editStatus(g -> {
          MysqlFailoverGroupStatus status = g.getStatus() == null ? MysqlFailoverGroupStatus.empty() : g.getStatus();
          g.setStatus(status.withPlannedFailover(failed));
          return g;
        }));
    client.v1().events().inNamespace(ref.namespace()).resource(new EventBuilder()
        .withNewMetadata().withName(ref.name() + "." + UUID.randomUUID().toString().replace("-", "").substring(0, 16))
        .withNamespace(ref.namespace()).endMetadata()
        .withInvolvedObject(new ObjectReferenceBuilder().withApiVersion(MysqlFailoverGroup.API_VERSION)
            .withKind("MysqlFailoverGroup").withName(ref.name()).withNamespace(ref.namespace())
            .withUid(group.getMetadata().getUid()).build())
        .withType(Events.PLANNED_FAILOVER_REJECTED.type().name()).withReason(Events.PLANNED_FAILOVER_REJECTED.reason())
        .withMessage(reason + ": " + message)
        .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
        .withNewSource().withComponent("bloodraven-failover").endSource()
        .withReportingComponent("bloodraven-failover")
        .build()).create();
    try {
      JsonPatch.removeAnnotationIfUnchanged(resource, MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION, annotation);
    } catch (KubernetesClientException e) {
      // 422/409: the user changed or removed the annotation meanwhile; theirs wins.
      log.info("{}: annotation not cleared ({}): it changed meanwhile", ref, e.getCode());
    }
  }
}
