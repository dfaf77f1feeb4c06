package io.shipstream.failover.model.crd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A field this version does not know is ignored wherever it sits: a CRD upgraded ahead of the
 * watcher, or an object created with {@code --validate=false}, must not make the group unreadable
 * (the informer would stop on it, for every group).
 */
class TolerantReadingTest {
  private static final KubernetesSerialization JSON = new KubernetesSerialization();

  @Test
  void unknownFieldsAtEveryLevelAreIgnored() throws IOException {
    MysqlFailoverGroup plain;
    JsonNode tree;
    try (InputStream in = TolerantReadingTest.class.getResourceAsStream("/orders.yaml")) {
      plain = JSON.unmarshal(in, MysqlFailoverGroup.class);
    }
    tree = JSON.convertValue(plain, JsonNode.class);
    ObjectNode extended = tree.deepCopy();
    extended.put("frobnicate", 1);
    ((ObjectNode) extended.get("spec")).put("frobnicate", true);
    ((ObjectNode) extended.get("spec").get("sites").get(0)).putObject("weight").put("value", 3);
    ((ObjectNode) extended.get("spec").get("sites").get(0).get("mysql")).put("tls", "required");
    ((ObjectNode) extended.get("status")).put("newerField", "x");
    ((ObjectNode) extended.get("status").get("plannedFailover")).putArray("steps").add("a");

    MysqlFailoverGroup read = JSON.unmarshal(extended.toString(), MysqlFailoverGroup.class);

    assertThat(read.getSpec()).isEqualTo(plain.getSpec());
    assertThat(read.getStatus()).isEqualTo(plain.getStatus());
    assertThat(read.unreadable()).isEmpty();
  }

  /** A guard for records added later: every type reachable from spec and status ignores unknown fields. */
  @Test
  void everySpecAndStatusTypeIgnoresUnknownFields() {
    Set<Class<?>> seen = new LinkedHashSet<>();
    Deque<Type> todo = new ArrayDeque<>();
    todo.add(MysqlFailoverGroupSpec.class);
    todo.add(MysqlFailoverGroupStatus.class);
    while (!todo.isEmpty()) {
      Type t = todo.pop();
      if (t instanceof ParameterizedType p) {
        todo.addAll(java.util.List.of(p.getActualTypeArguments()));
      } else if (t instanceof Class<?> c && c.isRecord() && c.getPackageName().equals(MysqlFailoverGroup.class
          .getPackageName()) && seen.add(c)) {
        for (RecordComponent rc : c.getRecordComponents()) {
          todo.add(rc.getGenericType());
        }
      }
    }
    assertThat(seen).hasSizeGreaterThan(15);
    assertThat(seen).allSatisfy(c -> assertThat(c.getAnnotation(JsonIgnoreProperties.class))
        .as(c.getName()).isNotNull().extracting(JsonIgnoreProperties::ignoreUnknown).isEqualTo(true));
  }
}
