package io.shipstream.failover.dev;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A field selector on {@code metadata.name} and {@code metadata.namespace}, the two every resource
 * supports on a real API server and the ones {@code kubectl wait} sends. The mock ignores field
 * selectors, so the gateway applies these itself; any other field is not understood here and the
 * request goes to the mock unchanged, as before.
 */
record FieldSelector(List<Term> terms) {
  record Term(String field, String value, boolean equal) {}

  /** Empty when the selector is absent or uses a field other than metadata.name and metadata.namespace. */
  static Optional<FieldSelector> parse(String selector) {
    if (selector == null || selector.isBlank()) {
      return Optional.empty();
    }
    List<Term> terms = new ArrayList<>();
    for (String term : selector.split(",")) {
      boolean equal = !term.contains("!=");
      String[] parts = term.split(equal ? "==?" : "!=", 2);
      if (parts.length != 2) {
        return Optional.empty();
      }
      String field = parts[0].trim();
      if (!field.equals("metadata.name") && !field.equals("metadata.namespace")) {
        return Optional.empty();
      }
      terms.add(new Term(field, parts[1].trim(), equal));
    }
    return Optional.of(new FieldSelector(List.copyOf(terms)));
  }

  boolean matches(JsonNode object) {
    JsonNode metadata = object.path("metadata");
    for (Term t : terms) {
      String actual = metadata.path(t.field().substring("metadata.".length())).asText("");
      if (actual.equals(t.value()) != t.equal()) {
        return false;
      }
    }
    return true;
  }
}
