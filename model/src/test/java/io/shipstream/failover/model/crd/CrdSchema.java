package io.shipstream.failover.model.crd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.Consumer;

/**
 * The generated CRD's schema as a real API server applies it to what the controller writes. A
 * structural schema makes the API server drop, without an error, every field it does not declare;
 * so here an undeclared field is an error instead: every object schema that neither declares
 * {@code additionalProperties} nor carries {@code x-kubernetes-preserve-unknown-fields} is closed.
 * The root gets what the API server always allows beside the schema: apiVersion, kind, metadata.
 * CEL rules ({@code x-kubernetes-validations}) are not evaluated here.
 */
public final class CrdSchema {
  public static final String RESOURCE = "/META-INF/fabric8/mysqlfailovergroups.shipstream.io-v1.yml";
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private final ObjectNode openApiSchema;
  private final Schema closed;

  private CrdSchema(ObjectNode openApiSchema) {
    this.openApiSchema = openApiSchema;
    ObjectNode copy = openApiSchema.deepCopy();
    close(copy);
    ObjectNode root = (ObjectNode) copy.get("properties");
    root.putObject("apiVersion").put("type", "string");
    root.putObject("kind").put("type", "string");
    root.putObject("metadata").put("type", "object");
    this.closed = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_4).getSchema(copy);
  }

  /** The CRD the build generated from the model records, read from the class path. */
  public static CrdSchema generated() {
    try (InputStream in = CrdSchema.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing: the model module's build generates it");
      }
      JsonNode crd = YAML.readTree(in);
      return new CrdSchema((ObjectNode) crd.at("/spec/versions/0/schema/openAPIV3Schema"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A copy of this schema changed by {@code edit}, for tests that show what a missing declaration does. */
  public CrdSchema edited(Consumer<ObjectNode> edit) {
    ObjectNode copy = openApiSchema.deepCopy();
    edit.accept(copy);
    return new CrdSchema(copy);
  }

  /** The openAPIV3Schema as generated, unchanged; a copy. */
  public ObjectNode openApiSchema() {
    return openApiSchema.deepCopy();
  }

  /** The problems of a whole resource (apiVersion, kind, metadata, spec, status), each naming its location. */
  public List<String> problems(JsonNode resource) {
    return closed.validate(resource).stream().map(CrdSchema::describe).toList();
  }

  /** The problems of a resource read from YAML or JSON text. */
  public List<String> problems(String yamlOrJson) {
    try {
      return problems(YAML.readTree(yamlOrJson));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The problems of a status alone, as the status subresource receives it. */
  public List<String> statusProblems(Object status) {
    ObjectNode resource = YAML.createObjectNode();
    resource.set("status", YAML.valueToTree(status));
    return problems(resource);
  }

  private static String describe(Error error) {
    return error.getInstanceLocation() + ": " + error.getMessage();
  }

  private static void close(JsonNode schema) {
    if (!(schema instanceof ObjectNode node)) {
      return;
    }
    boolean open = node.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
    boolean object = node.has("properties") || "object".equals(node.path("type").asText());
    if (object && !node.has("additionalProperties") && !open) {
      node.put("additionalProperties", false);
    }
    node.path("properties").forEach(CrdSchema::close);
    close(node.get("items"));
    close(node.get("additionalProperties"));
  }
}
