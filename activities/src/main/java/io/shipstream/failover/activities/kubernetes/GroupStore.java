package io.shipstream.failover.activities.kubernetes;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.shipstream.failover.kube.Conflicts;
import io.shipstream.failover.kube.JsonPatch;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.workflows.activities.KubernetesActivities.GroupSnapshot;
import io.shipstream.failover.workflows.contract.FailureTypes;
import io.temporal.failure.ApplicationFailure;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads and writes the {@code MysqlFailoverGroup} itself: the snapshot the workflows start from,
 * the status fields they own, and the request annotation they consume.
 */
final class GroupStore {
  private static final Logger log = LoggerFactory.getLogger(GroupStore.class);
  static final String KIND = "MysqlFailoverGroup";
  static final String GROUP_NOT_FOUND = FailureTypes.GROUP_NOT_FOUND;

  private final KubernetesClient client;
  private final Map<String, String> lastTimeWritten = new java.util.concurrent.ConcurrentHashMap<>();

  GroupStore(KubernetesClient client) {
    this.client = client;
  }

  /** The resource, or null when it does not exist. */
  MysqlFailoverGroup find(GroupRef group) {
    return resource(group).get();
  }

  GroupSnapshot load(GroupRef group) {
    MysqlFailoverGroup cr = find(group);
    if (cr == null) {
      throw ApplicationFailure.newNonRetryableFailure(
          "MysqlFailoverGroup " + group + " does not exist", GROUP_NOT_FOUND);
    }
    Map<String, String> annotations = cr.getMetadata().getAnnotations();
    String annotation = annotations == null ? null : annotations.get(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION);
    return new GroupSnapshot(cr.getSpec(), cr.getStatus(), annotation, cr.getMetadata().getGeneration());
  }

  /**
   * Sets the given top-level status fields (a null value removes the field) through the status
   * subresource, leaving every other status field as the server has it. Each field is replaced
   * whole, so no stale member of, say, the previous plannedFailover survives.
   */
  void patchStatusFields(GroupRef group, Map<String, Object> fields, String what) {
    patchStatusFields(group, fields, what, null, null, null);
  }

  /**
   * As {@link #patchStatusFields(GroupRef, Map, String)}, but written only while the status's
   * {@code timeField} (a dotted path such as {@code plannedFailover.startTime}) is not later than
   * {@code at}: a write that arrives late (a retry of a
   * failover long finished, still running in a worker after an API outage) never overwrites the
   * record of a newer failover. The check and the write are one step on the server: the patch
   * tests the time it read at {@code timeField} (the resourceVersion while none is recorded), and a
   * write that changed it makes it read and decide again; writes of other fields do not.
   *
   * <p>{@code atText} is the text this write stores at {@code timeField}, when it stores one. The
   * later writes of the same failover find their own time there, so they are first sent as one
   * patch that tests for it (one request instead of a read and a write); only when that test
   * fails (another failover's record) is the status read and compared. The first write of a
   * failover, which cannot find its time yet, goes straight to the read and compare: this worker
   * remembers the time it last wrote for each group and field.
   */
  void patchStatusFieldsUnlessNewer(GroupRef group, Map<String, Object> fields, String what, String timeField,
      Instant at, String atText) {
    patchStatusFieldsUnlessNewer(group, fields, what, timeField, at, atText, null);
  }

  /**
   * As above, and the fields {@code derived} computes from the status as read written in the same
   * patch (a list the write extends, such as {@code failoverHistory}); null: none. A derived write
   * always reads first, and its patch tests the resourceVersion read, so no concurrent write is lost.
   */
  void patchStatusFieldsUnlessNewer(GroupRef group, Map<String, Object> fields, String what, String timeField,
      Instant at, String atText, java.util.function.Function<MysqlFailoverGroupStatus, Map<String, Object>> derived) {
    // Only a hint of which way is likely to take one request: both ways are guarded.
    String key = group + " " + timeField;
    if (derived == null && atText != null && atText.equals(lastTimeWritten.get(key))
        && fields.values().stream().allMatch(java.util.Objects::nonNull)
        && patchIfTimeIs(group, fields, what, timeField, atText)) {
      return;
    }
    patchStatusFields(group, fields, what, timeField, at, derived);
    if (atText != null) {
      lastTimeWritten.put(key, atText);
    }
  }

  /** Writes the fields in one patch if the status holds {@code atText} at timeField; false if not. */
  private boolean patchIfTimeIs(GroupRef group, Map<String, Object> fields, String what, String timeField,
      String atText) {
    JsonPatch patch = new JsonPatch().test(JsonPatch.pointer(("status." + timeField).split("\\.")), atText);
    fields.forEach((k, v) -> patch.add(JsonPatch.pointer("status", k), v));
    try {
      patchable(group).subresource("status").patch(PatchContext.of(PatchType.JSON), json(patch));
    } catch (KubernetesClientException e) {
      if (Conflicts.isConflict(e)) {
        return false;
      }
      throw e;
    }
    log.info("Wrote status {} of MysqlFailoverGroup {}", fields.keySet(), group);
    return true;
  }

  private void patchStatusFields(GroupRef group, Map<String, Object> written, String what, String timeField,
      Instant at, java.util.function.Function<MysqlFailoverGroupStatus, Map<String, Object>> derived) {
    Conflicts.retryRun(what + " on " + group, () -> {
      MysqlFailoverGroup cr = require(group);
      Map<String, Object> fields = written;
      if (derived != null) {
        fields = new LinkedHashMap<>(written);
        fields.putAll(derived.apply(cr.getStatus()));
      }
      JsonPatch patch = new JsonPatch();
      if (timeField != null && cr.getStatus() != null) {
        Object recordedText = at(asMap(cr.getStatus()), timeField);
        Instant recorded = instantOrNull(recordedText);
        if (recorded != null && at != null && recorded.isAfter(at)) {
          log.warn("Not writing {} of MysqlFailoverGroup {}: status.{} {} is newer than this write's {}", what,
              group, timeField, recorded, at);
          return;
        }
        if (recordedText instanceof String text && derived == null) {
          // The guard is the time field as read: only a write of another failover changes it. A
          // test of the resourceVersion also failed on every unrelated write in between (the same
          // run's phase writes beside its failover record, the watcher's status.sites), and each
          // retry waited and read again: the failover record took three tries in a busy run.
          patch.test(JsonPatch.pointer(("status." + timeField).split("\\.")), text);
        } else {
          // No time recorded yet (a test cannot say "absent"), or a list derived from the status
          // as read: nothing may have changed since.
          patch.test("/metadata/resourceVersion", cr.getMetadata().getResourceVersion());
        }
      }
      if (cr.getStatus() == null) {
        // A fresh resource has no status object, and a JSON patch cannot add a member to a
        // missing parent on a real API server (the mock would create it). So add the whole
        // object, guarded so that a status another writer created meanwhile is never replaced.
        Map<String, Object> status = new LinkedHashMap<>();
        fields.forEach((k, v) -> {
          if (v != null) {
            status.put(k, v);
          }
        });
        if (status.isEmpty()) {
          return;
        }
        patch.test("/metadata/resourceVersion", cr.getMetadata().getResourceVersion()).add("/status", status);
      } else {
        Map<String, Object> current = asMap(cr.getStatus());
        fields.forEach((k, v) -> {
          if (v != null) {
            patch.add(JsonPatch.pointer("status", k), v);
          } else if (current.containsKey(k)) {
            patch.remove(JsonPatch.pointer("status", k));
          }
        });
      }
      if (!patch.changesSomething()) {
        return;
      }
      patchable(group).subresource("status").patch(PatchContext.of(PatchType.JSON), json(patch));
      log.info("Wrote status {} of MysqlFailoverGroup {}", fields.keySet(), group);
    });
  }

  /** The value at a dotted path of nested maps, or null where any step is missing. */
  @SuppressWarnings("unchecked")
  private static Object at(Map<String, Object> root, String dottedPath) {
    Object node = root;
    for (String step : dottedPath.split("\\.")) {
      if (!(node instanceof Map)) {
        return null;
      }
      node = ((Map<String, Object>) node).get(step);
    }
    return node;
  }

  private static Instant instantOrNull(Object value) {
    if (value == null) {
      return null;
    }
    try {
      return Instant.parse(value.toString());
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /**
   * Removes the planned-failover annotation only while it still holds expectedValue. The
   * {@code test} op makes the check and the removal one atomic step on the server: an operator
   * who re-annotated in between keeps the new request.
   */
  void clearAnnotation(GroupRef group, String expectedValue) {
    String key = MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION;
    if (expectedValue == null) {
      log.debug("No expected value for {} on {}; nothing to clear", key, group);
      return;
    }
    String path = JsonPatch.pointer("metadata", "annotations", key);
    JsonPatch patch = new JsonPatch().test(path, expectedValue).remove(path);
    try {
      patchable(group).patch(PatchContext.of(PatchType.JSON), json(patch));
      log.info("Removed annotation {}={} from MysqlFailoverGroup {}", key, expectedValue, group);
    } catch (KubernetesClientException e) {
      // The test failed: the annotation is gone or holds a newer request; or the group is gone.
      if (Conflicts.isConflict(e) || Conflicts.isNotFound(e)) {
        log.debug("Annotation {} on {} no longer holds {}; left alone", key, group, expectedValue);
        return;
      }
      throw e;
    }
  }

  private MysqlFailoverGroup require(GroupRef group) {
    MysqlFailoverGroup cr = find(group);
    if (cr == null) {
      throw ApplicationFailure.newNonRetryableFailure(
          "MysqlFailoverGroup " + group + " does not exist", GROUP_NOT_FOUND);
    }
    return cr;
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> asMap(MysqlFailoverGroupStatus status) {
    return client.getKubernetesSerialization().convertValue(status, Map.class);
  }

  private String json(JsonPatch patch) {
    return client.getKubernetesSerialization().asJson(patch.operations());
  }

  private Resource<MysqlFailoverGroup> resource(GroupRef group) {
    return client.resources(MysqlFailoverGroup.class).inNamespace(group.namespace()).withName(group.name());
  }

  /** The group to send a patch to, without the read fabric8 would do first (see JsonPatch.target). */
  private Resource<MysqlFailoverGroup> patchable(GroupRef group) {
    return client.resources(MysqlFailoverGroup.class).inNamespace(group.namespace())
        .resource(JsonPatch.target(new MysqlFailoverGroup(), group.namespace(), group.name()));
  }
}
