package io.shipstream.failover.dev;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A field selector as a real API server applies it, for the fields it supports: {@code
 * metadata.name} and {@code metadata.namespace} on every resource (what {@code kubectl wait}
 * sends), and on Events the fields their registry declares, the {@code involvedObject.*} ones
 * first (what {@code kubectl get events --field-selector involvedObject.name=orders} and {@code
 * kubectl failover history} send). Terms are comma-joined, each {@code field=value}, {@code
 * field==value} or {@code field!=value}, and all must hold. The mock ignores field selectors, so
 * the gateway applies them itself; a field the resource does not support is refused as a real
 * API server refuses it (400, "field label not supported"), never silently ignored.
 */
record FieldSelector(List<Term> terms) {
  record Term(String field, String value, boolean equal) {}

  /** A selector that cannot be applied: the message a real API server gives. */
  static final class Unsupported extends IllegalArgumentException {
    Unsupported(String message) {
      super(message);
    }
  }

  /**
   * The fields of each resource beyond metadata.name and metadata.namespace, as the API server's
   * registry declares them (k8s.io/kubernetes pkg/registry/core/event/strategy.go for Events),
   * with the JSON path each one reads.
   */
  private static final Map<String, Map<String, String>> FIELDS = Map.of("events", Map.ofEntries(
      Map.entry("involvedObject.kind", "involvedObject.kind"),
      Map.entry("involvedObject.namespace", "involvedObject.namespace"),
      Map.entry("involvedObject.name", "involvedObject.name"),
      Map.entry("involvedObject.uid", "involvedObject.uid"),
      Map.entry("involvedObject.apiVersion", "involvedObject.apiVersion"),
      Map.entry("involvedObject.resourceVersion", "involvedObject.resourceVersion"),
      Map.entry("involvedObject.fieldPath", "involvedObject.fieldPath"),
      Map.entry("reason", "reason"),
      Map.entry("reportingComponent", "reportingComponent"),
      Map.entry("source", "source.component"),
      Map.entry("type", "type")));
  private static final Set<String> EVERY_RESOURCE = Set.of("metadata.name", "metadata.namespace");

  /** Null when the selector is absent or blank; for a metadata-only resource as {@code kubectl wait} sends. */
  static FieldSelector parse(String selector) {
    return parse(selector, "");
  }

  /**
   * The selector on {@code resource} (the plural, e.g. "events"); null when absent or blank.
   *
   * @throws Unsupported for a field the resource does not support, or a term that is not one
   */
  static FieldSelector parse(String selector, String resource) {
    if (selector == null || selector.isBlank()) {
      return null;
    }
    Map<String, String> fields = FIELDS.getOrDefault(resource, Map.of());
    List<Term> terms = new ArrayList<>();
    for (String term : selector.split(",")) {
      boolean equal = !term.contains("!=");
      String[] parts = term.split(equal ? "==?" : "!=", 2);
      if (parts.length != 2 || parts[0].isBlank()) {
        throw new Unsupported("invalid field selector term: '" + term + "'");
      }
      String field = parts[0].trim();
      String path = EVERY_RESOURCE.contains(field) ? field : fields.get(field);
      if (path == null) {
        throw new Unsupported("field label not supported: " + field);
      }
      terms.add(new Term(path, parts[1].trim(), equal));
    }
    return new FieldSelector(List.copyOf(terms));
  }

  boolean matches(JsonNode object) {
    for (Term t : terms) {
      JsonNode node = object;
      for (String step : t.field().split("\\.")) {
        node = node.path(step);
      }
      // A missing field compares as the empty string, as the API server's field sets hold it.
      String actual = node.isValueNode() ? node.asText("") : "";
      if (actual.equals(t.value()) != t.equal()) {
        return false;
      }
    }
    return true;
  }
}
