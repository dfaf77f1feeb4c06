package io.shipstream.failover.dev;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * The {@code meta.k8s.io/v1} Table an API server answers {@code kubectl get} with for a custom
 * resource, built from the CRD's additionalPrinterColumns as the API server's table convertor
 * does: a Name column first, a string cell printed as text, a date cell shown as an age
 * ({@code 5m}, {@code 3d4h}), a cell whose path selects nothing left null. The mock API server
 * has no server-side tables, so the playground's gateway builds them.
 */
final class PrinterTable {
  private record Column(CustomResourceColumnDefinition definition, SimpleJsonPath path) {}

  private static final ObjectMapper JSON = new ObjectMapper();
  private final List<Column> columns;
  private final Clock clock;

  PrinterTable(CustomResourceDefinition crd, Clock clock) {
    this.columns = crd.getSpec().getVersions().get(0).getAdditionalPrinterColumns().stream()
        .map(c -> new Column(c, SimpleJsonPath.parse(c.getJsonPath()))).toList();
    this.clock = clock;
  }

  /**
   * The Table of these objects. {@code includeObject} is the request's parameter: {@code None},
   * {@code Object}, or (the default) {@code Metadata}, which kubectl uses for namespaces and labels.
   */
  ObjectNode table(List<JsonNode> objects, String resourceVersion, String includeObject) {
    ObjectNode table = emptyTable(resourceVersion);
    ArrayNode definitions = table.putArray("columnDefinitions");
    definitions.addObject().put("name", "Name").put("type", "string").put("format", "name")
        .put("description", "Name must be unique within a namespace.").put("priority", 0);
    for (Column c : columns) {
      CustomResourceColumnDefinition d = c.definition();
      definitions.addObject().put("name", d.getName()).put("type", d.getType())
          .put("format", d.getFormat() == null ? "" : d.getFormat())
          .put("description", d.getDescription() == null ? "" : d.getDescription())
          .put("priority", d.getPriority() == null ? 0 : d.getPriority());
    }
    ArrayNode rows = table.putArray("rows");
    for (JsonNode object : objects) {
      ObjectNode row = rows.addObject();
      ArrayNode cells = row.putArray("cells");
      cells.add(object.path("metadata").path("name").asText());
      for (Column c : columns) {
        cells.add(c.path().first(object).map(v -> cell(c.definition().getType(), v)).orElse(null));
      }
      attachObject(row, object, includeObject);
    }
    return table;
  }

  /**
   * The Table of Events as a real API server prints them (its event table convertor): Last Seen,
   * Type, Reason, Object ({@code kind/name}, the kind in lower case), Message, then the name and
   * the rest at priority 1 ({@code -o wide}). A Last Seen of an Event without lastTimestamp is its
   * eventTime or creation time, as there.
   */
  ObjectNode eventTable(List<JsonNode> events, String resourceVersion, String includeObject) {
    ObjectNode table = emptyTable(resourceVersion);
    ArrayNode definitions = table.putArray("columnDefinitions");
    for (String[] c : new String[][] {{"Last Seen", "0"}, {"Type", "0"}, {"Reason", "0"}, {"Object", "0"},
        {"Subobject", "1"}, {"Source", "1"}, {"Message", "0"}, {"First Seen", "1"}, {"Count", "1"}, {"Name", "1"}}) {
      definitions.addObject().put("name", c[0]).put("type", c[0].equals("Count") ? "integer" : "string")
          .put("format", c[0].equals("Name") ? "name" : "").put("description", "").put("priority",
              Integer.parseInt(c[1]));
    }
    ArrayNode rows = table.putArray("rows");
    for (JsonNode e : events) {
      ObjectNode row = rows.addObject();
      ArrayNode cells = row.putArray("cells");
      String last = firstText(e, "lastTimestamp", "eventTime", "metadata/creationTimestamp");
      String first = firstText(e, "firstTimestamp", "eventTime", "metadata/creationTimestamp");
      JsonNode involved = e.path("involvedObject");
      cells.add(last == null ? "<unknown>" : cell("date", JSON.getNodeFactory().textNode(last)).asText());
      cells.add(e.path("type").asText(""));
      cells.add(e.path("reason").asText(""));
      cells.add(involved.path("kind").asText("").toLowerCase(java.util.Locale.ROOT) + "/"
          + involved.path("name").asText(""));
      cells.add(involved.path("fieldPath").asText(""));
      String source = firstText(e, "source/component", "reportingComponent");
      cells.add(source == null ? "" : source);
      cells.add(e.path("message").asText(""));
      cells.add(first == null ? "<unknown>" : cell("date", JSON.getNodeFactory().textNode(first)).asText());
      cells.add(e.path("count").asInt(1));
      cells.add(e.path("metadata").path("name").asText());
      attachObject(row, e, includeObject);
    }
    return table;
  }

  /** A Table with no columns or rows yet, at {@code resourceVersion} (null: none). */
  private static ObjectNode emptyTable(String resourceVersion) {
    ObjectNode table = JSON.createObjectNode().put("kind", "Table").put("apiVersion", "meta.k8s.io/v1");
    ObjectNode metadata = table.putObject("metadata");
    if (resourceVersion != null) {
      metadata.put("resourceVersion", resourceVersion);
    }
    return table;
  }

  /**
   * A row's object as the request's {@code includeObject} asks: the whole object, none, or (the
   * default) its metadata as a PartialObjectMetadata.
   */
  private static void attachObject(ObjectNode row, JsonNode object, String includeObject) {
    if ("Object".equals(includeObject)) {
      row.set("object", object);
    } else if (!"None".equals(includeObject)) {
      row.putObject("object").put("kind", "PartialObjectMetadata").put("apiVersion", "meta.k8s.io/v1")
          .set("metadata", object.path("metadata"));
    }
  }

  private static String firstText(JsonNode object, String... paths) {
    for (String path : paths) {
      JsonNode node = object.at("/" + path);
      if (node.isTextual() && !node.asText().isEmpty()) {
        return node.asText();
      }
    }
    return null;
  }

  private JsonNode cell(String type, JsonNode value) {
    if ("date".equals(type)) {
      try {
        return JSON.getNodeFactory().textNode(age(Duration.between(Instant.parse(value.asText()), clock.instant())));
      } catch (DateTimeParseException e) {
        return JSON.getNodeFactory().textNode("<invalid>");
      }
    }
    if ("string".equals(type)) {
      return JSON.getNodeFactory().textNode(value.isValueNode() ? value.asText() : value.toString());
    }
    return value;
  }

  /** Kubernetes' HumanDuration: an age as short as kubectl shows it everywhere else. */
  static String age(Duration d) {
    long seconds = d.getSeconds();
    if (seconds < -1) {
      return "<invalid>";
    } else if (seconds < 0) {
      return "0s";
    } else if (seconds < 120) {
      return seconds + "s";
    }
    long minutes = d.toMinutes();
    long hours = d.toHours();
    long days = hours / 24;
    if (minutes < 10) {
      return units(minutes, "m", seconds % 60, "s");
    } else if (minutes < 180) {
      return minutes + "m";
    } else if (hours < 8) {
      return units(hours, "h", minutes % 60, "m");
    } else if (hours < 48) {
      return hours + "h";
    } else if (days < 8) {
      return units(days, "d", hours % 24, "h");
    } else if (days < 365 * 2) {
      return days + "d";
    } else if (days < 365 * 8) {
      return units(days / 365, "y", days % 365, "d");
    }
    return days / 365 + "y";
  }

  /** {@code 3m}, or {@code 3m20s} when the smaller unit is not zero. */
  private static String units(long big, String bigUnit, long small, String smallUnit) {
    return small == 0 ? big + bigUnit : big + bigUnit + small + smallUnit;
  }
}
