package io.shipstream.failover.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The worker's start-up registration of the search attributes, against a fake operator call, so
 * every refusal a real server may give is covered. (Temporal's Java test server accepts the
 * registration: {@link WorkerAppTest}'s workers register on it, and the one pointed at a closed
 * port logs the refusal and still starts.)
 */
class SearchAttributeRegistrationTest {
  @Test
  void asksForTheThreeKeywordAttributesOnTheNamespace() {
    List<AddSearchAttributesRequest> sent = new ArrayList<>();
    assertThat(SearchAttributeRegistration.register(sent::add, "failovers")).isTrue();
    assertThat(sent).singleElement().satisfies(r -> {
      assertThat(r.getNamespace()).isEqualTo("failovers");
      assertThat(r.getSearchAttributesMap()).isEqualTo(Map.of(
          "FailoverGroup", IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
          "FailoverTarget", IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
          "FailoverPhase", IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD));
    });
  }

  @Test
  void alreadyRegisteredCounts() {
    assertThat(SearchAttributeRegistration.register(r -> {
      throw Status.ALREADY_EXISTS.withDescription("exists").asRuntimeException();
    }, "default")).isTrue();
  }

  @Test
  void aRefusalIsToleratedNotThrown() {
    assertThat(SearchAttributeRegistration.register(r -> {
      throw Status.PERMISSION_DENIED.withDescription("not an admin").asRuntimeException();
    }, "default")).isFalse();
    assertThat(SearchAttributeRegistration.register(r -> {
      throw Status.UNIMPLEMENTED.asRuntimeException();
    }, "default")).isFalse();
    assertThat(SearchAttributeRegistration.register(r -> {
      throw new IllegalStateException("channel closed");
    }, "default")).isFalse();
  }
}
