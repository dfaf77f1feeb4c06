package io.shipstream.failover.workflows.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;

/** The reflective builder of the golden payloads' values: every field set, nested ones too, the same each time. */
class SampleValuesTest {
  enum Color { RED, GREEN }

  record Leaf(String text, int small, long big, double ratio, boolean flag, Boolean boxed, Long maybe) {}

  record Times(Instant at, Duration timeout) {}

  record Holder<T>(T value, List<T> values) {}

  record Everything(Leaf leaf, List<Leaf> leaves, Set<String> names, Map<String, Leaf> bySite,
      SortedMap<String, Integer> sorted, Optional<String> optional, Color color, Times times, String[] array,
      Holder<Leaf> generic) {}

  record Refusing(String name) {
    Refusing {
      if (!name.startsWith("ok")) {
        throw new IllegalArgumentException("name must start with ok");
      }
    }
  }

  record WithRefusing(List<Refusing> nested) {}

  record Loop(String name, Loop next) {}

  interface Shape {}

  record WithInterface(Shape shape) {}

  @Test
  void everyComponentIsSetNestedRecordsCollectionsAndMapsToo() {
    Everything value = (Everything) SampleValues.of(Everything.class);
    assertThat(value.leaf()).hasNoNullFieldsOrProperties();
    assertThat(value.leaf().text()).startsWith("text-");
    assertThat(value.leaves()).singleElement().hasNoNullFieldsOrProperties();
    assertThat(value.names()).singleElement().asString().startsWith("names-");
    assertThat(value.bySite()).hasSize(1);
    assertThat(value.bySite().keySet()).singleElement().asString().startsWith("key-");
    assertThat(value.bySite().values()).singleElement().hasNoNullFieldsOrProperties();
    assertThat(value.sorted()).hasSize(1);
    assertThat(value.optional()).isPresent();
    assertThat(value.color()).isNotNull();
    assertThat(value.times().at()).isAfter(SampleValues.EPOCH);
    assertThat(value.times().timeout()).isPositive();
    assertThat(value.array()).hasSize(1);
    assertThat(value.generic().value()).isInstanceOf(Leaf.class).hasNoNullFieldsOrProperties();
    assertThat(value.generic().values()).singleElement().isInstanceOf(Leaf.class);
  }

  @Test
  void valuesAreDistinctAndTheSameEachTime() {
    Leaf leaf = (Leaf) SampleValues.of(Leaf.class);
    assertThat(List.<Object>of(leaf.small(), leaf.big(), leaf.maybe())).doesNotHaveDuplicates();
    assertThat(SampleValues.of(Everything.class)).usingRecursiveComparison()
        .isEqualTo(SampleValues.of(Everything.class));
  }

  @Test
  void aTypeItCannotBuildIsNamedWithWhereItWasMet() {
    assertThatThrownBy(() -> SampleValues.of(WithInterface.class)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot build a sample " + Shape.class.getName() + " at shape");
    assertThatThrownBy(() -> SampleValues.of(Loop.class)).hasMessageContaining("a type that contains itself");
    assertThatThrownBy(() -> SampleValues.of(WithRefusing.class))
        .hasMessageContaining("the canonical constructor of " + Refusing.class.getName() + " at nested[]")
        .hasMessageContaining("name must start with ok");
  }

  @Test
  void thePayloadTypesOfTheWorkflowsBuild() {
    // Every slot HEAD registers builds, the request the watcher sends each workflow among them.
    for (ReleasePayloads.Slot slot : ReleasePayloads.slots(ReleasePayloads.head())) {
      assertThat(SampleValues.of(slot.type())).as(slot.file()).isNotNull();
    }
    assertThat(SampleValues.of(io.shipstream.failover.workflows.EmergencyFailoverWorkflow.Request.class))
        .hasNoNullFieldsOrProperties();
  }
}
