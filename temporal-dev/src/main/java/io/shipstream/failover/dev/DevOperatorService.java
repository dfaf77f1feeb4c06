package io.shipstream.failover.dev;

import io.grpc.stub.StreamObserver;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.AddSearchAttributesResponse;
import io.temporal.api.operatorservice.v1.CreateNexusEndpointRequest;
import io.temporal.api.operatorservice.v1.CreateNexusEndpointResponse;
import io.temporal.api.operatorservice.v1.DeleteNexusEndpointRequest;
import io.temporal.api.operatorservice.v1.DeleteNexusEndpointResponse;
import io.temporal.api.operatorservice.v1.GetNexusEndpointRequest;
import io.temporal.api.operatorservice.v1.GetNexusEndpointResponse;
import io.temporal.api.operatorservice.v1.ListNexusEndpointsRequest;
import io.temporal.api.operatorservice.v1.ListNexusEndpointsResponse;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.ListSearchAttributesResponse;
import io.temporal.api.operatorservice.v1.OperatorServiceGrpc;
import io.temporal.api.operatorservice.v1.RemoveSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.RemoveSearchAttributesResponse;
import io.temporal.api.operatorservice.v1.UpdateNexusEndpointRequest;
import io.temporal.api.operatorservice.v1.UpdateNexusEndpointResponse;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The Java test server's operator service, plus the {@code ListSearchAttributes} it lacks (it
 * answers UNIMPLEMENTED): every call goes to the test server's own service, and the listing
 * answers what that service accepted, per namespace. Without it the watcher could not tell whether
 * the failover attributes are registered, and every group said {@code SearchAttributesRegistered=
 * Unknown/CannotList} on the playground although they were.
 */
final class DevOperatorService extends OperatorServiceGrpc.OperatorServiceImplBase {
  private final OperatorServiceGrpc.OperatorServiceImplBase delegate;
  private final ConcurrentMap<String, ConcurrentMap<String, IndexedValueType>> registered = new ConcurrentHashMap<>();

  DevOperatorService(OperatorServiceGrpc.OperatorServiceImplBase delegate) {
    this.delegate = delegate;
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

  @Override
  public void getNexusEndpoint(GetNexusEndpointRequest request, StreamObserver<GetNexusEndpointResponse> response) {
    delegate.getNexusEndpoint(request, response);
  }

  @Override
  public void createNexusEndpoint(CreateNexusEndpointRequest request,
      StreamObserver<CreateNexusEndpointResponse> response) {
    delegate.createNexusEndpoint(request, response);
  }

  @Override
  public void updateNexusEndpoint(UpdateNexusEndpointRequest request,
      StreamObserver<UpdateNexusEndpointResponse> response) {
    delegate.updateNexusEndpoint(request, response);
  }

  @Override
  public void deleteNexusEndpoint(DeleteNexusEndpointRequest request,
      StreamObserver<DeleteNexusEndpointResponse> response) {
    delegate.deleteNexusEndpoint(request, response);
  }

  @Override
  public void listNexusEndpoints(ListNexusEndpointsRequest request,
      StreamObserver<ListNexusEndpointsResponse> response) {
    delegate.listNexusEndpoints(request, response);
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
