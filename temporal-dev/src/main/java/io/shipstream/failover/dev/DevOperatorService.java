package io.shipstream.failover.dev;

import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.StreamObserver;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.AddSearchAttributesResponse;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.ListSearchAttributesResponse;
import io.temporal.api.operatorservice.v1.OperatorServiceGrpc;
import io.temporal.api.operatorservice.v1.RemoveSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.RemoveSearchAttributesResponse;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The Java test server's operator service, plus the {@code ListSearchAttributes} it lacks (it
 * answers UNIMPLEMENTED): every call goes to the test server's own service, and the listing
 * answers what that service accepted, per namespace. Without it the watcher could not tell whether
 * the failover attributes are registered, and every group said {@code SearchAttributesRegistered=
 * Unknown/CannotList} on the playground although they were. {@link #around} binds it in the test
 * server's place: the test server's own handlers serve every call but the three of the search
 * attributes, so whatever it implements (its Nexus endpoints) stays served as it serves it.
 */
final class DevOperatorService extends OperatorServiceGrpc.OperatorServiceImplBase {
  /** The calls this service takes: adding and removing pass on to the test server and are noted, listing is its own. */
  private static final Set<String> OWN = Set.of(OperatorServiceGrpc.getAddSearchAttributesMethod().getFullMethodName(),
      OperatorServiceGrpc.getRemoveSearchAttributesMethod().getFullMethodName(),
      OperatorServiceGrpc.getListSearchAttributesMethod().getFullMethodName());

  private final OperatorServiceGrpc.OperatorServiceImplBase delegate;
  private final ConcurrentMap<String, ConcurrentMap<String, IndexedValueType>> registered = new ConcurrentHashMap<>();

  private DevOperatorService(OperatorServiceGrpc.OperatorServiceImplBase delegate) {
    this.delegate = delegate;
  }

  /** What the dev server binds for {@code testServer}: its own handlers, but this service's for {@link #OWN}. */
  static ServerServiceDefinition around(OperatorServiceGrpc.OperatorServiceImplBase testServer) {
    ServerServiceDefinition own = new DevOperatorService(testServer).bindService();
    ServerServiceDefinition theirs = testServer.bindService();
    ServerServiceDefinition.Builder served = ServerServiceDefinition.builder(theirs.getServiceDescriptor());
    for (ServerMethodDefinition<?, ?> method : theirs.getMethods()) {
      String name = method.getMethodDescriptor().getFullMethodName();
      ServerMethodDefinition<?, ?> handler = OWN.contains(name) ? own.getMethod(name) : method;
      served.addMethod(handler);
    }
    return served.build();
  }

  @Override
  public void addSearchAttributes(AddSearchAttributesRequest request,
      StreamObserver<AddSearchAttributesResponse> response) {
    delegate.addSearchAttributes(request, onSuccess(response,
        () -> namespace(request.getNamespace()).putAll(request.getSearchAttributesMap())));
  }

  @Override
  public void removeSearchAttributes(RemoveSearchAttributesRequest request,
      StreamObserver<RemoveSearchAttributesResponse> response) {
    delegate.removeSearchAttributes(request, onSuccess(response,
        () -> request.getSearchAttributesList().forEach(namespace(request.getNamespace())::remove)));
  }

  /** What this server accepted for the namespace, as a real frontend lists its custom attributes. */
  @Override
  public void listSearchAttributes(ListSearchAttributesRequest request,
      StreamObserver<ListSearchAttributesResponse> response) {
    response.onNext(ListSearchAttributesResponse.newBuilder()
        .putAllCustomAttributes(Map.copyOf(namespace(request.getNamespace()))).build());
    response.onCompleted();
  }

  private ConcurrentMap<String, IndexedValueType> namespace(String namespace) {
    return registered.computeIfAbsent(namespace, n -> new ConcurrentHashMap<>());
  }

  /** Passes the answer on, and runs {@code accepted} first when the test server accepted the change. */
  private static <T> StreamObserver<T> onSuccess(StreamObserver<T> response, Runnable accepted) {
    return new StreamObserver<>() {
      @Override
      public void onNext(T value) {
        accepted.run();
        response.onNext(value);
      }

      @Override
      public void onError(Throwable t) {
        response.onError(t);
      }

      @Override
      public void onCompleted() {
        response.onCompleted();
      }
    };
  }
}
