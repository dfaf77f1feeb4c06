package io.shipstream.failover.model.crd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Everything the controller writes into status fits the generated CRD, so that a real API server,
 * which silently prunes what its structural schema does not declare, keeps all of it. The objects
 * the mock API server stored during the temporal-dev ITs are checked against the same schema there.
 */
class CrdSchemaTest {
  private static final CrdSchema SCHEMA = CrdSchema.generated();
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aStatusWithEveryFieldSetFitsTheSchema() {
    assertThat(SCHEMA.statusProblems(StatusSamples.everyField())).isEmpty();
  }

  /**
   * Removing any one status field from the schema makes the full status fail, naming that field:
   * the sample covers every declared field (the schema is generated from the status records, so
   * that is every record component and every condition field), and the check catches a field the
   * CRD lacks, which a real API server would drop without a word.
   */
  @Test
  void aStatusFieldMissingFromTheSchemaIsAnErrorNamingIt() {
    List<String> fields = new ArrayList<>();
    collectFields(SCHEMA.openApiSchema().at("/properties/status"), "/properties/status", fields);
    assertThat(fields).contains("/properties/status/properties/conditions/items/properties/observedGeneration",
        "/properties/status/properties/plannedFailover/properties/dragonfly/properties/syncWaitSeconds",
        "/properties/status/properties/emergencyFailover/properties/lostGtid");

    for (String field : fields) {
      String parent = field.substring(0, field.lastIndexOf("/properties/") + "/properties".length());
      String name = field.substring(field.lastIndexOf('/') + 1);
      CrdSchema without = SCHEMA.edited(s -> ((ObjectNode) s.at(parent)).remove(name));
      assertThat(without.statusProblems(StatusSamples.everyField()))
          .as("the status written with %s removed from the schema", field)
          .anySatisfy(problem -> assertThat(problem).contains("'" + name + "'").contains("not defined"));
    }
  }

  @Test
  void aFieldTheSchemaDoesNotDeclareIsAnError() {
    ObjectNode status = JSON.valueToTree(StatusSamples.everyField());
    ((ObjectNode) status.get("plannedFailover")).put("phaseStartedAt", "2026-04-20T14:32:00Z");
    ObjectNode resource = JSON.createObjectNode();
    resource.set("status", status);

    assertThat(SCHEMA.problems(resource)).singleElement().asString()
        .startsWith("/status/plannedFailover").contains("'phaseStartedAt'");
  }

  @Test
  void theExamplesFitTheSchema() throws IOException {
    try (Stream<Path> files = Files.list(Path.of("..", "examples"))) {
      List<Path> examples = files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
      assertThat(examples).isNotEmpty();
      for (Path example : examples) {
        assertThat(SCHEMA.problems(Files.readString(example))).as("%s", example).isEmpty();
      }
    }
  }

  private static void collectFields(JsonNode schema, String pointer, List<String> out) {
    schema.path("properties").fieldNames().forEachRemaining(name -> {
      String child = pointer + "/properties/" + name;
      out.add(child);
      collectFields(schema.path("properties").path(name), child, out);
    });
    if (schema.has("items")) {
      collectFields(schema.get("items"), pointer + "/items", out);
    }
  }
}
