package io.shipstream.failover.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An RFC 6902 JSON patch under construction. JSON patch is the one patch type that behaves the
 * same on a real API server and on the fabric8 mock: the mock merges arrays and keeps nulls in a
 * merge patch and knows no strategic merge, so every hand-written write in this package is a
 * JSON patch, guarded by {@code test} operations where a concurrent writer could interfere.
 */
public final class JsonPatch {
  private final List<Map<String, Object>> ops = new ArrayList<>();

  /**
   * {@code empty} named {@code name} in {@code namespace} (null for a cluster-scoped kind), to be
   * the object a patch is sent against. fabric8 reads the object from the server before it sends
   * a patch unless the operation carries one, which made every write here cost a read as well;
   * the name and namespace are all a JSON patch's URL needs.
   */
  public static <T extends HasMetadata> T target(T empty, String namespace, String name) {
    empty.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(namespace).build());
    return empty;
  }

  /** Escapes one path segment: a label key such as {@code shipstream.io/role} holds a slash. */
  public static String escape(String segment) {
    return segment.replace("~", "~0").replace("/", "~1");
  }

  /** Joins already-unescaped segments into a pointer, escaping each of them. */
  public static String pointer(String... segments) {
    StringBuilder sb = new StringBuilder();
    for (String s : segments) {
      sb.append('/').append(escape(s));
    }
    return sb.toString();
  }

  /**
   * Removes annotation {@code key} from {@code resource} only while it still holds {@code value}:
   * a value changed or removed meanwhile is somebody's new word, and the server refuses the patch
   * (422 or 409), which is thrown for the caller to leave it alone.
   */
  public static void removeAnnotationIfUnchanged(Resource<?> resource, String key, String value) {
    String path = pointer("metadata", "annotations", key);
    resource.patch(PatchContext.of(PatchType.JSON),
        Serialization.asJson(new JsonPatch().test(path, value).remove(path).operations()));
  }

  /** Fails the whole patch, atomically on the server, unless the value at path equals value. */
  public JsonPatch test(String path, Object value) {
    return op("test", path, value);
  }

  /** Adds a member, or replaces it when it exists (RFC 6902 section 4.1); the parent must exist. */
  public JsonPatch add(String path, Object value) {
    return op("add", path, value);
  }

  /** Removes a member, which must exist. */
  public JsonPatch remove(String path) {
    Map<String, Object> op = new LinkedHashMap<>();
    op.put("op", "remove");
    op.put("path", path);
    ops.add(op);
    return this;
  }

  /** True when the patch would change something: guards alone are no reason for a request. */
  public boolean changesSomething() {
    return ops.stream().anyMatch(op -> !"test".equals(op.get("op")));
  }

  /** The operations, ready to be serialised as the request body. */
  public List<Map<String, Object>> operations() {
    return Collections.unmodifiableList(ops);
  }

  private JsonPatch op(String name, String path, Object value) {
    Map<String, Object> op = new LinkedHashMap<>();
    op.put("op", name);
    op.put("path", path);
    // A JSON null is a legal value for add and test, so the key is always present.
    op.put("value", value);
    ops.add(op);
    return this;
  }
}
