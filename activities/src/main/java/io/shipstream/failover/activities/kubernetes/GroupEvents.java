package io.shipstream.failover.activities.kubernetes;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.shipstream.failover.kube.Conflicts;
import io.shipstream.failover.kube.JsonPatch;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.workflows.activities.KubernetesActivities.EventNote;
import io.shipstream.failover.workflows.contract.FailureTypes;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Events on the group, as {@code kubectl describe mysqlfailovergroup} and {@code kubectl get
 * events} show them.
 *
 * <p>These are core/v1 Events, not events.k8s.io/v1: both land in the same storage and both are
 * listed by kubectl, but the core form carries {@code count}, {@code firstTimestamp} and
 * {@code lastTimestamp}, which is exactly what aggregating a repeated event needs, and it needs
 * no reportingInstance or series bookkeeping to pass validation.
 *
 * <p>The name is {@code <group>.<hash>}, the hash taken over the group's uid, type, reason and
 * message: a repeat of the same event (a retried activity, a re-delivered request) finds the
 * existing one and bumps its count, as the kubelet's event correlator would, while any
 * different event gets its own name.
 */
record GroupEvents(KubernetesClient client, GroupStore groups, Clock clock) {
  private static final Logger log = LoggerFactory.getLogger(GroupEvents.class);
  static final String COMPONENT = "bloodraven-failover";
  static final String NORMAL = "Normal";
  static final String WARNING = "Warning";
  // events.k8s.io caps a note at 1 KiB; keeping core events to the same size keeps them readable.
  static final int MAX_MESSAGE = 1024;
  // The name must stay a DNS subdomain (253 characters) once ".<16 hex>" is appended.
  private static final int MAX_NAME_PREFIX = 253 - 17;

  /**
   * Emits each event in order. The group is read once for its uid, and each event is created
   * outright: only when it already exists (a repeat) is it read and its count bumped, so a new
   * event costs one request instead of three.
   */
  void emitAll(GroupRef group, List<EventNote> notes) {
    for (EventNote n : notes) {
      if (n.type() != null && !NORMAL.equals(n.type()) && !WARNING.equals(n.type())) {
        throw ApplicationFailure.newNonRetryableFailure(
            "Event type must be Normal or Warning, not " + n.type(), FailureTypes.INVALID_EVENT_TYPE);
      }
    }
    MysqlFailoverGroup cr = groups.find(group);
    // Without the resource there is no uid to point at; the event is still worth keeping, since
    // it may be the last word on a failover whose group was deleted underneath it.
    String uid = cr == null ? null : cr.getMetadata().getUid();
    for (EventNote n : notes) {
      emit(group, uid, n.type() == null ? NORMAL : n.type(), n.reason(),
          truncate(n.message() == null ? "" : n.message()));
    }
  }

  private void emit(GroupRef group, String uid, String eventType, String reason, String note) {
    String name = eventName(group.name(), uid, eventType, reason, note);
    String now = clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
    var events = client.v1().events().inNamespace(group.namespace());
    Event event = new EventBuilder()
        .withNewMetadata().withName(name).withNamespace(group.namespace()).endMetadata()
        .withNewInvolvedObject()
        .withApiVersion(MysqlFailoverGroup.API_VERSION)
        .withKind(GroupStore.KIND)
        .withName(group.name())
        .withNamespace(group.namespace())
        .withUid(uid)
        .endInvolvedObject()
        .withType(eventType)
        .withReason(reason)
        .withMessage(note)
        .withNewSource().withComponent(COMPONENT).endSource()
        .withReportingComponent(COMPONENT)
        .withFirstTimestamp(now)
        .withLastTimestamp(now)
        .withCount(1)
        .build();
    try {
      events.resource(event).create();
      log.info("Event {} {} on MysqlFailoverGroup {}: {}", eventType, reason, group, note);
      return;
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
    }
    Conflicts.retryRun("event " + name, () -> {
      Event existing = events.withName(name).get();
      if (existing == null) {
        events.resource(event).create();
        log.info("Event {} {} on MysqlFailoverGroup {}: {}", eventType, reason, group, note);
        return;
      }
      int count = Objects.requireNonNullElse(existing.getCount(), 1) + 1;
      // The count is guarded by a test op: two writers bumping it at once both succeed in turn.
      JsonPatch patch = new JsonPatch()
          .test("/metadata/resourceVersion", existing.getMetadata().getResourceVersion())
          .add("/count", count)
          .add("/lastTimestamp", now);
      events.resource(JsonPatch.target(new Event(), group.namespace(), name)).patch(PatchContext.of(PatchType.JSON),
          client.getKubernetesSerialization().asJson(patch.operations()));
      log.info("Event {} {} on MysqlFailoverGroup {} repeated (x{}): {}", eventType, reason, group, count, note);
    });
  }

  static String eventName(String groupName, String uid, String type, String reason, String message) {
    String prefix = groupName.length() > MAX_NAME_PREFIX ? groupName.substring(0, MAX_NAME_PREFIX) : groupName;
    String key = String.join("\u0000", String.valueOf(uid), type, String.valueOf(reason), message);
    return prefix + "." + HexFormat.of().formatHex(sha256(key), 0, 8);
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }

  private static String truncate(String message) {
    return message.length() <= MAX_MESSAGE ? message : message.substring(0, MAX_MESSAGE - 3) + "...";
  }
}
