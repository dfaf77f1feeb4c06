package io.shipstream.failover.watcher;

import com.fasterxml.jackson.databind.JsonMappingException;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns one untyped object into a {@link MysqlFailoverGroup}, never failing: unknown fields are
 * ignored (the model's types say so), and a part that cannot be read (a value of the wrong type,
 * a list where an object belongs) is left null and named in {@link MysqlFailoverGroup#unreadable()},
 * with the path of the value, so that the group is reported {@code InvalidSpec} and every other
 * group is read as before.
 */
final class GroupReader {
  private final KubernetesSerialization json;

  GroupReader(KubernetesSerialization json) {
    this.json = json;
  }

  MysqlFailoverGroup read(GenericKubernetesResource raw) {
    try {
      return json.convertValue(raw, MysqlFailoverGroup.class);
    } catch (IllegalArgumentException whole) {
      // Read part by part below, to say which part and to keep what can be read.
    }
    MysqlFailoverGroup group = new MysqlFailoverGroup();
    group.setMetadata(raw.getMetadata());
    List<String> problems = new ArrayList<>();
    Object spec = raw.getAdditionalProperties().get("spec");
    if (spec != null) {
      try {
        group.setSpec(json.convertValue(spec, MysqlFailoverGroupSpec.class));
      } catch (IllegalArgumentException e) {
        problems.add(problem("spec", e));
      }
    }
    boolean statusUnreadable = false;
    Object status = raw.getAdditionalProperties().get("status");
    if (status != null) {
      try {
        group.setStatus(json.convertValue(status, MysqlFailoverGroupStatus.class));
      } catch (IllegalArgumentException e) {
        problems.add(problem("status", e));
        statusUnreadable = true;
      }
    }
    if (problems.isEmpty()) {
      problems.add("the resource cannot be read as a MysqlFailoverGroup");
    }
    return group.markUnreadable(problems, statusUnreadable);
  }

  /** {@code spec.sites[0].mysql.port: cannot be read (Cannot deserialize value of type Integer from String "x")}. */
  static String problem(String root, IllegalArgumentException e) {
    Throwable cause = e;
    while (cause != null && !(cause instanceof JsonMappingException)) {
      cause = cause.getCause();
    }
    if (!(cause instanceof JsonMappingException mapping)) {
      return root + ": cannot be read (" + e.getMessage() + ")";
    }
    StringBuilder path = new StringBuilder(root);
    for (JsonMappingException.Reference r : mapping.getPath()) {
      if (r.getFieldName() != null) {
        path.append('.').append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        path.append('[').append(r.getIndex()).append(']');
      }
    }
    String why = mapping.getOriginalMessage();
    int newline = why.indexOf('\n');
    why = (newline < 0 ? why : why.substring(0, newline)).replace("java.lang.", "").replace("java.util.", "");
    return path + ": cannot be read (" + why + ")";
  }
}
