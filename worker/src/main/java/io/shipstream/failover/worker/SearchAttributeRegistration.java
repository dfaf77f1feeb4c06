package io.shipstream.failover.worker;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.shipstream.failover.workflows.SearchAttributes;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers the failover search attributes ({@code FailoverGroup}, {@code FailoverTarget},
 * {@code FailoverPhase}) on the worker's namespace at start-up, through the operator API, so the
 * Temporal UI can list failovers by group without a manual step. Many servers refuse it (Temporal
 * Cloud, a namespace the worker's identity may not administer, a server without the operator
 * service): that is one log line and nothing more, because the watcher and the workflows use only
 * the attributes the namespace actually has.
 */
final class SearchAttributeRegistration {
  private static final Logger log = LoggerFactory.getLogger(SearchAttributeRegistration.class);

  private SearchAttributeRegistration() {}

  static AddSearchAttributesRequest request(String namespace) {
    Map<String, IndexedValueType> attributes = new LinkedHashMap<>();
    for (var key : SearchAttributes.ALL) {
      attributes.put(key.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    }
    return AddSearchAttributesRequest.newBuilder().setNamespace(namespace).putAllSearchAttributes(attributes).build();
  }

  /** Through the operator service on {@code stubs}' connection. */
  static boolean register(WorkflowServiceStubs stubs, String namespace) {
    OperatorServiceStubs operator = OperatorServiceStubs.newServiceStubs(OperatorServiceStubsOptions.newBuilder()
        .setChannel(stubs.getRawChannel()).validateAndBuildWithDefaults());
    return register(request -> operator.blockingStub().withDeadlineAfter(10, TimeUnit.SECONDS)
        .addSearchAttributes(request), namespace);
  }

  /** Sends the registration through {@code add}; true when the namespace has the attributes afterwards. */
  static boolean register(Consumer<AddSearchAttributesRequest> add, String namespace) {
    try {
      add.accept(request(namespace));
      log.info("registered the search attributes {} on namespace {}", SearchAttributes.names(), namespace);
      return true;
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.ALREADY_EXISTS) {
        log.info("the search attributes {} are already registered on namespace {}", SearchAttributes.names(),
            namespace);
        return true;
      }
      log.warn("could not register the search attributes {} on namespace {} ({}): failovers run without the "
          + "missing ones; register them at install (temporal operator search-attribute create)",
          SearchAttributes.names(), namespace, e.getStatus().getCode() + ": " + e.getStatus().getDescription());
      return false;
    } catch (RuntimeException e) {
      log.warn("could not register the search attributes {} on namespace {} ({}): failovers run without the "
          + "missing ones", SearchAttributes.names(), namespace, e.toString());
      return false;
    }
  }
}
