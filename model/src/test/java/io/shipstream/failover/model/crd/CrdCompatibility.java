package io.shipstream.failover.model.crd;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a newer CRD breaks for objects and clients of an older one, within each API version both
 * serve: a field removed, a type changed (integer to number excepted), a value set narrowed (an
 * enum losing a value, or a free value becoming an enum), a bound tightened (a maximum lowered, a
 * minimum raised, a length or item count tightened, a pattern or format or nullable taken away),
 * a new required field, a new validation rule, or unknown fields no longer kept. Each is named
 * by its path ({@code v1alpha1 spec.sites[].role}). Anything else (a new optional field, a new
 * enum value, a loosened bound, a new API version) is additive and accepted.
 */
final class CrdCompatibility {
  private CrdCompatibility() {}

  /** The breaking changes from {@code released} to {@code head}; empty when {@code head} only adds. */
  static List<String> breakingChanges(CustomResourceDefinition released, CustomResourceDefinition head) {
    List<String> problems = new ArrayList<>();
    for (CustomResourceDefinitionVersion old : released.getSpec().getVersions()) {
      CustomResourceDefinitionVersion now = head.getSpec().getVersions().stream()
          .filter(v -> v.getName().equals(old.getName())).findFirst().orElse(null);
      if (now == null) {
        problems.add(old.getName() + ": version removed");
        continue;
      }
      if (Boolean.TRUE.equals(old.getServed()) && !Boolean.TRUE.equals(now.getServed())) {
        problems.add(old.getName() + ": no longer served");
      }
      if (old.getSchema() != null && old.getSchema().getOpenAPIV3Schema() != null) {
        JSONSchemaProps newSchema = now.getSchema() == null ? null : now.getSchema().getOpenAPIV3Schema();
        compare(old.getName() + " ", "", old.getSchema().getOpenAPIV3Schema(), newSchema, problems);
      }
    }
    return problems;
  }

  /** {@code old} against {@code now} at {@code path}; {@code version} prefixes every message. */
  static void compare(String version, String path, JSONSchemaProps old, JSONSchemaProps now, List<String> problems) {
    String at = version + (path.isEmpty() ? "(root)" : path);
    if (now == null) {
      problems.add(at + ": schema removed");
      return;
    }
    if (old.getType() != null && !old.getType().equals(now.getType())
        && !("integer".equals(old.getType()) && "number".equals(now.getType()))) {
      problems.add(at + ": type " + old.getType() + " became " + now.getType());
    } else if (old.getType() == null && now.getType() != null) {
      problems.add(at + ": any type became " + now.getType());
    }
    tightened(at, "format", old.getFormat(), now.getFormat(), problems);
    tightened(at, "pattern", old.getPattern(), now.getPattern(), problems);
    enums(at, old.getEnum(), now.getEnum(), problems);
    upper(at, "maximum", old.getMaximum(), now.getMaximum(), problems);
    upper(at, "maxLength", old.getMaxLength(), now.getMaxLength(), problems);
    upper(at, "maxItems", old.getMaxItems(), now.getMaxItems(), problems);
    upper(at, "maxProperties", old.getMaxProperties(), now.getMaxProperties(), problems);
    lower(at, "minimum", old.getMinimum(), now.getMinimum(), problems);
    lower(at, "minLength", old.getMinLength(), now.getMinLength(), problems);
    lower(at, "minItems", old.getMinItems(), now.getMinItems(), problems);
    lower(at, "minProperties", old.getMinProperties(), now.getMinProperties(), problems);
    if (Boolean.TRUE.equals(old.getNullable()) && !Boolean.TRUE.equals(now.getNullable())) {
      problems.add(at + ": no longer nullable");
    }
    if (Boolean.TRUE.equals(old.getXKubernetesPreserveUnknownFields())
        && !Boolean.TRUE.equals(now.getXKubernetesPreserveUnknownFields())) {
      problems.add(at + ": unknown fields no longer kept (x-kubernetes-preserve-unknown-fields)");
    }
    Set<String> oldRules = rules(old.getXKubernetesValidations());
    for (String rule : rules(now.getXKubernetesValidations())) {
      if (!oldRules.contains(rule)) {
        problems.add(at + ": new validation rule " + rule);
      }
    }
    Set<String> required = new TreeSet<>(now.getRequired() == null ? List.of() : now.getRequired());
    required.removeAll(old.getRequired() == null ? List.of() : old.getRequired());
    for (String field : required) {
      problems.add(version + join(path, field) + ": new required field");
    }
    Map<String, JSONSchemaProps> oldProperties = old.getProperties() == null ? Map.of() : old.getProperties();
    Map<String, JSONSchemaProps> newProperties = now.getProperties() == null ? Map.of() : now.getProperties();
    for (Map.Entry<String, JSONSchemaProps> property : new java.util.TreeMap<>(oldProperties).entrySet()) {
      JSONSchemaProps newer = newProperties.get(property.getKey());
      if (newer == null) {
        problems.add(version + join(path, property.getKey()) + ": field removed");
      } else {
        compare(version, join(path, property.getKey()), property.getValue(), newer, problems);
      }
    }
    if (old.getItems() != null && old.getItems().getSchema() != null) {
      JSONSchemaProps newItems = now.getItems() == null ? null : now.getItems().getSchema();
      compare(version, path + "[]", old.getItems().getSchema(), newItems, problems);
    }
    if (old.getAdditionalProperties() != null && old.getAdditionalProperties().getSchema() != null) {
      JSONSchemaProps newValues = now.getAdditionalProperties() == null ? null
          : now.getAdditionalProperties().getSchema();
      compare(version, path + "{}", old.getAdditionalProperties().getSchema(), newValues, problems);
    }
  }

  private static String join(String path, String field) {
    return path.isEmpty() ? field : path + "." + field;
  }

  /** A constraint that is new or different: values the old one accepted may be refused now. */
  private static void tightened(String at, String what, String old, String now, List<String> problems) {
    if (now != null && !now.equals(old)) {
      problems.add(at + ": " + what + (old == null ? " added: " + now : " changed from " + old + " to " + now));
    }
  }

  private static void enums(String at, List<JsonNode> old, List<JsonNode> now, List<String> problems) {
    if (now == null || now.isEmpty()) {
      return;
    }
    if (old == null || old.isEmpty()) {
      problems.add(at + ": became an enum " + now);
      return;
    }
    Set<JsonNode> kept = new HashSet<>(now);
    List<JsonNode> lost = old.stream().filter(v -> !kept.contains(v)).toList();
    if (!lost.isEmpty()) {
      problems.add(at + ": enum lost " + lost);
    }
  }

  private static void upper(String at, String what, Number old, Number now, List<String> problems) {
    if (now != null && (old == null || now.doubleValue() < old.doubleValue())) {
      problems.add(at + ": " + what + " " + (old == null ? "added: " + now : "lowered from " + old + " to " + now));
    }
  }

  private static void lower(String at, String what, Number old, Number now, List<String> problems) {
    if (now != null && (old == null || now.doubleValue() > old.doubleValue())) {
      problems.add(at + ": " + what + " " + (old == null ? "added: " + now : "raised from " + old + " to " + now));
    }
  }

  private static Set<String> rules(List<ValidationRule> rules) {
    Set<String> out = new TreeSet<>();
    if (rules != null) {
      rules.stream().map(ValidationRule::getRule).filter(Objects::nonNull).forEach(out::add);
    }
    return out;
  }
}
