package io.shipstream.failover.model.crd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.TextNode;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaPropsBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRuleBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The CRD this build generates against the CRD of every release (committed under
 * {@code crd/<release>/}): within an API version it may only grow. Objects stored under a released
 * CRD must stay valid, and a released watcher or worker must still find every field it reads, so a
 * removed field, a narrowed type or enum, a tightened bound or a new required field fails here,
 * named. A change that needs one goes into a new API version.
 */
class CrdCompatibilityTest {
  /** Every release whose CRD is kept; a release adds its directory and its name here. */
  static final List<String> RELEASES = List.of("0.1.0");
  static final String FILE = "mysqlfailovergroups.shipstream.io-v1.yml";

  @Test
  void theGeneratedCrdOnlyAddsToEveryReleasedOne() throws IOException {
    CustomResourceDefinition head = load(GeneratedCrdTest.CRD);
    for (String release : RELEASES) {
      assertThat(CrdCompatibility.breakingChanges(load("/crd/" + release + "/" + FILE), head))
          .as("changes from the %s CRD that break its objects or its readers", release).isEmpty();
    }
  }

  // The comparator itself, on small schemas: each kind of breaking change is found and named.

  @Test
  void anIdenticalOrOnlyAddedSchemaIsAccepted() {
    assertThat(changes(s -> s)).isEmpty();
    assertThat(changes(s -> withProperty(s, "spec", new JSONSchemaPropsBuilder(s.getProperties().get("spec"))
        .addToProperties("comment", string()).build()))).as("a new optional field").isEmpty();
    assertThat(changes(s -> withSpecField(s, "mode", new JSONSchemaPropsBuilder().withType("string")
        .withEnum(new TextNode("a"), new TextNode("b"), new TextNode("c")).build()))).as("a new enum value").isEmpty();
    assertThat(changes(s -> withSpecField(s, "replicas", new JSONSchemaPropsBuilder().withType("integer")
        .withMinimum(0.0).withMaximum(10.0).build()))).as("a wider range").isEmpty();
    assertThat(changes(s -> withSpecField(s, "replicas", new JSONSchemaPropsBuilder().withType("number")
        .withMinimum(1.0).withMaximum(5.0).build()))).as("integer to number").isEmpty();
  }

  @Test
  void aRemovedFieldIsNamed() {
    assertThat(changes(s -> {
      JSONSchemaProps spec = new JSONSchemaPropsBuilder(s.getProperties().get("spec")).build();
      spec.getProperties().remove("mode");
      return withProperty(s, "spec", spec);
    })).containsExactly("v1alpha1 spec.mode: field removed");
    assertThat(changes(s -> {
      JSONSchemaProps sites = new JSONSchemaPropsBuilder(s.getProperties().get("spec").getProperties().get("sites"))
          .build();
      sites.getItems().getSchema().getProperties().remove("name");
      return withSpecField(s, "sites", sites);
    })).contains("v1alpha1 spec.sites[].name: field removed");
  }

  @Test
  void aNarrowedTypeOrEnumIsNamed() {
    assertThat(changes(s -> withSpecField(s, "replicas", string())))
        .containsExactly("v1alpha1 spec.replicas: type integer became string");
    assertThat(changes(s -> withSpecField(s, "mode", new JSONSchemaPropsBuilder().withType("string")
        .withEnum(new TextNode("a")).build()))).containsExactly("v1alpha1 spec.mode: enum lost [\"b\"]");
    assertThat(changes(s -> withSpecField(s, "comment", new JSONSchemaPropsBuilder().withType("string")
        .withEnum(new TextNode("x")).build()))).containsExactly("v1alpha1 spec.comment: became an enum [\"x\"]");
  }

  @Test
  void aTightenedBoundIsNamed() {
    assertThat(changes(s -> withSpecField(s, "replicas", new JSONSchemaPropsBuilder().withType("integer")
        .withMinimum(2.0).withMaximum(4.0).build())))
        .containsExactly("v1alpha1 spec.replicas: maximum lowered from 5.0 to 4.0",
            "v1alpha1 spec.replicas: minimum raised from 1.0 to 2.0");
    assertThat(changes(s -> withSpecField(s, "comment", new JSONSchemaPropsBuilder().withType("string")
        .withPattern("^[a-z]+$").withMaxLength(10L).build())))
        .containsExactly("v1alpha1 spec.comment: pattern added: ^[a-z]+$",
            "v1alpha1 spec.comment: maxLength added: 10");
    assertThat(changes(s -> withProperty(s, "spec", new JSONSchemaPropsBuilder(s.getProperties().get("spec"))
        .addNewXKubernetesValidation().withRule("self.replicas < 3").endXKubernetesValidation().build())))
        .containsExactly("v1alpha1 spec: new validation rule self.replicas < 3");
  }

  @Test
  void aNewRequiredFieldIsNamedButARequiredFieldInsideANewOptionalObjectIsNot() {
    assertThat(changes(s -> withProperty(s, "spec", new JSONSchemaPropsBuilder(s.getProperties().get("spec"))
        .addToProperties("owner", string()).addToRequired("owner").build())))
        .containsExactly("v1alpha1 spec.owner: new required field");
    assertThat(changes(s -> withProperty(s, "spec", new JSONSchemaPropsBuilder(s.getProperties().get("spec"))
        .addToRequired("comment").build())))
        .as("an optional field made required").containsExactly("v1alpha1 spec.comment: new required field");
    assertThat(changes(s -> withSpecField(s, "hooks", new JSONSchemaPropsBuilder().withType("object")
        .addToProperties("url", string()).addToRequired("url").build()))).isEmpty();
  }

  @Test
  void aRemovedVersionIsNamedAndANewOneIsAccepted() {
    CustomResourceDefinition released = crd(schema());
    CustomResourceDefinition renamed = new CustomResourceDefinitionBuilder(crd(schema())).editSpec()
        .editFirstVersion().withName("v1beta1").endVersion().endSpec().build();
    CustomResourceDefinition added = new CustomResourceDefinitionBuilder(crd(schema())).editSpec()
        .addNewVersion().withName("v1beta1").withServed(true).withStorage(false).endVersion().endSpec().build();

    assertThat(CrdCompatibility.breakingChanges(released, renamed)).containsExactly("v1alpha1: version removed");
    assertThat(CrdCompatibility.breakingChanges(released, added)).isEmpty();
  }

  /** The breaking changes from the small schema to {@code change} of it. */
  private static List<String> changes(UnaryOperator<JSONSchemaProps> change) {
    return CrdCompatibility.breakingChanges(crd(schema()), crd(change.apply(schema())));
  }

  /**
   * {@code spec}: a required enum {@code mode}, an integer {@code replicas} in [1, 5], an optional
   * text {@code comment}, and a list of {@code sites} each with a required {@code name}.
   */
  private static JSONSchemaProps schema() {
    return new JSONSchemaPropsBuilder().withType("object")
        .addToProperties("spec", new JSONSchemaPropsBuilder().withType("object")
            .addToProperties("mode", new JSONSchemaPropsBuilder().withType("string")
                .withEnum(new TextNode("a"), new TextNode("b")).build())
            .addToProperties("replicas", new JSONSchemaPropsBuilder().withType("integer").withMinimum(1.0)
                .withMaximum(5.0).build())
            .addToProperties("comment", string())
            .addToProperties("sites", new JSONSchemaPropsBuilder().withType("array").withNewItems()
                .withSchema(new JSONSchemaPropsBuilder().withType("object").addToProperties("name", string())
                    .addToRequired("name").build())
                .endItems().build())
            .addToRequired("mode")
            .build())
        .build();
  }

  private static JSONSchemaProps string() {
    return new JSONSchemaPropsBuilder().withType("string").build();
  }

  private static JSONSchemaProps withSpecField(JSONSchemaProps root, String field, JSONSchemaProps value) {
    return withProperty(root, "spec", new JSONSchemaPropsBuilder(root.getProperties().get("spec"))
        .addToProperties(field, value).build());
  }

  private static JSONSchemaProps withProperty(JSONSchemaProps root, String field, JSONSchemaProps value) {
    return new JSONSchemaPropsBuilder(root).addToProperties(field, value).build();
  }

  private static CustomResourceDefinition crd(JSONSchemaProps schema) {
    return new CustomResourceDefinitionBuilder().withNewMetadata().withName("things.example.io").endMetadata()
        .withNewSpec().withGroup("example.io").addNewVersion().withName("v1alpha1").withServed(true)
        .withStorage(true).withNewSchema().withOpenAPIV3Schema(schema).endSchema().endVersion().endSpec().build();
  }

  private static CustomResourceDefinition load(String resource) throws IOException {
    try (InputStream in = CrdCompatibilityTest.class.getResourceAsStream(resource)) {
      assertThat(in).as(resource).isNotNull();
      return Serialization.unmarshal(in, CustomResourceDefinition.class);
    }
  }
}
