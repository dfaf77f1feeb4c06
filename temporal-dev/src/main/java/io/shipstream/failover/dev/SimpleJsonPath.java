package io.shipstream.failover.dev;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JSONPath subset that printer columns use: fields ({@code .status.activeSite}), indexes
 * ({@code [0]}) and an equality filter on a list ({@code [?(@.type=="Ready")]}). Like the API
 * server's table convertor it yields the first match only. A path outside the subset is refused
 * when parsed, so that a new column the playground cannot show fails its test instead of showing
 * nothing.
 */
record SimpleJsonPath(String text, List<Step> steps) {
  private static final Pattern STEP = Pattern.compile(
      "\\.([A-Za-z0-9_-]+)|\\[(\\d+)]|\\[\\?\\(@\\.([A-Za-z0-9_-]+)\\s*==\\s*[\"']([^\"']*)[\"']\\)]");

  sealed interface Step permits Field, Index, Filter {}

  record Field(String name) implements Step {}

  record Index(int index) implements Step {}

  record Filter(String field, String value) implements Step {}

  static SimpleJsonPath parse(String text) {
    String path = text.startsWith("{") && text.endsWith("}") ? text.substring(1, text.length() - 1) : text;
    List<Step> steps = new ArrayList<>();
    Matcher m = STEP.matcher(path);
    int pos = 0;
    while (pos < path.length()) {
      if (!m.find(pos) || m.start() != pos) {
        throw new IllegalArgumentException("unsupported JSONPath '" + text + "' at " + pos);
      }
      if (m.group(1) != null) {
        steps.add(new Field(m.group(1)));
      } else if (m.group(2) != null) {
        steps.add(new Index(Integer.parseInt(m.group(2))));
      } else {
        steps.add(new Filter(m.group(3), m.group(4)));
      }
      pos = m.end();
    }
    return new SimpleJsonPath(text, List.copyOf(steps));
  }

  /** The first value the path selects, or empty when it selects nothing or null. */
  Optional<JsonNode> first(JsonNode root) {
    JsonNode node = root;
    for (Step step : steps) {
      if (node == null || node.isMissingNode() || node.isNull()) {
        return Optional.empty();
      }
      if (step instanceof Field f) {
        node = node.get(f.name());
      } else if (step instanceof Index i) {
        node = node.get(i.index());
      } else {
        node = firstMatching(node, (Filter) step);
      }
    }
    return node == null || node.isMissingNode() || node.isNull() ? Optional.empty() : Optional.of(node);
  }

  private static JsonNode firstMatching(JsonNode list, Filter filter) {
    for (JsonNode element : list) {
      JsonNode field = element.get(filter.field());
      if (field != null && field.isValueNode() && field.asText().equals(filter.value())) {
        return element;
      }
    }
    return null;
  }
}
